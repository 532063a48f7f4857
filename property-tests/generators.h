// Generators of valid Web Locks traces, for the properties here and later for `lockstep gen`.
// Every generated trace passes the reader's validation and replays without a replay error: pending
// work is held by awaiting a `newPromise` that a later top-level `settle` always finds.
#pragma once

#include <rapidcheck.h>

#include "lockstep/trace.h"

namespace lockstep::gen {

rc::Gen<Trace> web_locks_trace();
// Web Locks and Prioritized Task Scheduling together (TaskControllers, posted tasks that yield).
rc::Gen<Trace> mixed_trace();

}  // namespace lockstep::gen
