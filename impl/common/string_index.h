// A hash index from strings to small integers (ordinals into the caller's own array), for the lock
// manager's names and the runner's trace ids. One flat array of (hash, ordinal) slots probed
// linearly: a lookup touches one or two cache lines and an insertion allocates nothing until the
// array doubles, where a node-based std::unordered_map allocates a node per key and chases a
// pointer per probe. The index keeps no keys: the caller says what string an ordinal stands for,
// so the caller's strings may move (a std::vector of records growing) without invalidating it.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace lockstep::impl {

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

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t ordinal = kNone;
  };

  // FNV-1a and a final mix: keys are short ids and lock names, for which this is cheaper than
  // std::hash's out-of-line Murmur, and the mix spreads similar keys over the low bits.
  static std::uint32_t hash(std::string_view key) {
    std::uint64_t h = 0xcbf29ce484222325u;
    for (unsigned char c : key) h = (h ^ c) * 0x100000001b3u;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    return static_cast<std::uint32_t>(h);
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

}  // namespace lockstep::impl
