// A hash index from strings to small integers (ordinals into the caller's own array), for the trace
// reader's ids and the impl engine's lock names, trace ids and agents. One flat array of (hash,
// ordinal) slots probed linearly: a lookup touches one or two cache lines and an insertion
// allocates nothing until the array doubles, where a node-based std::unordered_map allocates a node
// per key and chases a pointer per probe. The index keeps no keys: the caller says what string an
// ordinal stands for, so the caller's strings may move (a std::vector of records growing) without
// invalidating it.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

namespace lockstep {

class StringIndex {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  void reserve(std::size_t keys) {
    std::size_t capacity = 16;
    while (capacity < keys * 2) capacity *= 2;  // at most half full: probes stay short
    if (capacity > slots_.size()) rehash(capacity);
  }

  // The ordinal whose key (`key_of(ordinal)`) equals `key`, or kNone.
  template <class KeyOf>
  std::uint32_t find(std::string_view key, const KeyOf& key_of) const {
    if (slots_.empty()) return kNone;
    const std::uint32_t h = hash(key);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.ordinal == kNone) return kNone;
      if (s.hash == h && std::string_view(key_of(s.ordinal)) == key) return s.ordinal;
    }
  }

  // Adds `key` -> `ordinal`; the key must not be present.
  void insert(std::string_view key, std::uint32_t ordinal) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    place(Slot{hash(key), ordinal});
    ++size_;
  }

  // Starts loading the slot where a probe for `key` begins, for a caller that knows the key well
  // before it looks it up: in a table of megabytes that load is a miss to memory.
  void prefetch(std::string_view key) const {
    if (slots_.empty()) return;
    const void* slot = slots_.data() + (hash(key) & mask());
    // GCC 12 drops a prefetch of this address as if it were dead code; the empty asm, which
    // claims to read it, keeps it.
    asm volatile("" : : "r"(slot));
    __builtin_prefetch(slot, 1);
  }

  // The ordinal whose key equals `key` if there is one; else adds `key` -> `ordinal` and returns
  // kNone. One probe sequence for both, where find then insert walks it twice.
  template <class KeyOf>
  std::uint32_t find_or_insert(std::string_view key, std::uint32_t ordinal, const KeyOf& key_of) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    const std::uint32_t h = hash(key);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.ordinal == kNone) {
        s = Slot{h, ordinal};
        ++size_;
        return kNone;
      }
      if (s.hash == h && std::string_view(key_of(s.ordinal)) == key) return s.ordinal;
    }
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t ordinal = kNone;
  };

  // Eight bytes at a time (the last word overlapping the one before; keys under eight bytes read
  // as two overlapping halves or three bytes), each multiplied in, then a final mix that spreads
  // similar keys over the low bits. Keys are short ids and lock names: a byte at a time was 2% of
  // a whole-trace replay's instructions (docs/performance.md). Any function is correct here, since
  // a probe compares the keys themselves; only the spread matters.
  static std::uint32_t hash(std::string_view key) {
    constexpr std::uint64_t kMultiplier = 0x9e3779b97f4a7c15u;
    const char* p = key.data();
    const std::size_t n = key.size();
    std::uint64_t h = n * kMultiplier;
    if (n >= 8) {
      std::size_t i = 0;
      for (; i + 8 <= n; i += 8) h = (h ^ word(p + i)) * kMultiplier;
      if (i < n) h = (h ^ word(p + n - 8)) * kMultiplier;
    } else if (n >= 4) {
      h = (h ^ ((std::uint64_t{half(p)} << 32) | half(p + n - 4))) * kMultiplier;
    } else if (n > 0) {
      const auto byte = [p](std::size_t i) {
        return std::uint64_t{static_cast<unsigned char>(p[i])};
      };
      h = (h ^ (byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16)) * kMultiplier;
    }
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    return static_cast<std::uint32_t>(h);
  }
  static std::uint64_t word(const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  static std::uint32_t half(const char* p) {
    std::uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  std::size_t mask() const { return slots_.size() - 1; }

  void place(Slot slot) {
    std::size_t i = slot.hash & mask();
    while (slots_[i].ordinal != kNone) i = (i + 1) & mask();
    slots_[i] = slot;
  }

  void rehash(std::size_t capacity) {  // capacity: a power of two
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    for (const Slot& s : old)
      if (s.ordinal != kNone) place(s);
  }

  std::vector<Slot> slots_;  // size 0 or a power of two
  std::size_t size_ = 0;
};

}  // namespace lockstep
