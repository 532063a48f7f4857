#include "page_file.h"

namespace lockstep::cli {
namespace {

bool kept(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

std::string page_file_name(const std::string& trace_name) {
  std::string name;
  unsigned char previous = 0;
  for (unsigned char c : trace_name) {
    // A UTF-8 continuation byte after a non-ASCII byte is part of the character already made `-`:
    // "é" gives one `-`, not two.
    const bool continues = (c & 0xC0) == 0x80 && previous >= 0x80;
    previous = c;
    if (continues) continue;
    if (name.size() == kMaxPageNameLength) break;
    name += kept(c) ? static_cast<char>(c) : '-';
  }
  if (name.empty()) name = "trace";
  if (name.front() == '.') name.front() = '-';
  return name + ".html";
}

}  // namespace lockstep::cli
