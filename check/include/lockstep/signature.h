// A divergence's signature: what kind of failure a "not allowed" log shows, without its ids,
// names and values, so that two logs departing from the model in the same way share it. `shrink
// --target` keeps a candidate only if its signature is the original's, and `fuzz --target` groups
// its failures by it (check/README.md, "Signatures").
#pragma once

#include <string>
#include <string_view>

#include "lockstep/check.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::check {

// The action of the trace that makes `id` (a request, a query, a promise, ...), or none.
const Action* action_making(const Trace& trace, std::string_view id);

// One event as its kind, the op behind what it names and its outcome: "settled request rejected
// AbortError", "callback shared", "callback null lock", "threw setPriority NotAllowedError".
// `trace` maps the ids an event names to the ops that made them.
std::string event_kind(const Trace& trace, const Event& event);

// "<the observed event's kind> | instead: <the kinds the model logged there, sorted,
// ' / '-separated> | model's step <earlier/same/later: the model's events' steps against the
// observed one's>"; "the agent's events end | instead: <kinds>" when the agent's observed events
// stop where the model logs more; "<kind> | instead: nothing more" when the model logs nothing
// there (" (the model could stop)" when some run stops). scripts/bucket_failures.py groups a
// campaign's failures by it.
std::string divergence_signature(const Trace& trace, const Divergence& divergence);

}  // namespace lockstep::check
