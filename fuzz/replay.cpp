// Fuzz target replay: a trace that reads is replayed on the spec model and on the impl engine, and
// both must give the same outcome: the same log and the same choices taken, or the same failure
// (the trace's fault, with the same error). A trace with pinned choices is replayed twice: as it
// says, then with the pins dropped (the canonical policy throughout). An internal failure of
// either engine is a finding even when both fail alike.
#include "fuzz_support.h"
#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/shrink.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace {

using namespace lockstep;

// Larger traces replay in more than a few milliseconds on the model; the fuzzer gains more from
// many small ones (the corpus's largest has fewer actions).
constexpr std::size_t kMaxActions = 64;

std::string outcome_text(const RunOutcome& outcome) {
  return outcome.ok() ? "ran" : "failed: " + outcome.failure().error.to_string();
}

void replay_on_both(const Trace& trace, const char* schedule) {
  const RunOutcome spec = make_spec_engine()->run(trace, {});
  const RunOutcome impl = make_impl_engine()->run(trace, {});
  fuzz::require_no_internal_failure("replay", "spec", spec);
  fuzz::require_no_internal_failure("replay", "impl", impl);
  const std::string where = std::string(" (") + schedule + ")";
  if (spec.ok() != impl.ok() ||
      (!spec.ok() && spec.failure().error.to_string() != impl.failure().error.to_string()))
    fuzz::finding("replay", "spec " + outcome_text(spec) + ", impl " + outcome_text(impl) + where);
  if (!spec.ok()) return;
  if (auto diff = first_difference(spec.result().log, impl.result().log))
    fuzz::finding("replay", "the logs differ, spec expected, impl got: " + *diff + where);
  if (spec.result().choices != impl.result().choices)
    fuzz::finding("replay", "the same log, but the choices taken differ" + where);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Result<Trace> trace = read_trace(fuzz::text_of(data, size));
  if (!trace || check::count_calls(trace.value()) > kMaxActions) return 0;
  replay_on_both(trace.value(), "the trace's schedule");
  if (!trace->schedule.empty()) {
    trace->schedule.clear();
    replay_on_both(trace.value(), "pins dropped");
  }
  return 0;
}
