// Where a failing property leaves its trace: a file `lockstep run` replays, so that a shrunk
// counterexample outlives the test run (see README.md).
#pragma once

#include <string>

#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep {

// Writes `trace` to $LOCKSTEP_COUNTEREXAMPLES (default: ./counterexamples)/<property>.trace.json
// and returns a message with `why`, the path, and the command that replays it. RapidCheck calls a
// property again for every shrinking step, so the file left at the end is the smallest failure.
std::string counterexample(const std::string& property, const Trace& trace, const std::string& why);
// The same, for a property about `lockstep check`: the observed log it judged is written beside the
// trace (<property>.log.json), and the message gives the command that checks it again.
std::string counterexample(const std::string& property, const Trace& trace, const Log& observed,
                           const std::string& why);

}  // namespace lockstep
