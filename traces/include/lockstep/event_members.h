// An event's members: a vector of (key, value) pairs that keeps up to three of them inside the
// event itself. Every event the log format defines has three members or fewer (the event table of
// TRACE_FORMAT.md, which traces/README.md follows), so a log of 10^5 events makes no allocation
// per event for them; more spill to the heap, as a vector would. Used like a std::vector of pairs,
// with the operations the tools need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/value.h"

namespace lockstep {

class EventMembers {
 public:
  using Member = Value::Member;
  using value_type = Member;
  using iterator = Member*;
  using const_iterator = const Member*;
  static constexpr std::size_t kInline = 3;

  EventMembers() = default;
  EventMembers(std::initializer_list<Member> members) {
    append_copies(members.begin(), members.end());
  }
  EventMembers(std::vector<Member>&& members) {  // NOLINT: implicit, as the vector it replaces
    reserve(members.size());
    for (Member& m : members) emplace_back(std::move(m.first), std::move(m.second));
  }
  EventMembers(const EventMembers& other) { append_copies(other.begin(), other.end()); }
  EventMembers(EventMembers&& other) noexcept { take(other); }
  EventMembers& operator=(const EventMembers& other) {
    if (this != &other) {
      EventMembers copy(other);
      clear_and_free();
      take(copy);
    }
    return *this;
  }
  EventMembers& operator=(EventMembers&& other) noexcept {
    if (this != &other) {
      clear_and_free();
      take(other);
    }
    return *this;
  }
  EventMembers& operator=(std::initializer_list<Member> members) {
    return *this = EventMembers(members);
  }
  ~EventMembers() { clear_and_free(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Member* begin() { return data(); }
  Member* end() { return data() + size_; }
  const Member* begin() const { return data(); }
  const Member* end() const { return data() + size_; }
  Member& operator[](std::size_t i) { return data()[i]; }
  const Member& operator[](std::size_t i) const { return data()[i]; }

  void reserve(std::size_t n) {
    if (n > capacity_) grow(n);
  }
  template <class... Args>
  Member& emplace_back(Args&&... args) {
    if (size_ == capacity_) grow(2 * capacity_);
    Member* m = new (data() + size_) Member(std::forward<Args>(args)...);
    ++size_;
    return *m;
  }
  void push_back(Member m) { emplace_back(std::move(m)); }

 private:
  Member* inline_slots() { return std::launder(reinterpret_cast<Member*>(inline_)); }
  const Member* inline_slots() const {
    return std::launder(reinterpret_cast<const Member*>(inline_));
  }
  Member* data() { return heap_ ? heap_ : inline_slots(); }
  const Member* data() const { return heap_ ? heap_ : inline_slots(); }

  void append_copies(const Member* first, const Member* last) {
    reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) emplace_back(*first);
  }
  // Moves the members to a heap block with room for `n` (n > capacity_).
  void grow(std::size_t n) {
    auto* block = static_cast<Member*>(::operator new(n * sizeof(Member)));
    Member* old = data();
    for (std::uint32_t i = 0; i < size_; ++i) {
      new (block + i) Member(std::move(old[i]));
      old[i].~Member();
    }
    if (heap_) ::operator delete(static_cast<void*>(heap_));
    heap_ = block;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  void clear_and_free() {
    Member* m = data();
    for (std::uint32_t i = 0; i < size_; ++i) m[i].~Member();
    if (heap_) ::operator delete(static_cast<void*>(heap_));
    heap_ = nullptr;
    size_ = 0;
    capacity_ = kInline;
  }
  // Takes other's members (this one is empty): its heap block, or its inline members one by one.
  void take(EventMembers& other) {
    if (other.heap_) {
      heap_ = other.heap_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.heap_ = nullptr;
      other.size_ = 0;
      other.capacity_ = kInline;
      return;
    }
    for (std::uint32_t i = 0; i < other.size_; ++i) {
      new (inline_slots() + i) Member(std::move(other.inline_slots()[i]));
      other.inline_slots()[i].~Member();
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  Member* heap_ = nullptr;  // null while the members fit inline
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
  alignas(Member) unsigned char inline_[kInline * sizeof(Member)];
};

}  // namespace lockstep
