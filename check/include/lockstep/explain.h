// Why a divergence departs, in words (check/README.md, "Why"): the observed event paired with
// the closest event the model logged there instead, the rule of the spec that tells them apart,
// and the spec steps that state it, the deciding one first.
#pragma once

#include <string>
#include <vector>

#include "lockstep/check.h"
#include "lockstep/trace.h"

namespace lockstep::check {

struct Why {
  std::string text;                   // a sentence or two; empty when nothing is known to say
  std::vector<std::string> rests_on;  // spec step ids ("algorithm-process-request 2.14.2")
};

Why divergence_why(const Trace& trace, const Divergence& divergence);

// A spec step's words and where it is ("the lock's mode (web-locks#dom-lock-mode 1)"), from the
// specs' step indexes; the id alone when they lack it.
std::string step_words(const std::string& id);
// The spec (the step index's "spec": "web-locks", "scheduling") a step id belongs to; empty when
// none has it.
std::string step_spec(const std::string& id);

}  // namespace lockstep::check
