#include "lockstep/trace_pointer.h"

#include <cstdint>
#include <optional>

namespace lockstep {
namespace {

// The encoded form: a root byte, its index, then segments, each "callback" or "body" and its
// index. Indices are base-128 varints. A root byte has its high bit set, which no pointer's text
// has first ('/'), so the two forms cannot be confused; a text that does begin with such a byte
// is kept behind kEscape.
constexpr unsigned char kSteps = 0x80;   // "/steps/<i>"
constexpr unsigned char kAgents = 0x81;  // "/agents/<i>"
constexpr unsigned char kEscape = 0x82;  // then the text as given
constexpr char kCallback = 'c';          // "/callback"
constexpr char kBody = 'b';              // "/body/<i>"
constexpr std::uint64_t kLargestIndex = (std::uint64_t{1} << 28) - 1;

// A decimal index as JSON pointers into arrays write it: no sign, no leading zero.
std::optional<std::uint64_t> index_at(std::string_view text, std::size_t& at) {
  const std::size_t start = at;
  std::uint64_t value = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    value = value * 10 + static_cast<std::uint64_t>(text[at] - '0');
    if (value > kLargestIndex) return std::nullopt;
    ++at;
  }
  if (at == start || (text[start] == '0' && at - start > 1)) return std::nullopt;
  return value;
}

bool take(std::string_view text, std::size_t& at, std::string_view word) {
  if (text.substr(at, word.size()) != word) return false;
  at += word.size();
  return true;
}

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

std::uint64_t get_varint(std::string_view code, std::size_t& at) {
  std::uint64_t value = 0;
  for (int shift = 0; at < code.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(code[at++]);
    value |= std::uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) break;
  }
  return value;
}

std::optional<std::string> encoded(std::string_view text) {
  std::string code;
  std::size_t at = 0;
  if (take(text, at, "/steps/"))
    code += static_cast<char>(kSteps);
  else if (take(text, at, "/agents/"))
    code += static_cast<char>(kAgents);
  else
    return std::nullopt;
  const auto root = index_at(text, at);
  if (!root) return std::nullopt;
  put_varint(code, *root);
  while (at < text.size()) {
    if (take(text, at, "/callback")) {
      code += kCallback;
    } else if (take(text, at, "/body/")) {
      const auto item = index_at(text, at);
      if (!item) return std::nullopt;
      code += kBody;
      put_varint(code, *item);
    } else {
      return std::nullopt;
    }
  }
  return code;
}

}  // namespace

TracePointer TracePointer::of_code(std::string_view code) {
  TracePointer out;
  out.code_ = code;
  return out;
}

TracePointer TracePointer::step(std::size_t index) {
  if (index > kLargestIndex) return TracePointer("/steps/" + std::to_string(index));
  std::string code(1, static_cast<char>(kSteps));
  put_varint(code, index);
  return of_code(code);
}

// Each appends to the encoded form, or spells out the text when this pointer is kept as text.
TracePointer TracePointer::callback() const {
  if (!is_encoded()) return TracePointer(str() + "/callback");
  return of_code(std::string(code_.view()) + kCallback);
}

TracePointer TracePointer::body(std::size_t index) const {
  if (!is_encoded() || index > kLargestIndex)
    return TracePointer(str() + "/body/" + std::to_string(index));
  std::string code(code_.view());
  code += kBody;
  put_varint(code, index);
  return of_code(code);
}

bool TracePointer::is_encoded() const noexcept {
  const std::string_view code = code_.view();
  return !code.empty() && (static_cast<unsigned char>(code[0]) == kSteps ||
                           static_cast<unsigned char>(code[0]) == kAgents);
}

TracePointer::TracePointer(std::string_view text) {
  if (auto code = encoded(text))
    code_ = *code;
  else if (!text.empty() && static_cast<unsigned char>(text[0]) >= kSteps)
    code_ = std::string(1, static_cast<char>(kEscape)).append(text);
  else
    code_ = text;
}

std::string TracePointer::str() const {
  const std::string_view code = code_.view();
  if (code.empty()) return {};
  const auto first = static_cast<unsigned char>(code[0]);
  if (first == kEscape) return std::string(code.substr(1));
  if (!is_encoded()) return std::string(code);
  std::string text = first == kSteps ? "/steps/" : "/agents/";
  std::size_t at = 1;
  text += std::to_string(get_varint(code, at));
  while (at < code.size()) {
    if (code[at++] == kCallback) {
      text += "/callback";
    } else {
      text += "/body/";
      text += std::to_string(get_varint(code, at));
    }
  }
  return text;
}

std::string operator+(const TracePointer& a, const char* b) {
  return a.str().append(b);
}
std::string operator+(const TracePointer& a, const std::string& b) {
  return a.str().append(b);
}
std::string operator+(const std::string& a, const TracePointer& b) {
  return a + b.str();
}
std::string operator+(const char* a, const TracePointer& b) {
  return a + b.str();
}

}  // namespace lockstep
