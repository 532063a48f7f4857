// Spec-step identity: SPEC_STEP("algorithm-request-lock 3.4.1") marks the line that carries out
// that step. Ids are "<section or dfn anchor> <step number>" and must appear in the step index
// (spec-model/*/steps.json); tests/step_index_test.cpp checks both directions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace lockstep::spec {

using StepCounts = std::map<std::string, std::uint64_t>;

// Counts go to the sink of the run in progress on this thread (none: not counted).
void record_step(const char* id);
void set_step_sink(StepCounts* sink);
StepCounts* step_sink();  // the one set now, or null

// Counts into `sink` while it lives, then gives the previous sink back.
class ScopedStepSink {
 public:
  explicit ScopedStepSink(StepCounts* sink) : outer_(step_sink()) { set_step_sink(sink); }
  ~ScopedStepSink() { set_step_sink(outer_); }
  ScopedStepSink(const ScopedStepSink&) = delete;
  ScopedStepSink& operator=(const ScopedStepSink&) = delete;
  StepCounts* outer() const { return outer_; }

 private:
  StepCounts* outer_;
};

}  // namespace lockstep::spec

#define SPEC_STEP(id) ::lockstep::spec::record_step(id)
