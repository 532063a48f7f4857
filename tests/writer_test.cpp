// Writers: a trace and a log survive write then read unchanged.
#include <gtest/gtest.h>

#include "lockstep/log_compare.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

const char* kTrace = R"({"format": "lockstep-trace", "version": 1, "name": "round-trip",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test", "eventLoop": "L"},
             {"id": "B", "kind": "window", "origin": "https://a.test", "eventLoop": "L", "partition": "p2"}],
  "steps": [
    {"agent": "A", "op": "newAbortController", "id": "c"},
    {"agent": "A", "op": "request", "id": "r", "name": "res", "options": {"mode": "shared", "signal": "c"},
     "callback": {"body": [{"op": "mark", "label": "m"}, {"op": "await", "target": "r"}], "result": {"throw": {"DOMException": "DataError"}}}},
    {"agent": "B", "op": "abort", "signal": "c", "reason": [1, 2.5, "x", null, true]},
    {"agent": "B", "op": "timeoutSignal", "id": "t", "ms": 200, "settle": false},
    {"op": "advanceTime", "ms": 200}
  ],
  "schedule": ["locks", "loop:L/web-locks"],
  "readings": {"released-promise": "note", "stale-removal": "fixed", "closed-window-jobs": "run"}})";

TEST(Writer, TraceRoundTrips) {
  auto first = read_trace(kTrace);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  std::string written = write_trace(first.value());
  auto second = read_trace(written);
  ASSERT_TRUE(second.ok()) << second.error().to_string() << "\n" << written;
  EXPECT_EQ(write_trace(second.value()), written);
  EXPECT_EQ(second->agents[1].partition, "p2");
  EXPECT_EQ(second->agents[1].event_loop, "L");
  EXPECT_EQ(second->steps[2].reason->items().size(), 5u);
  EXPECT_FALSE(second->steps[3].settle);
  EXPECT_EQ(second->schedule.size(), 2u);
  EXPECT_EQ(second->readings.released_promise, ReleasedPromiseReading::Note);
  EXPECT_EQ(second->readings.stale_removal, StaleRemovalReading::Fixed);
  EXPECT_EQ(second->readings.closed_window_jobs, ClosedWindowJobsReading::Run);
}

TEST(Writer, LogRoundTripsAndLeavesUndefinedOut) {
  Log log;
  log.events.push_back(Event{0,
                             "A",
                             "callback",
                             {{"request", Value::string("r")},
                              {"lock", Value::object({{"name", Value::string("n")},
                                                      {"mode", Value::string("shared")}})}}});
  log.events.push_back(Event{
      1, "A", "settled", {{"target", Value::string("r")}, {"state", Value::string("fulfilled")}}});
  log.events.push_back(Event{2,
                             "A",
                             "settled",
                             {{"target", Value::string("q")},
                              {"state", Value::string("rejected")},
                              {"reason", Value::dom_exception("AbortError")}}});
  log.events.push_back(
      Event{2, "B", "mark", {{"label", Value::string("quote \" and backslash \\")}}});
  std::string text = write_log(log);
  EXPECT_EQ(text.find("\"value\""),
            std::string::npos);  // fulfilled with undefined: no value member
  auto back = read_log(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_FALSE(first_difference(log, back.value()).has_value()) << text;
}

// "agent" is required even when empty (log.schema.json): a log read with "agent": "" writes it
// back, so that what was read reads again (a fuzz_log_reader finding).
TEST(Writer, AnEmptyAgentIsWrittenBack) {
  auto log = read_log(R"({"format": "lockstep-log", "version": 1, "events": [)"
                      R"({"step": 0, "agent": "", "event": "mark", "label": "m"}]})");
  ASSERT_TRUE(log.ok()) << log.error().to_string();
  const std::string text = write_log(log.value());
  EXPECT_NE(text.find(R"("agent": "")"), std::string::npos) << text;
  auto back = read_log(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
  EXPECT_FALSE(first_difference(log.value(), back.value()).has_value());
}

TEST(Writer, NumbersPrintAsJavaScriptDoes) {
  EXPECT_EQ(write_value(Value::number(42)), "42");
  EXPECT_EQ(write_value(Value::number(-0.5)), "-0.5");
  EXPECT_EQ(write_value(Value::dom_exception("AbortError", "ignored message")),
            R"({"DOMException":"AbortError"})");
}

TEST(LogCompare, NamesTheFirstDifference) {
  Log a, b;
  a.events.push_back(Event{0, "A", "mark", {{"label", Value::string("x")}}});
  b.events.push_back(Event{0, "A", "mark", {{"label", Value::string("y")}}});
  auto diff = first_difference(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("events[0]"), std::string::npos);
  b.events[0] = a.events[0];
  b.events.push_back(a.events[0]);
  diff = first_difference(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("expected the end of the log"), std::string::npos);
  EXPECT_TRUE(Value::dom_exception("AbortError", "a") == Value::dom_exception("AbortError", "b"));
}

}  // namespace
}  // namespace lockstep
