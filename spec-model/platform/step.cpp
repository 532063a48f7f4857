#include "step.h"

namespace lockstep::spec {
namespace {
thread_local StepCounts* g_sink = nullptr;
thread_local StepTrail* g_trail = nullptr;
}  // namespace

void record_step(const char* id) {
  if (g_sink) ++(*g_sink)[id];
  if (g_trail) g_trail->push_back(id);
}

void set_step_trail(StepTrail* trail) {
  g_trail = trail;
}

StepTrail* step_trail() {
  return g_trail;
}

void set_step_sink(StepCounts* sink) {
  g_sink = sink;
}

StepCounts* step_sink() {
  return g_sink;
}

}  // namespace lockstep::spec
