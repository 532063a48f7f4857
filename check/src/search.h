// The search of one world (search.cpp), as check() and the split into parts (split.cpp) call it.
#pragma once

#include "deadline.h"
#include "event_match.h"
#include "lockstep/check.h"

namespace lockstep::check {

// A log is allowed if a schedule explains it under some combination of readings (I-24, I-25, I-29).
// Otherwise the verdict is unknown if any reading's search ran out of budget, and the divergence is
// the one that got furthest (the first reading's on a tie). Options::split is not looked at. The
// observed clientIds are read in `client_ids`' form (client_id_form of the whole log, I-23).
Report search_every_reading(const Trace& trace, const Log& observed, const Options& options,
                            ClientIdForm client_ids, const Deadline& deadline);

}  // namespace lockstep::check
