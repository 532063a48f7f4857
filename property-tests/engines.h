// Running a trace on both engines and saying how they differ: shared by the property tests and
// tests/engines_agree_test.cpp (steered.h does the same for engines steered by a chooser).
#pragma once

#include <string>

#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"

namespace lockstep {

// Empty when both engines give the same outcome (log and choices taken, or the same failure);
// otherwise what differs.
inline std::string disagreement(const Trace& trace) {
  RunOutcome spec = make_spec_engine()->run(trace, {});
  RunOutcome impl = make_impl_engine()->run(trace, {});
  if (spec.ok() != impl.ok())
    return std::string("spec ") +
           (spec.ok() ? "ran" : "failed: " + spec.failure().error.to_string()) + ", impl " +
           (impl.ok() ? "ran" : "failed: " + impl.failure().error.to_string());
  if (!spec.ok()) {
    const RunFailure &s = spec.failure(), &i = impl.failure();
    if (s.kind != i.kind || s.error.to_string() != i.error.to_string())
      return "spec failed with " + s.error.to_string() + ", impl with " + i.error.to_string();
    return {};
  }
  if (auto diff = first_difference(spec.result().log, impl.result().log)) return *diff;
  if (spec.result().choices != impl.result().choices) return "the choices taken differ";
  return {};
}

}  // namespace lockstep
