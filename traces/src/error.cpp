#include "lockstep/error.h"

#include <cctype>

namespace lockstep {

std::string Error::path() const {
  // "/steps/4/options/mode" -> "steps[4].options.mode"
  std::string out;
  size_t i = 0;
  while (i < pointer.size()) {
    size_t next = pointer.find('/', i + 1);
    std::string token =
        pointer.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1);
    bool numeric = !token.empty();
    for (char c : token) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
    if (numeric) {
      out += "[" + token + "]";
    } else {
      if (!out.empty()) out += ".";
      out += token;
    }
    if (next == std::string::npos) break;
    i = next;
  }
  return out;
}

std::string Error::to_string() const {
  if (pointer.empty()) return message;
  return path() + " (" + pointer + "): " + message;
}

}  // namespace lockstep
