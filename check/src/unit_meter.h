// What a unit did (UnitEffect), measured the one way that both check's search and the property
// that tests its reduction use (property-tests/reduction_property.cpp): the step counts of the
// lock task queues the unit's loop can reach (Independence::lock_queues_reached_by), read as the
// unit begins and again as it ends. Both engines call the search as a unit ends, before a step
// that follows can enqueue lock steps of its own, so a unit gets the same effect in every order.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "independence.h"

namespace lockstep::check {

class UnitMeter {
 public:
  // The engine's count of steps given to a partition's lock task queue, as a pointer that stays
  // valid for the run (ReplayWorld::lock_steps_enqueued); null while the queue does not exist.
  using StepCounter = std::function<const std::uint64_t*(const std::string& partition)>;

  UnitMeter(const Independence& independence, StepCounter counter);

  // A unit begins: the counts of the queues it can reach are read now.
  void began(const std::string& unit);
  // Whether a unit has begun and not yet ended.
  bool running() const { return running_; }
  // The unit that began last (still named after it ended).
  const std::string& unit() const { return unit_; }
  // The running unit ends: the queues whose counts moved since it began. Only while running().
  UnitEffect ended();

 private:
  std::uint64_t steps_given(const std::pair<std::uint64_t, std::string>& queue);

  const Independence& independence_;
  StepCounter counter_;
  std::array<const std::uint64_t*, 64> counters_{};  // by the queue's bit, found once
  bool running_ = false;
  std::string unit_;
  const Independence::LockQueues* queues_ = nullptr;
  std::vector<std::uint64_t> steps_before_;
};

}  // namespace lockstep::check
