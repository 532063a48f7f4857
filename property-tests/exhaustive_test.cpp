// Every trace of a small exhaustive bound (exhaustive.h), on both engines: the impl engine must
// give the spec engine's log, choices or error on each, and every candidate must replay on the
// model. Unlike the properties' random worlds, nothing within the bound is left out, so an
// optimization of the impl engine that breaks a rare case within it cannot pass.
#include "exhaustive.h"

#include <gtest/gtest.h>

#include <string>

#include "engines.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

struct Tally {
  std::uint64_t traces = 0, replayed = 0;
};

Tally agree_on_every(
    std::uint64_t (*enumerate)(const gen::ExhaustiveBound&,
                               const std::function<bool(std::uint64_t, const std::string&)>&),
    const gen::ExhaustiveBound& bound) {
  Tally tally;
  const auto spec = make_spec_engine();
  enumerate(bound, [&](std::uint64_t index, const std::string& json) {
    ++tally.traces;
    auto trace = read_trace(json);
    EXPECT_TRUE(trace.ok()) << "candidate " << index << ": " << trace.error().to_string();
    if (!trace) return false;
    tally.replayed += spec->run(trace.value(), {}).ok();
    // Under every combination of readings that can change the replay (I-24, I-25, I-29).
    for (const Readings& readings : trace->readings_that_matter()) {
      trace->readings = readings;
      const std::string difference = disagreement(trace.value());
      EXPECT_EQ(difference, "") << "candidate " << index << " {" << readings_text(readings)
                                << "}:\n"
                                << json;
      if (!difference.empty()) return false;  // the first disagreement is enough to look at
    }
    return true;
  });
  return tally;
}

TEST(Exhaustive, BothEnginesAgreeOnEverySchedulingTraceOfTwoWindowsTwoSignalsThreeSteps) {
  const Tally tally = agree_on_every(gen::enumerate_scheduling_traces, {2, 2, 3});
  EXPECT_GT(tally.traces, 1'000u);
  EXPECT_EQ(tally.replayed, tally.traces);  // every candidate is a trace the model replays
}

TEST(Exhaustive, BothEnginesAgreeOnEverySchedulingTraceOfOneWindowTwoSignalsFourSteps) {
  const Tally tally = agree_on_every(gen::enumerate_scheduling_traces, {1, 2, 4});
  EXPECT_GT(tally.traces, 10'000u);
  EXPECT_EQ(tally.replayed, tally.traces);
}

TEST(Exhaustive, BothEnginesAgreeOnEveryLockTraceOfTwoWindowsTwoNamesThreeSteps) {
  const Tally tally = agree_on_every(gen::enumerate_lock_traces, {2, 2, 3});
  EXPECT_GT(tally.replayed, 0u);
  EXPECT_LE(tally.replayed, tally.traces);  // a settle before its grant does not replay
}

}  // namespace
}  // namespace lockstep
