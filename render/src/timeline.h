// What the spec model did on a trace, tick by tick, as the data a report page draws.
#pragma once

#include <nlohmann/json.hpp>

#include "lockstep/engine.h"
#include "lockstep/error.h"
#include "lockstep/trace.h"

namespace lockstep::render {

using Json = nlohmann::ordered_json;

// A tick is what ran between two looks at the model: a top-level step's own task, or one unit
// (docs/interpretations.md I-1). After every tick the lock managers' state is read, and kept for
// each resource name whose holders or queue changed.
//
// The JSON has:
//   ticks: [{step, unit ("step" for a top-level step's task), priority (-1 unless a scheduler
//            unit), events: [first, end) into `events`}]
//   events: the run's log, each event with its tick
//   locks: [{manager: "<partition> <origin>", name, states: [{tick, held: [Entry], pending:
//   [Entry]}]}]
//          with Entry {request, agent, mode}; held in the held lock set's order, pending in
//          queue order
//   steps: hit counts of spec step ids (for --coverage)
struct Timeline {
  Json json;
  Log log;
};

// Replays the trace on the spec model as its `schedule` pins it (then the canonical policy).
// A trace the model rejects is an Error.
Result<Timeline> collect_timeline(const Trace& trace);

}  // namespace lockstep::render
