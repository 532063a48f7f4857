// Properties over generated Web Locks traces. The full differential and invariant suite comes
// with impl/ (issue 5); these hold the spec model to what needs no second engine.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators.h"
#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

RunOutcome replay(const Trace& trace) {
  return make_spec_engine()->run(trace, {});
}

RC_GTEST_PROP(Traces, WriteThenReadGivesTheSameTrace, ()) {
  const Trace trace = *gen::mixed_trace();
  const std::string written = write_trace(trace);
  auto back = read_trace(written);
  RC_ASSERT(back.ok());
  RC_ASSERT(write_trace(back.value()) == written);
}

RC_GTEST_PROP(Traces, GeneratedTracesReplayDeterministically, ()) {
  const Trace trace = *gen::mixed_trace();
  auto valid = read_trace(write_trace(trace));
  RC_ASSERT(valid.ok());
  RunOutcome first = replay(valid.value());
  if (!first.ok()) RC_FAIL(first.failure().error.to_string() + "\n" + write_trace(trace));
  RunOutcome second = replay(valid.value());
  RC_ASSERT(second.ok());
  RC_ASSERT(!first_difference(first.result().log, second.result().log).has_value());
  // The log round-trips through its writer too.
  auto log = read_log(write_log(first.result().log));
  RC_ASSERT(log.ok());
  RC_ASSERT(!first_difference(first.result().log, log.value()).has_value());
}

// Every query snapshot shows a lawful state: per name, one exclusive holder alone, or shared ones.
RC_GTEST_PROP(Traces, SnapshotsNeverShowConflictingHolders, ()) {
  const Trace trace = *gen::web_locks_trace();
  RunOutcome outcome = replay(trace);
  RC_ASSERT(outcome.ok());
  for (const Event& e : outcome.result().log.events) {
    const Value* value = e.member("value");
    if (e.event != "settled" || !value || !value->member("held")) continue;
    std::map<std::string, std::pair<int, int>> per_name;  // exclusive, shared
    for (const Value& info : value->member("held")->items()) {
      auto& [exclusive, shared] = per_name[info.member("name")->as_string()];
      (info.member("mode")->as_string() == "exclusive" ? exclusive : shared)++;
    }
    for (const auto& [name, counts] : per_name) {
      RC_ASSERT(counts.first <= 1);
      RC_ASSERT(counts.first == 0 || counts.second == 0);
    }
  }
}

// Every request ends at most once: one `settled` event per request id at most, and a `callback`
// event, when there is one, comes before it.
RC_GTEST_PROP(Traces, EveryRequestSettlesAtMostOnceAfterItsCallback, ()) {
  const Trace trace = *gen::mixed_trace();
  RunOutcome outcome = replay(trace);
  RC_ASSERT(outcome.ok());
  std::map<std::string, int> settled, called;
  for (const Event& e : outcome.result().log.events) {
    if (e.event == "callback" || e.event == "task") {
      const std::string id = e.member(e.event == "task" ? "task" : "request")->as_string();
      RC_ASSERT(settled[id] == 0);
      RC_ASSERT(++called[id] == 1);
    }
    if (e.event == "settled") RC_ASSERT(++settled[e.member("target")->as_string()] == 1);
  }
}

// Differential: the impl engine gives the same outcome as the spec engine (log and choices taken).
RC_GTEST_PROP(Traces, TheImplEngineAgreesWithTheSpecEngine, ()) {
  const Trace trace = *gen::mixed_trace();
  RunOutcome spec = replay(trace);
  RunOutcome impl = make_impl_engine()->run(trace, {});
  RC_ASSERT(spec.ok());
  if (!impl.ok()) RC_FAIL(impl.failure().error.to_string() + "\n" + write_trace(trace));
  if (auto diff = first_difference(spec.result().log, impl.result().log))
    RC_FAIL(*diff + "\n" + write_trace(trace));
  RC_ASSERT(spec.result().choices == impl.result().choices);
}

}  // namespace
}  // namespace lockstep
