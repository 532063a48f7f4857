// Generators of valid Web Locks traces, for the properties here and later for `lockstep gen`.
// Every generated trace passes the reader's validation and replays without a replay error: pending
// work is held by awaiting a `newPromise` that a later top-level `settle` always finds.
#pragma once

#include <rapidcheck.h>

#include "lockstep/trace.h"

namespace lockstep::gen {

// What a generated world may contain: a target that lacks a feature leaves it out.
struct Profile {
  bool locks = true;
  bool scheduling = true;
  bool workers = true;
  bool partitions = true;    // more than one storage partition
  bool opaque = true;        // agents with an opaque origin
  bool timers = true;        // setTimeout, AbortSignal.timeout, postTask delays, advanceTime
  bool origins = true;       // more than one (non-opaque) origin
  bool unload = true;        // unloading a window's document
  bool shared_loops = true;  // windows sharing one event loop
  // What a Web Locks implementation may not implement (gen --without; a target's "without"):
  bool shared = true;             // requests in mode "shared" (without: all exclusive)
  bool steal = true;              // the steal option
  bool if_available = true;       // the ifAvailable option
  bool lock_signal = true;        // a request's signal option
  bool query = true;              // navigator.locks.query()
  bool invalid_arguments = true;  // requests the spec rejects: names starting with '-', steal
                                  // with ifAvailable or with a signal
  int min_agents = 1;
  int max_agents = 6;
};

// Random worlds (1-3 partitions, 1-3 origins including opaque, up to six windows and workers,
// windows sharing an event loop) and scripts over every op, with nested callback bodies and
// invalid option combinations; sizes grow with RapidCheck's size.
rc::Gen<Trace> world_trace(Profile profile = {});

rc::Gen<Trace> web_locks_trace();
// Web Locks and Prioritized Task Scheduling together (TaskControllers, posted tasks that yield).
rc::Gen<Trace> mixed_trace();

}  // namespace lockstep::gen
