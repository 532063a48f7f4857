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

}  // namespace lockstep::spec

#define SPEC_STEP(id) ::lockstep::spec::record_step(id)
