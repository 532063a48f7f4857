// Spec-step identity: SPEC_STEP("algorithm-request-lock 3.4.1") marks the line that carries out
// that step. Ids are "<section or dfn anchor> <step number>" and must appear in the step index
// (spec-model/*/steps.json); tests/step_index_test.cpp checks both directions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lockstep::spec {

using StepCounts = std::map<std::string, std::uint64_t>;

// The ids of the steps carried out, in order. A tool that only asks which steps a short stretch of
// a run took (check: the unit that logged a divergence) keeps a trail, which costs a pointer per
// step where counting into StepCounts costs a string and a map node.
using StepTrail = std::vector<const char*>;

namespace detail {
// The sink and the trail of the run in progress on this thread. constinit: no initializer runs,
// so record_step's test of them inlines to two loads where a thread_local with one would go
// through a wrapper call (a search replays about 10^5 steps a run, most of them unrecorded).
struct StepTargets {
  StepCounts* sink = nullptr;
  StepTrail* trail = nullptr;
};
extern constinit thread_local StepTargets step_targets;
void record_step_in_targets(const char* id);
}  // namespace detail

// Counts go to the sink of the run in progress on this thread, and ids to its trail (none: not
// counted, not kept).
inline void record_step(const char* id) {
  const detail::StepTargets& targets = detail::step_targets;
  if (targets.sink || targets.trail) detail::record_step_in_targets(id);
}
void set_step_sink(StepCounts* sink);
StepCounts* step_sink();  // the one set now, or null
void set_step_trail(StepTrail* trail);
StepTrail* step_trail();  // the one set now, or null

// Points record_step at `target` (a sink or a trail) while it lives, then back at the previous.
template <class Target, Target* (*current)(), void (*set)(Target*)>
class ScopedStepTarget {
 public:
  explicit ScopedStepTarget(Target* target) : outer_(current()) { set(target); }
  ~ScopedStepTarget() { set(outer_); }
  ScopedStepTarget(const ScopedStepTarget&) = delete;
  ScopedStepTarget& operator=(const ScopedStepTarget&) = delete;

 private:
  Target* outer_;
};
using ScopedStepSink = ScopedStepTarget<StepCounts, step_sink, set_step_sink>;
using ScopedStepTrail = ScopedStepTarget<StepTrail, step_trail, set_step_trail>;

}  // namespace lockstep::spec

#define SPEC_STEP(id) ::lockstep::spec::record_step(id)
