#include "lockstep/compact_string.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <ostream>
#include <stdexcept>

namespace lockstep {
namespace {

struct HeapBlock {
  std::uint32_t size;
  char bytes[1];  // `size` of them
};

}  // namespace

CompactString& CompactString::assign_long(std::string_view s) {
  // The readers refuse strings far shorter than this; an embedder's own could be longer.
  if (s.size() > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("string");
  auto* block = static_cast<HeapBlock*>(std::malloc(offsetof(HeapBlock, bytes) + s.size()));
  if (!block) throw std::bad_alloc();
  block->size = static_cast<std::uint32_t>(s.size());
  std::memcpy(block->bytes, s.data(), s.size());  // before releasing: `s` may view this string
  release();
  word_ = reinterpret_cast<std::uintptr_t>(block);
  return *this;
}

void CompactString::free_block() noexcept {
  std::free(reinterpret_cast<HeapBlock*>(word_));
}

CompactString& CompactString::operator=(const CompactString& other) {
  if (this != &other) *this = other.view();
  return *this;
}

CompactString& CompactString::operator=(CompactString&& other) noexcept {
  if (this != &other) {
    release();
    word_ = other.word_;
    other.word_ = 0;
  }
  return *this;
}

std::string_view CompactString::heap_view() const noexcept {
  const auto* block = reinterpret_cast<const HeapBlock*>(word_);
  return {block->bytes, block->size};
}

std::string operator+(const std::string& a, const CompactString& b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a).append(b.view());
  return out;
}

std::string operator+(std::string&& a, const CompactString& b) {
  a.append(b.view());
  return std::move(a);
}

std::string operator+(const CompactString& a, const std::string& b) {
  std::string out(a.view());
  out.append(b);
  return out;
}

std::string operator+(const char* a, const CompactString& b) {
  std::string out(a);
  out.append(b.view());
  return out;
}

std::string operator+(const CompactString& a, const char* b) {
  std::string out(a.view());
  out.append(b);
  return out;
}

std::ostream& operator<<(std::ostream& out, const CompactString& s) {
  return out << s.view();
}

}  // namespace lockstep
