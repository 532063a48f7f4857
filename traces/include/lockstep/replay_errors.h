// The replay errors a trace can cause in any engine, worded once so that every engine reports the
// same problem with the same message (the engines' outcomes are compared, failures included).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lockstep/error.h"
#include "lockstep/trace.h"

namespace lockstep {

// A step names `id` (a `what`: promise, signal, ...) that the replay has not made yet: the body
// that makes it (`definition`, or null when no action makes it) has not run.
Error not_created_yet(const Action& user, std::string_view id, const std::string& what,
                      const Action* definition);

// The schedule's choice number `index` cannot be followed: it names nothing runnable, or (for a
// bare "locks") more than one lock task queue. `runnable` lists the choices there were, in any
// order; the message lists them in name order.
Error bad_pin(std::size_t index, const std::string& pin, bool ambiguous,
              std::vector<std::string> runnable);

}  // namespace lockstep
