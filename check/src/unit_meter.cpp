#include "unit_meter.h"

#include <bit>
#include <utility>

namespace lockstep::check {

UnitMeter::UnitMeter(const Independence& independence, StepCounter counter)
    : independence_(independence), counter_(std::move(counter)) {}

std::uint64_t UnitMeter::steps_given(const std::pair<std::uint64_t, std::string>& queue) {
  const std::uint64_t*& counter = counters_[std::countr_zero(queue.first)];
  if (!counter) counter = counter_(queue.second);  // a queue made later is looked up again
  return counter ? *counter : 0;
}

void UnitMeter::began(const std::string& unit) {
  running_ = true;
  unit_ = unit;
  queues_ = &independence_.lock_queues_reached_by(unit);
  steps_before_.resize(queues_->size());
  for (std::size_t k = 0; k < queues_->size(); ++k) steps_before_[k] = steps_given((*queues_)[k]);
}

UnitEffect UnitMeter::ended() {
  running_ = false;
  // Unknown for a unit that reaches no queue by bit (a lock queue's, or a loop's in a trace with
  // over 64 partitions): Independence::dependent then takes it as touching everything.
  UnitEffect did{!queues_->empty(), 0};
  for (std::size_t k = 0; k < queues_->size(); ++k)
    if (steps_given((*queues_)[k]) != steps_before_[k]) did.lock_queues |= (*queues_)[k].first;
  return did;
}

}  // namespace lockstep::check
