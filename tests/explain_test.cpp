// Explanations of divergences (lockstep/explain.h), on logs whose departure is known by
// construction: the sentence names what differs, and the spec step it rests on comes first.
#include "lockstep/explain.h"

#include <gtest/gtest.h>

#include "lockstep/check.h"
#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

// A: a shared request s; then a request r whose signal was aborted a step before it was made,
// which request() rejects at once (dom-lockmanager-request step 9), never reaching the queue.
constexpr const char* kTrace = R"({
  "format": "lockstep-trace", "version": 1, "name": "explained",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "s", "name": "res", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "newAbortController", "id": "c"},
    {"agent": "A", "op": "abort", "signal": "c"},
    {"agent": "A", "op": "request", "id": "r", "name": "other", "options": {"signal": "c"}, "callback": {}},
    {"agent": "B", "op": "query", "id": "q"}
  ]})";

// The spec's log, less the events named, plus the ones given, as a log's events.
const char* const kCallback =
    R"({"step": 0, "agent": "A", "event": "callback", "request": "s", "lock": {"name": "res", "mode": "shared"}})";
const char* const kRejected =
    R"({"step": 3, "agent": "A", "event": "settled", "target": "r", "state": "rejected", "reason": {"DOMException": "AbortError"}})";
const char* const kQuery =
    R"({"step": 4, "agent": "B", "event": "settled", "target": "q", "state": "fulfilled", "value": {"held": [{"name": "res", "mode": "shared", "clientId": "A"}], "pending": []}})";

Divergence divergence_of(const std::string& events) {
  auto trace = read_trace(kTrace);
  EXPECT_TRUE(trace) << trace.error().to_string();
  auto log = read_log(R"({"format": "lockstep-log", "version": 1, "events": [)" + events + "]}");
  EXPECT_TRUE(log) << log.error().to_string();
  auto report = check(trace.value(), log.value(), Options{});
  EXPECT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->verdict, Verdict::NotAllowed);
  return report->divergence.value_or(Divergence{});
}

// check's why on a log of `events`, and the first spec step of its rule.
void expect_why(const std::string& events, const std::string& why, const std::string& rule) {
  const Divergence d = divergence_of(events);
  EXPECT_EQ(d.why, why);
  ASSERT_FALSE(d.rests_on.empty());
  EXPECT_EQ(d.rests_on.front(), rule);
}

TEST(Why, TheSpecsOwnLogIsAllowed) {
  auto trace = read_trace(kTrace);
  ASSERT_TRUE(trace);
  auto log = read_log(std::string(R"({"format": "lockstep-log", "version": 1, "events": [)") +
                      kCallback + "," + kRejected + "," + kQuery + "]}");
  ASSERT_TRUE(log) << log.error().to_string();
  auto report = check(trace.value(), log.value(), Options{});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->verdict, Verdict::Allowed);  // else the cases below test nothing
}

TEST(Why, ALockOfTheWrongModeNamesTheLocksMode) {
  expect_why(
      R"({"step": 0, "agent": "A", "event": "callback", "request": "s", "lock": {"name": "res", "mode": "exclusive"}})",
      "in the spec, s's callback runs with a shared lock on res; in the implementation, s's "
      "callback runs with an exclusive lock on res (a Lock has the mode and name of the request "
      "it grants)",
      "dom-lock-mode 1");
}

// Its signal was aborted before the request was made: request() itself rejects.
TEST(Why, OnlyTheStepDiffers) {
  expect_why(
      std::string(kCallback) + "," +
          R"({"step": 4, "agent": "A", "event": "settled", "target": "r", "state": "rejected", "reason": {"DOMException": "AbortError"}})" +
          "," + kQuery,
      "only the step differs: r rejects with an AbortError in step 4, where the spec has it in "
      "step 3 (the implementation is late: the spec finishes it before step 3 settles)",
      "dom-lockmanager-request 9");
}

TEST(Why, AnAgentWhoseEventsStopEarly) {
  const Divergence d = divergence_of(std::string(kCallback) + "," + kQuery);
  EXPECT_EQ(d.why, "agent A logged nothing more; the spec goes on: r rejects with an AbortError");
}

TEST(Why, ASnapshotSaysWhatItLacks) {
  expect_why(
      std::string(kCallback) + "," + kRejected + "," +
          R"({"step": 4, "agent": "B", "event": "settled", "target": "q", "state": "fulfilled", "value": {"held": [], "pending": []}})",
      "the snapshot of q is not one the spec takes here: the spec's snapshot has res shared by A "
      "held, the implementation's does not",
      "algorithm-snapshot-state 6");
}

TEST(Why, StepsAreNamedWithTheirWords) {
  EXPECT_EQ(step_words("dom-lockmanager-request 9"),
            "signal already aborted: reject with its reason (web-locks#dom-lockmanager-request 9)");
  EXPECT_EQ(step_spec("grantable 8"), "web-locks");
  EXPECT_EQ(step_words("no-such-algorithm 1"), "no-such-algorithm 1");
}

}  // namespace
}  // namespace lockstep::check
