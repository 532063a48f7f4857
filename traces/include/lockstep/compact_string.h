// A string of a trace's step (an id, a lock name, a label) in one machine word: up to seven bytes
// are kept in the word itself, a longer string in a block of its own. A trace holds several per
// action and hundreds of thousands of actions, so a 32-byte std::string each was most of a trace's
// memory (docs/performance.md, "Reading traces and logs"). Reads go through std::string_view.
#pragma once

#include <bit>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace lockstep {

class CompactString {
 public:
  static constexpr std::size_t kInlineBytes = 7;

  CompactString() noexcept = default;
  CompactString(std::string_view s) { assign(s); }  // NOLINT: implicit, like std::string
  CompactString(const std::string& s) : CompactString(std::string_view(s)) {}
  CompactString(const char* s) : CompactString(std::string_view(s)) {}
  CompactString(const CompactString& other) { assign(other.view()); }
  CompactString(CompactString&& other) noexcept : word_(other.word_) { other.word_ = 0; }
  CompactString& operator=(const CompactString& other);
  CompactString& operator=(CompactString&& other) noexcept;
  CompactString& operator=(std::string_view s) {
    if (s.size() > kInlineBytes) return assign_long(s);
    const std::uint64_t word = inline_word(s);  // before releasing: `s` may view this string
    release();
    word_ = word;
    return *this;
  }
  CompactString& operator=(const std::string& s) { return *this = std::string_view(s); }
  CompactString& operator=(const char* s) { return *this = std::string_view(s); }
  ~CompactString() { release(); }

  std::string_view view() const noexcept {
    if (word_ == 0) return {};
    if (is_inline())
      return {reinterpret_cast<const char*>(&word_) + 1,
              static_cast<std::size_t>((word_ & 0xff) >> 1)};
    return heap_view();
  }
  operator std::string_view() const noexcept { return view(); }  // NOLINT
  operator std::string() const { return std::string(view()); }   // NOLINT
  std::string str() const { return std::string(view()); }
  const char* data() const noexcept { return view().data(); }
  std::size_t size() const noexcept { return view().size(); }
  bool empty() const noexcept { return word_ == 0; }

  friend bool operator==(const CompactString& a, std::string_view b) noexcept {
    return a.view() == b;
  }
  friend std::strong_ordering operator<=>(const CompactString& a, std::string_view b) noexcept {
    return a.view() <=> b;
  }
  // Two CompactStrings, without converting either (a template, so that a literal or a
  // std::string still converts to std::string_view above rather than to a CompactString).
  template <std::same_as<CompactString> Other>
  friend bool operator==(const CompactString& a, const Other& b) noexcept {
    return a.view() == b.view();
  }
  template <std::same_as<CompactString> Other>
  friend std::strong_ordering operator<=>(const CompactString& a, const Other& b) noexcept {
    return a.view() <=> b.view();
  }

 private:
  static_assert(std::endian::native == std::endian::little,
                "the inline form keeps its bytes after the word's low byte");
  void assign(std::string_view s) {
    if (s.size() > kInlineBytes)
      assign_long(s);
    else
      word_ = inline_word(s);
  }
  // Short strings are assembled in a register: a call to memcpy would cost more than the bytes.
  static std::uint64_t inline_word(std::string_view s) noexcept {
    if (s.empty()) return 0;
    std::uint64_t word = (std::uint64_t{s.size()} << 1) | 1;
    for (std::size_t i = 0; i < s.size(); ++i)
      word |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * (i + 1));
    return word;
  }
  CompactString& assign_long(std::string_view s);
  void release() noexcept {
    if (word_ != 0 && !is_inline()) free_block();
    word_ = 0;
  }
  std::string_view heap_view() const noexcept;
  void free_block() noexcept;
  bool is_inline() const noexcept { return (word_ & 1) != 0; }

  // 0: empty. Low bit set: inline, the low byte is (size << 1) | 1 and the next `size` bytes of
  // the word (in memory order) are the text. Otherwise the address of a heap block: a 32-bit
  // size, then the bytes (blocks are at least 4-aligned, so the low bit is clear).
  std::uint64_t word_ = 0;
};

static_assert(sizeof(CompactString) == 8);

// Concatenation into a std::string, as with std::string's own operands.
std::string operator+(const std::string& a, const CompactString& b);
std::string operator+(std::string&& a, const CompactString& b);
std::string operator+(const CompactString& a, const std::string& b);
std::string operator+(const char* a, const CompactString& b);
std::string operator+(const CompactString& a, const char* b);
std::ostream& operator<<(std::ostream& out, const CompactString& s);

}  // namespace lockstep

template <>
struct std::hash<lockstep::CompactString> {
  std::size_t operator()(const lockstep::CompactString& s) const noexcept {
    return std::hash<std::string_view>{}(s.view());
  }
};
