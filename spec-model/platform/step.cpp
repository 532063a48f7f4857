#include "step.h"

namespace lockstep::spec {
namespace {
struct StepTargets {
  StepCounts* sink = nullptr;
  StepTrail* trail = nullptr;
};
thread_local StepTargets g_targets;

[[gnu::noinline]] void record_step_in_targets(const char* id) {
  if (g_targets.sink) ++(*g_targets.sink)[id];
  if (g_targets.trail) g_targets.trail->push_back(id);
}
}  // namespace

void record_step(const char* id) {
  if (g_targets.sink || g_targets.trail) [[unlikely]]
    record_step_in_targets(id);
}

void set_step_trail(StepTrail* trail) {
  g_targets.trail = trail;
}

StepTrail* step_trail() {
  return g_targets.trail;
}

void set_step_sink(StepCounts* sink) {
  g_targets.sink = sink;
}

StepCounts* step_sink() {
  return g_targets.sink;
}

}  // namespace lockstep::spec
