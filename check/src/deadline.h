// Options::max_seconds as the searches of one check share it (search.cpp, split.cpp).
#pragma once

#include <chrono>

namespace lockstep::check {

// Options::max_seconds from the start of one check, shared by all its searches. Kept as seconds
// since the start rather than as a time point: a huge budget would overflow the clock's ticks.
class Deadline {
 public:
  explicit Deadline(double seconds) : seconds_(seconds) {}
  bool passed() const {
    if (!(seconds_ > 0)) return false;  // 0, negative or NaN: no limit
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start_;
    return spent.count() >= seconds_;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double seconds_;
};

}  // namespace lockstep::check
