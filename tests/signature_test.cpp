// Divergence signatures (lockstep/signature.h): what check's report says of a failure's kind,
// on logs whose divergence is known by construction.
#include "lockstep/signature.h"

#include <gtest/gtest.h>

#include "lockstep/check.h"
#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

// A's request r, whose signal is aborted before it is made: the spec rejects it with an
// AbortError in step 2, and its callback never runs.
constexpr const char* kAbortedRequest = R"({
  "format": "lockstep-trace", "version": 1, "name": "aborted-request",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "newAbortController", "id": "c"},
    {"agent": "A", "op": "abort", "signal": "c"},
    {"agent": "A", "op": "request", "id": "r", "name": "res", "options": {"signal": "c"}, "callback": {}}
  ]})";

std::string signature_of(const std::string& log_events) {
  auto trace = read_trace(kAbortedRequest);
  EXPECT_TRUE(trace) << trace.error().to_string();
  auto log =
      read_log(R"({"format": "lockstep-log", "version": 1, "events": [)" + log_events + "]}");
  EXPECT_TRUE(log) << log.error().to_string();
  auto report = check(trace.value(), log.value(), Options{});
  EXPECT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->verdict, Verdict::NotAllowed);
  return report->divergence ? report->divergence->signature : "(no divergence)";
}

TEST(Signature, AnEventInPlaceOfTheModels) {
  EXPECT_EQ(signature_of(R"({"step": 2, "agent": "A", "event": "settled", "target": "r",
                             "state": "fulfilled"})"),
            "settled request fulfilled | instead: settled request rejected AbortError | model's "
            "step same");
  // The rejection a step late: the model's event is in an earlier step than the observed one.
  EXPECT_EQ(signature_of(R"({"step": 3, "agent": "A", "event": "settled", "target": "r",
                             "state": "rejected", "reason": {"DOMException": "AbortError"}})"),
            "settled request rejected AbortError | instead: settled request rejected AbortError "
            "| model's step earlier");
  // A callback the model never calls, with a lock of a mode.
  EXPECT_EQ(
      signature_of(R"({"step": 2, "agent": "A", "event": "callback", "request": "r",
                             "lock": {"name": "res", "mode": "exclusive"}})"),
      "callback exclusive | instead: settled request rejected AbortError | model's step same");
}

TEST(Signature, TheAgentsEventsEndEarly) {
  EXPECT_EQ(signature_of(""),
            "the agent's events end | instead: settled request rejected AbortError");
}

TEST(Signature, AnEventAfterTheModelsLast) {
  EXPECT_EQ(signature_of(R"({"step": 2, "agent": "A", "event": "settled", "target": "r",
                             "state": "rejected", "reason": {"DOMException": "AbortError"}},
                            {"step": 2, "agent": "A", "event": "mark", "label": "extra"})"),
            "mark | instead: nothing more (the model could stop)");
}

TEST(Signature, EventKinds) {
  auto trace = read_trace(kAbortedRequest);
  ASSERT_TRUE(trace);
  auto log = read_log(R"({"format": "lockstep-log", "version": 1, "events": [
    {"step": 2, "agent": "A", "event": "callback", "request": "r", "lock": null},
    {"step": 2, "agent": "A", "event": "threw", "op": "abort", "error": {"DOMException": "NotAllowedError"}},
    {"step": 2, "agent": "A", "event": "threw", "op": "abort", "error": 7},
    {"step": 2, "agent": "A", "event": "settled", "target": "c", "state": "rejected", "reason": "why"},
    {"step": 2, "agent": "A", "event": "settled", "target": "nobody", "state": "fulfilled"}]})");
  ASSERT_TRUE(log) << log.error().to_string();
  const std::vector<Event>& e = log->events;
  EXPECT_EQ(event_kind(trace.value(), e[0]), "callback null lock");
  EXPECT_EQ(event_kind(trace.value(), e[1]), "threw abort NotAllowedError");
  EXPECT_EQ(event_kind(trace.value(), e[2]), "threw abort value");
  EXPECT_EQ(event_kind(trace.value(), e[3]), "settled newAbortController rejected value");
  EXPECT_EQ(event_kind(trace.value(), e[4]), "settled ? fulfilled");  // no action makes "nobody"
}

}  // namespace
}  // namespace lockstep::check
