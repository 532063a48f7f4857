#include "step.h"

namespace lockstep::spec {
namespace {
thread_local StepCounts* g_sink = nullptr;
}

void record_step(const char* id) {
  if (g_sink) ++(*g_sink)[id];
}

void set_step_sink(StepCounts* sink) {
  g_sink = sink;
}

StepCounts* step_sink() {
  return g_sink;
}

}  // namespace lockstep::spec
