#include "step.h"

namespace lockstep::spec {

namespace detail {
constinit thread_local StepTargets step_targets;

void record_step_in_targets(const char* id) {
  if (step_targets.sink) ++(*step_targets.sink)[id];
  if (step_targets.trail) step_targets.trail->push_back(id);
}
}  // namespace detail

void set_step_trail(StepTrail* trail) {
  detail::step_targets.trail = trail;
}

StepTrail* step_trail() {
  return detail::step_targets.trail;
}

void set_step_sink(StepCounts* sink) {
  detail::step_targets.sink = sink;
}

StepCounts* step_sink() {
  return detail::step_targets.sink;
}

}  // namespace lockstep::spec
