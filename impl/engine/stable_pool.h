// Storage for objects that other objects point to for the whole replay (promises, reactions,
// signals, lock requests): made one at a time, never moved, all destroyed together. A std::deque
// does the same with blocks of 512 bytes, so it allocates every four or five promises; this pool
// doubles its blocks up to 4096 objects, so a replay of 10^5 steps allocates a few dozen blocks
// and a replay of a small trace (check replays thousands of them) still allocates little.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace lockstep::impl {

template <class T>
class StablePool {
 public:
  StablePool() = default;
  StablePool(const StablePool&) = delete;
  StablePool& operator=(const StablePool&) = delete;
  ~StablePool() {
    for (Block& b : blocks_) {
      for (std::size_t i = 0; i < b.used; ++i) b.items[i].~T();
      ::operator delete (static_cast<void*>(b.items), std::align_val_t{alignof(T)});
    }
  }

  template <class... Args>
  T& emplace(Args&&... args) {
    if (blocks_.empty() || blocks_.back().used == blocks_.back().capacity) grow();
    Block& b = blocks_.back();
    T* item = ::new (static_cast<void*>(b.items + b.used)) T(std::forward<Args>(args)...);
    ++b.used;  // after construction: a throwing constructor leaves nothing to destroy
    ++size_;
    return *item;
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kFirstBlock = 16;
  static constexpr std::size_t kLargestBlock = 4096;

  struct Block {
    T* items;
    std::size_t used;
    std::size_t capacity;
  };

  void grow() {
    const std::size_t capacity =
        blocks_.empty() ? kFirstBlock
                        : std::min(blocks_.back().capacity * 2, std::size_t{kLargestBlock});
    blocks_.reserve(blocks_.size() + 1);  // so that push_back below cannot throw and leak
    void* raw = ::operator new (capacity * sizeof(T), std::align_val_t{alignof(T)});
    blocks_.push_back(Block{static_cast<T*>(raw), 0, capacity});
  }

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
};

}  // namespace lockstep::impl
