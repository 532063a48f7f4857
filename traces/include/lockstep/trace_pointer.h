// Where an action is in its trace, as a JSON pointer ("/steps/12/callback/body/0"), in one word.
// Every action and callback keeps its own, and as text most are longer than a short string's
// inline room; the shapes the reader makes (steps, callbacks, bodies, agents) are kept as a few
// bytes of indices instead, and any other pointer as its text. The text is rebuilt when asked for:
// only messages read it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "lockstep/compact_string.h"

namespace lockstep {

class TracePointer {
 public:
  TracePointer() = default;
  TracePointer(std::string_view text);  // NOLINT: implicit, as the std::string it replaces
  TracePointer(const std::string& text) : TracePointer(std::string_view(text)) {}
  TracePointer(const char* text) : TracePointer(std::string_view(text)) {}

  // The pointers the trace reader makes, built from their parent's without spelling either out.
  static TracePointer step(std::size_t index);  // "/steps/<index>"
  TracePointer callback() const;                // this + "/callback"
  TracePointer body(std::size_t index) const;   // this + "/body/<index>"

  std::string str() const;
  operator std::string() const { return str(); }  // NOLINT
  bool empty() const noexcept { return code_.empty(); }

  friend bool operator==(const TracePointer& a, std::string_view b) { return a.str() == b; }

 private:
  static TracePointer of_code(std::string_view code);  // an encoded form as it stands
  bool is_encoded() const noexcept;
  CompactString code_;  // the encoded form (trace_pointer.cpp), or the text itself
};

std::string operator+(const TracePointer& a, const char* b);
std::string operator+(const TracePointer& a, const std::string& b);
std::string operator+(const std::string& a, const TracePointer& b);
std::string operator+(const char* a, const TracePointer& b);

}  // namespace lockstep
