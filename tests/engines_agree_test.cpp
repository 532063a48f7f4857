// The impl engine against the spec engine: the same outcome (log, choices taken, or the same
// error) on every corpus trace, unpinned and under pinned schedules found by random walks over the
// choice points the spec engine reports; and, steered by a chooser (check's search), the same
// choice points one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <set>

#include "engines.h"
#include "lockstep/impl_engine.h"
#include "lockstep/impl_replay.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "runner/trace_runner.h"

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
    std::set<std::string> names{"locks", "settled"};  // "settled": I-27
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

// Every choice point a chooser is offered, and the log, when both engines are steered the same
// way: at the k-th point, alternative `pick(k, point)`.
struct Steered {
  std::vector<ChoicePoint> points;
  Log log;
  std::vector<std::string> choices;
};

std::size_t pick(std::uint64_t seed, std::size_t k, const ChoicePoint& point) {
  std::uint64_t h = (seed + 1) * 0x9e3779b97f4a7c15u ^ (k * 0xbf58476d1ce4e5b9u);
  h ^= h >> 31;
  if (point.before_step && h % 3 != 0) return 0;  // let most steps begin at once
  return static_cast<std::size_t>(h % point.names.size());
}

using Picker = std::function<std::size_t(std::size_t k, const ChoicePoint& point)>;

Picker seeded(std::uint64_t seed) {
  return [seed](std::size_t k, const ChoicePoint& point) { return pick(seed, k, point); };
}

std::size_t canonically(std::size_t, const ChoicePoint& point) {
  return point.canonical;
}

Steered steer_model(const Trace& trace, const Picker& picker) {
  Steered out;
  spec::TraceRunner runner(trace);
  runner.world().offer_early_units(true);
  runner.world().offer_putting_off_idle(true);
  runner.world().set_chooser([&](const ChoicePoint& point) {
    out.points.push_back(point);
    return picker(out.points.size(), point);
  });
  out.log = runner.run().log;
  out.choices = runner.world().choices_taken();
  return out;
}

Steered steer_impl(const Trace& trace, const Picker& picker) {
  Steered out;
  ImplReplay replay(trace);
  replay.offer_early_units(true);
  replay.offer_putting_off_idle(true);
  replay.set_chooser([&](const ChoicePoint& point) {
    out.points.push_back(point);
    return picker(out.points.size(), point);
  });
  RunOutcome outcome = replay.run();
  EXPECT_TRUE(outcome.ok()) << outcome.failure().error.to_string();
  if (outcome.ok()) out.log = std::move(outcome.result().log);
  out.choices = replay.choices_taken();
  return out;
}

TEST(EnginesAgree, SteeredByAChooserTheyOfferTheSameChoicePoints) {
  std::size_t points = 0, early = 0, idle_only = 0;
  for (const auto& path : corpus_traces()) {
    auto read = read_trace_file(path.string());
    ASSERT_TRUE(read.ok());
    Trace trace = read.value();
    trace.schedule.clear();  // the chooser decides every point
    for (std::uint64_t seed = 0; seed < 16; ++seed) {
      const Steered model = steer_model(trace, seeded(seed));
      const Steered impl = steer_impl(trace, seeded(seed));
      ASSERT_EQ(model.points.size(), impl.points.size()) << path << " seed " << seed;
      for (std::size_t k = 0; k < model.points.size(); ++k) {
        const ChoicePoint &m = model.points[k], &i = impl.points[k];
        EXPECT_EQ(m.names, i.names) << path << " seed " << seed << " point " << k;
        EXPECT_EQ(m.proposals, i.proposals) << path << " seed " << seed << " point " << k;
        EXPECT_EQ(m.canonical, i.canonical) << path << " seed " << seed << " point " << k;
        EXPECT_EQ(m.before_step, i.before_step) << path << " seed " << seed << " point " << k;
        EXPECT_EQ(m.idle_only, i.idle_only) << path << " seed " << seed << " point " << k;
        early += m.before_step;
        idle_only += m.idle_only;
      }
      points += model.points.size();
      const auto diff = first_difference(model.log, impl.log);
      EXPECT_FALSE(diff) << path << " seed " << seed << ": " << diff.value_or("");
      EXPECT_EQ(model.choices, impl.choices) << path << " seed " << seed;
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
  const Steered model = steer_model(trace.value(), canonically);
  const Steered impl = steer_impl(trace.value(), canonically);
  const auto both = [](const Steered& s) {
    return std::any_of(s.points.begin(), s.points.end(), [](const ChoicePoint& p) {
      return std::count(p.names.begin(), p.names.end(), "loop:L/timer") +
                 std::count(p.names.begin(), p.names.end(), "loop:L/web-locks") ==
             2;
    });
  };
  ASSERT_TRUE(both(model)) << "no point offers both of B's tasks";
  ASSERT_EQ(model.points.size(), impl.points.size());
  for (std::size_t k = 0; k < model.points.size(); ++k)
    EXPECT_EQ(model.points[k].names, impl.points[k].names) << "point " << k;
}

}  // namespace
}  // namespace lockstep
