// The HTML patches of Prioritized Task Scheduling (scheduling#sec-patches-html): an event loop's
// current continuation state, and setting and getting values in it.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace lockstep::spec {

class EventLoop;

// scheduling#continuation-state: a state map. Keys are unique per Scheduler; values are scheduling
// states, kept type-erased here because HTML does not know what the scheduler stores (I-21).
struct ContinuationState {
  std::vector<std::pair<const void*, std::shared_ptr<void>>> state_map;
  // Infra "clone": a new map with the same entries (values are shared, the clone is shallow).
  std::shared_ptr<ContinuationState> clone() const {
    return std::make_shared<ContinuationState>(*this);
  }
};

// scheduling#set-the-continuation-state-value
void set_the_continuation_state_value(const void* key, std::shared_ptr<void> value,
                                      EventLoop& event_loop);
// scheduling#get-the-continuation-state-value (null when absent)
std::shared_ptr<void> get_the_continuation_state_value(const void* key, EventLoop& event_loop);

}  // namespace lockstep::spec
