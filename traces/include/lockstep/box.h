// A member of an action that only some ops have (a callback, options, a value), kept on the heap
// so that the actions without it pay one pointer instead of its whole size. Absent until set, as a
// std::optional; reading an absent one reads T's default (an absent reason reads undefined, absent
// postTask options read as no options), and writing through it makes it present.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace lockstep {

template <class T>
class Box {
 public:
  Box() noexcept = default;
  Box(std::nullopt_t) noexcept {}                                    // NOLINT
  Box(const T& value) : value_(std::make_unique<T>(value)) {}        // NOLINT
  Box(T&& value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Box(const Box& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  Box& operator=(std::nullopt_t) noexcept {
    value_.reset();
    return *this;
  }
  Box& operator=(const T& value) {
    value_ = std::make_unique<T>(value);
    return *this;
  }
  Box& operator=(T&& value) {
    value_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  bool has_value() const noexcept { return value_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  void reset() noexcept { value_.reset(); }
  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }

  const T& operator*() const noexcept { return value_ ? *value_ : absent(); }
  const T* operator->() const noexcept { return &**this; }
  T& operator*() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  T* operator->() { return &**this; }

 private:
  static const T& absent() noexcept {
    static const T kDefault{};
    return kDefault;
  }
  std::unique_ptr<T> value_;
};

}  // namespace lockstep
