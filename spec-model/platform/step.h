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

// Counts go to the sink of the run in progress on this thread, and ids to its trail (none: not
// counted, not kept). Out of line, but a leaf that returns at once when neither is set (a search
// replays about 10^5 steps a run, most of them unrecorded); the recording is a call further.
void record_step(const char* id);
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
