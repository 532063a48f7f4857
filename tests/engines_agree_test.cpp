// The impl engine against the spec engine: the same outcome (log, choices taken, or the same
// error) on every corpus trace, unpinned and under pinned schedules found by random walks over the
// choice points the spec engine reports; and, steered by a chooser (check's search), the same
// choice points one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "engines.h"
#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "steered.h"

namespace lockstep {
namespace {

std::vector<std::filesystem::path> corpus_traces() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(LOCKSTEP_SOURCE_DIR "/traces/corpus"))
    if (entry.path().string().ends_with(".trace.json")) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(EnginesAgree, OnEveryCorpusTraceUnpinned) {
  const auto traces = corpus_traces();
  ASSERT_GT(traces.size(), 50u);
  for (const auto& path : traces) {
    auto trace = read_trace_file(path.string());
    ASSERT_TRUE(trace.ok()) << path << ": " << trace.error().to_string();
    EXPECT_EQ(disagreement(trace.value()), "") << path;
  }
}

TEST(EnginesAgree, OnEveryCorpusTraceUnderPinnedSchedules) {
  std::mt19937 random(20261123);
  std::size_t schedules = 0, valid = 0;
  for (const auto& path : corpus_traces()) {
    auto read = read_trace_file(path.string());
    ASSERT_TRUE(read.ok());
    Trace trace = read.value();
    RunOutcome unpinned = make_spec_engine()->run(trace, {});
    ASSERT_TRUE(unpinned.ok()) << path;
    // What a pin can say here: any unit name seen, a whole event loop, any lock task queue.
    std::set<std::string> names{"locks", "settled", "idle"};  // "settled", "idle": I-27
    for (const std::string& c : unpinned.result().choices) {
      names.insert(c);
      if (c.rfind("loop:", 0) == 0) names.insert(c.substr(0, c.find('/')));
    }
    const std::vector<std::string> vocabulary(names.begin(), names.end());
    const std::size_t depth = std::min<std::size_t>(unpinned.result().choices.size(), 30);
    for (int walk = 0; walk < 16; ++walk) {
      std::vector<std::string> pins;
      for (std::size_t k = 0; k < depth; ++k) {
        bool extended = false;
        for (int attempt = 0; attempt < 3 && !extended; ++attempt) {
          trace.schedule = pins;
          trace.schedule.push_back(vocabulary[random() % vocabulary.size()]);
          ++schedules;
          EXPECT_EQ(disagreement(trace), "")
              << path << " with schedule of " << trace.schedule.size();
          if (make_spec_engine()->run(trace, {}).ok()) {
            pins = trace.schedule;
            extended = true;
            ++valid;
          }
        }
        if (!extended) break;
      }
    }
  }
  // The walks must reach real alternative schedules, not only refused ones.
  EXPECT_GT(valid, 300u) << schedules << " schedules tried";
}

std::size_t canonically(std::size_t, const ChoicePoint& point) {
  return point.canonical;
}

// Steered through every corpus trace by the same decisions, the engines offer the same choice
// points one by one (steered_disagreement, engines.h).
TEST(EnginesAgree, SteeredByAChooserTheyOfferTheSameChoicePoints) {
  std::size_t points = 0, early = 0, idle_only = 0;
  for (const auto& path : corpus_traces()) {
    auto read = read_trace_file(path.string());
    ASSERT_TRUE(read.ok());
    Trace trace = read.value();
    trace.schedule.clear();  // the chooser decides every point
    for (std::uint64_t seed = 0; seed < 16; ++seed) {
      const ChoicePicker pick = [seed](std::size_t k, const ChoicePoint& point) {
        return seeded_pick(seed, k, point);
      };
      const Steered model = steered_on_the_model(trace, pick);
      EXPECT_EQ(steered_disagreement(model, steered_on_impl(trace, pick)), "")
          << path << " seed " << seed;
      for (const ChoicePoint& point : model.points) {
        early += point.before_step;
        idle_only += point.idle_only;
      }
      points += model.points.size();
    }
  }
  // The walks must meet every kind of point, many times.
  EXPECT_GT(points, 400u);
  EXPECT_GT(early, 100u);
  EXPECT_GT(idle_only, 0u);
  std::cout << points << " choice points, " << early << " before a step, " << idle_only
            << " where only idle periods could start\n";
}

// A window whose document is no longer fully active queues a timer task that can never run: the
// model keeps it in a "timer" queue it makes there and then, and the impl engine drops it but
// makes the queue too. The other window then uses "web-locks" first and "timer" after; when both
// its tasks are runnable, the loop's queues are offered in the same order ("timer" first).
TEST(EnginesAgree, AnUnloadedWindowsFirstTaskOfASourceOrdersTheLoopsQueues) {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1, "agents": [
    {"id": "A", "kind": "window", "origin": "https://a.test", "eventLoop": "L"},
    {"id": "B", "kind": "window", "origin": "https://a.test", "eventLoop": "L"}],
   "steps": [
    {"agent": "A", "op": "setTimeout", "id": "ta", "ms": 10, "body": [{"op": "mark", "label": "a"}]},
    {"agent": "A", "op": "unload"},
    {"op": "advanceTime", "ms": 10},
    {"agent": "B", "op": "request", "id": "r1", "name": "x", "callback": {"result": {"return": 1}}},
    {"agent": "B", "op": "setTimeout", "id": "tb", "ms": 5, "body": [{"op": "mark", "label": "b"}]},
    {"agent": "B", "op": "request", "id": "r2", "name": "y", "callback": {"result": {"return": 2}},
     "settle": false},
    {"op": "advanceTime", "ms": 5}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  const Steered model = steered_on_the_model(trace.value(), canonically);
  const auto both = [](const Steered& s) {
    return std::any_of(s.points.begin(), s.points.end(), [](const ChoicePoint& p) {
      return std::count(p.names.begin(), p.names.end(), "loop:L/timer") +
                 std::count(p.names.begin(), p.names.end(), "loop:L/web-locks") ==
             2;
    });
  };
  ASSERT_TRUE(both(model)) << "no point offers both of B's tasks";
  EXPECT_EQ(steered_disagreement(model, steered_on_impl(trace.value(), canonically)), "");
}

// A pinned "idle" (I-27) that is the schedule's last pin leaves the rest of the settling to the
// canonical choice, as any other last pin does; the impl engine once asked a chooser it did not
// have there (found by `lockstep fuzz` on EnginesAgreeUnderRandomSchedules, seeds 700-1160).
TEST(EnginesAgree, AfterALastPinnedIdleTheSettlingGoesOnCanonically) {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1, "agents": [
    {"id": "A", "kind": "window", "origin": "https://a.test"},
    {"id": "B", "kind": "window", "origin": "https://a.test"}],
   "steps": [
    {"agent": "B", "op": "requestIdleCallback", "id": "i0", "callback": {"result": {"return": 0}},
     "settle": false},
    {"op": "advanceTime", "ms": 1},
    {"agent": "A", "op": "requestIdleCallback", "id": "i1", "callback": {"body": [
      {"op": "queueMicrotask", "body": [{"op": "postTask", "id": "t2",
        "options": {"priority": "user-blocking"}, "callback": {"result": {"return": 0}}}]},
      {"op": "yield", "id": "y3"}], "result": {"return": 0}}}],
   "schedule": ["idle"]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  const RunOutcome model = make_spec_engine()->run(trace.value(), {});
  ASSERT_TRUE(model.ok()) << model.failure().error.to_string();
  // The pin is taken where only B's idle period could start; later points have several units.
  ASSERT_GT(model.result().choices.size(), 1u);
  EXPECT_EQ(model.result().choices.front(), "idle");
  EXPECT_EQ(disagreement(trace.value()), "");
}

}  // namespace
}  // namespace lockstep
