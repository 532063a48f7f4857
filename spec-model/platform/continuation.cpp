#include "continuation.h"

#include "errors.h"
#include "step.h"
#include "world.h"

namespace lockstep::spec {

void set_the_continuation_state_value(const void* key, std::shared_ptr<void> value,
                                      EventLoop& event_loop) {
  // 1. Start a continuation state if the event loop has none.
  SPEC_STEP("set-the-continuation-state-value 1");
  if (!event_loop.current_continuation_state)
    event_loop.current_continuation_state = std::make_shared<ContinuationState>();
  SPEC_STEP("set-the-continuation-state-value 2");
  ContinuationState& continuation_state = *event_loop.current_continuation_state;
  // 3. Each key is set once per continuation state.
  SPEC_STEP("set-the-continuation-state-value 3");
  for (const auto& [k, v] : continuation_state.state_map)
    spec_assert(k != key, "the continuation state key is new");
  SPEC_STEP("set-the-continuation-state-value 4");
  continuation_state.state_map.emplace_back(key, std::move(value));
}

std::shared_ptr<void> get_the_continuation_state_value(const void* key, EventLoop& event_loop) {
  SPEC_STEP("get-the-continuation-state-value 1");
  const auto& continuation_state = event_loop.current_continuation_state;
  // 2. The value for the key, or null.
  SPEC_STEP("get-the-continuation-state-value 2");
  if (continuation_state)
    for (const auto& [k, v] : continuation_state->state_map)
      if (k == key) return v;
  return nullptr;
}

}  // namespace lockstep::spec
