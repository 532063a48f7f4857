// The search of a world split into the parts that run independently (check.h, Options::split;
// check/README.md, "Parts").
#pragma once

#include <string>
#include <vector>

#include "deadline.h"
#include "event_match.h"
#include "lockstep/check.h"

namespace lockstep::check {

// Whether check() may split a world (into independent_parts, if there are two or more): not with
// Split::Never, only under the normative profile (under `intent` the suggested strategy orders
// units by world-wide ages, I-1), and not with `partial`.
bool may_split(const Options& options);

// Each part's log searched on its own trace (part_trace). Not allowed if one part's log is not:
// the model's every run of the world, its other parts' units left out, is a run of the part's
// trace with the same events for the part's agents. Allowed if every part's is and the parts'
// schedules merge into one under which the model replays the whole log (so that verdict never
// rests on that argument). Otherwise unknown. The totals count the parts' searches and the
// merge's replays. Every part's clientIds are read in the whole log's form (`client_ids`, I-23).
Report search_by_parts(const Trace& trace, const Log& observed, const Options& options,
                       ClientIdForm client_ids, const Deadline& deadline,
                       const std::vector<std::vector<std::string>>& parts);

// Adds `from`'s replays, choice points, reused probes and states already tried to `to`'s.
void add_totals(Report& to, const Report& from);

}  // namespace lockstep::check
