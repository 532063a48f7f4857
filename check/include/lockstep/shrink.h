// Delta debugging of a failing trace (`lockstep shrink`): removes what the failure does not need
// (top-level steps, whole agents, actions inside callbacks and bodies, distinct resource names)
// while the trace stays valid and still fails. The failure test is the caller's: `lockstep shrink`
// runs an external implementation and asks `check` whether its log is allowed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "lockstep/trace.h"

namespace lockstep::check {

struct ShrinkStats {
  std::uint64_t tests = 0;  // times the failure test ran
  std::size_t steps_before = 0, steps_after = 0;
  std::size_t calls_before = 0, calls_after = 0;  // actions anywhere in the trace
  std::size_t agents_before = 0, agents_after = 0;
};

// Number of actions in a trace, nested bodies included: the "calls" a minimal trace is judged by.
std::size_t count_calls(const Trace& trace);

// `fails` gets only valid traces (each candidate goes through the reader first). Returns a trace
// on which `fails` is still true and from which no single removal keeps it true (1-minimal with
// respect to the reductions above), or the original when nothing could be removed.
Trace shrink(const Trace& failing, const std::function<bool(const Trace&)>& fails,
             ShrinkStats* stats = nullptr);

}  // namespace lockstep::check
