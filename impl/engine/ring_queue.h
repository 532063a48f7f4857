// A FIFO queue in a ring buffer that only grows. The runtime's task, microtask and lock-step queues
// fill and drain thousands of times per trace; a std::deque used that way allocates and frees a
// block every few elements as its front advances, a ring buffer does not once it is large enough.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace lockstep::impl {

template <class T>
class RingQueue {
 public:
  RingQueue() = default;
  RingQueue(RingQueue&& other) noexcept { swap(other); }
  RingQueue& operator=(RingQueue&& other) noexcept {
    RingQueue moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~RingQueue() { clear(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return slot(0); }
  const T& front() const { return slot(0); }
  T& operator[](std::size_t i) { return slot(i); }
  const T& operator[](std::size_t i) const { return slot(i); }

  template <class... A>
  T& emplace_back(A&&... args) {
    if (size_ == capacity_) grow();
    T* p = ::new (static_cast<void*>(&raw(size_))) T(std::forward<A>(args)...);
    ++size_;
    return *p;
  }
  void push_back(T&& item) { emplace_back(std::move(item)); }

  void pop_front() {
    slot(0).~T();
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }

  // Removes the elements for which `remove` is true; the others keep their order.
  template <class Pred>
  void erase_if(Pred remove) {
    RingQueue kept;
    while (!empty()) {
      if (!remove(front())) kept.push_back(std::move(front()));
      pop_front();
    }
    swap(kept);
  }

  void clear() {
    while (!empty()) pop_front();
  }

 private:
  struct alignas(T) Storage {
    unsigned char bytes[sizeof(T)];
  };
  T& raw(std::size_t i) { return *reinterpret_cast<T*>(&buffer_[(head_ + i) & (capacity_ - 1)]); }
  T& slot(std::size_t i) { return *std::launder(&raw(i)); }
  const T& slot(std::size_t i) const { return const_cast<RingQueue*>(this)->slot(i); }

  void grow() {
    const std::size_t capacity = capacity_ ? capacity_ * 2 : 16;
    auto buffer = std::make_unique<Storage[]>(capacity);
    for (std::size_t i = 0; i < size_; ++i) {
      ::new (static_cast<void*>(&buffer[i])) T(std::move(slot(i)));
      slot(i).~T();
    }
    buffer_ = std::move(buffer);
    capacity_ = capacity;
    head_ = 0;
  }

  void swap(RingQueue& other) noexcept {
    std::swap(buffer_, other.buffer_);
    std::swap(capacity_, other.capacity_);
    std::swap(head_, other.head_);
    std::swap(size_, other.size_);
  }

  std::unique_ptr<Storage[]> buffer_;
  std::size_t capacity_ = 0;  // a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace lockstep::impl
