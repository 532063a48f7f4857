// lockstep render's timeline: it draws the run `lockstep run` makes, tick by tick, and the lock
// states it records are ones the model was in (holders compatible, a callback's lock held when
// the callback runs, scheduler tasks marked with their effective priority).
#include <gtest/gtest.h>

#include <filesystem>

#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "timeline.h"

namespace lockstep::render {
namespace {

const std::string kCorpus = std::string(LOCKSTEP_SOURCE_DIR) + "/traces/corpus/";

std::vector<std::string> corpus_traces() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kCorpus)) {
    const std::string path = entry.path().string();
    if (path.size() > 11 && path.substr(path.size() - 11) == ".trace.json") paths.push_back(path);
  }
  return paths;
}

std::string text(const Json& j) {
  return j.get<std::string>();
}

// The state of one resource name at the end of `tick`: the last recorded at or before it.
const Json* state_at(const Json& lock, std::size_t tick) {
  const Json* found = nullptr;
  for (const Json& s : lock["states"])
    if (s["tick"].get<std::size_t>() <= tick) found = &s;
  return found;
}

TEST(RenderTimeline, DrawsTheRunOfTheSpecEngineTickByTick) {
  std::size_t traces = 0;
  for (const std::string& path : corpus_traces()) {
    auto trace = read_trace_file(path);
    ASSERT_TRUE(trace.ok()) << path;
    auto timeline = collect_timeline(trace.value());
    ASSERT_TRUE(timeline.ok()) << path << ": " << timeline.error().to_string();
    const RunOutcome run = make_spec_engine()->run(trace.value(), RunOptions{});
    ASSERT_TRUE(run.ok()) << path;
    EXPECT_EQ(first_difference(run.result().log, timeline->log), std::nullopt) << path;
    // The ticks' event ranges cover the log in order, and steps never go back.
    const Json& ticks = timeline->json["ticks"];
    std::size_t next = 0;
    int step = 0;
    for (const Json& t : ticks) {
      EXPECT_EQ(t["events"][0].get<std::size_t>(), next) << path;
      next = t["events"][1].get<std::size_t>();
      EXPECT_GE(t["step"].get<int>(), step) << path;
      step = t["step"].get<int>();
    }
    EXPECT_EQ(next, timeline->log.events.size()) << path;
    ++traces;
  }
  EXPECT_GE(traces, 50u);
}

TEST(RenderTimeline, RecordsOnlyLockStatesTheSpecAllows) {
  for (const std::string& path : corpus_traces()) {
    auto trace = read_trace_file(path);
    ASSERT_TRUE(trace.ok()) << path;
    auto timeline = collect_timeline(trace.value());
    ASSERT_TRUE(timeline.ok()) << path;
    const Json& json = timeline->json;
    // web-locks#grantable: an exclusive holder is alone; shared holders share only with shared.
    for (const Json& lock : json["locks"])
      for (const Json& s : lock["states"]) {
        std::size_t exclusive = 0;
        for (const Json& h : s["held"]) exclusive += text(h["mode"]) == "exclusive";
        EXPECT_TRUE(exclusive == 0 || s["held"].size() == 1)
            << path << ": " << lock["name"] << " at tick " << s["tick"];
      }
    for (const Json& e : json["events"]) {
      const std::size_t tick = e["tick"].get<std::size_t>();
      // A lock's callback runs while its request holds the lock (web-locks#algorithm-request-lock
      // grants, then queues the callback; the release waits for the callback's promise).
      if (text(e["event"]) == "callback" && e["lock"].is_object()) {
        bool held = false;
        for (const Json& lock : json["locks"]) {
          if (text(lock["name"]) != text(e["lock"]["name"])) continue;
          if (const Json* s = state_at(lock, tick))
            for (const Json& h : (*s)["held"]) held |= text(h["request"]) == text(e["request"]);
        }
        EXPECT_TRUE(held) << path << ": " << e.dump();
      }
      // A postTask callback starts in a scheduler unit, which carries its effective priority.
      if (text(e["event"]) == "task") {
        const Json& t = json["ticks"][tick];
        EXPECT_GE(t["priority"].get<int>(), 0) << path << ": " << e.dump();
        EXPECT_LE(t["priority"].get<int>(), 5) << path << ": " << e.dump();
      }
    }
  }
}

// A steal: the stealing request holds the name at once, while the request it broke is out.
TEST(RenderTimeline, ShowsAStealTakingTheLockFromItsHolder) {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
               {"id": "B", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "A", "op": "request", "id": "r1", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "B", "op": "request", "id": "r2", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "B", "op": "request", "id": "r3", "name": "res", "options": {"steal": true},
       "callback": {"result": {"pending": true}}}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  auto timeline = collect_timeline(trace.value());
  ASSERT_TRUE(timeline.ok());
  const Json& locks = timeline->json["locks"];
  ASSERT_EQ(locks.size(), 1u);
  const Json& last = locks[0]["states"].back();
  ASSERT_EQ(last["held"].size(), 1u);
  EXPECT_EQ(text(last["held"][0]["request"]), "r3");
  EXPECT_EQ(text(last["held"][0]["agent"]), "B");
  ASSERT_EQ(last["pending"].size(), 1u);
  EXPECT_EQ(text(last["pending"][0]["request"]), "r2");
  // Before the steal, r1 held and r2 waited.
  const Json& before = locks[0]["states"][locks[0]["states"].size() - 2];
  EXPECT_EQ(text(before["held"][0]["request"]), "r1");
  EXPECT_EQ(text(before["pending"][0]["request"]), "r2");
}

}  // namespace
}  // namespace lockstep::render
