// The trace reader: every bad input is an Error naming the JSON pointer, never a crash.
#include <gtest/gtest.h>

#include "lockstep/choice_point.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

const char* kTwoAgents =
    R"([{"id": "A", "kind": "window", "origin": "https://a.test"},
        {"id": "W", "kind": "worker", "origin": "https://a.test"}])";

std::string trace_with(const std::string& steps, const std::string& agents = kTwoAgents,
                       const std::string& extra = "") {
  return R"({"format": "lockstep-trace", "version": 1, "agents": )" + agents + R"(, "steps": )" +
         steps + extra + "}";
}

struct BadCase {
  std::string label;
  std::string json;
  std::string pointer;
  std::string message_part;
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.label;
}

class BadTrace : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadTrace, ReportsPointerAndReason) {
  const BadCase& c = GetParam();
  auto result = read_trace(c.json);
  ASSERT_FALSE(result.ok()) << c.label << " was accepted";
  EXPECT_EQ(result.error().pointer, c.pointer) << result.error().to_string();
  EXPECT_NE(result.error().message.find(c.message_part), std::string::npos)
      << result.error().to_string();
}

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> cases = {
      {"malformed JSON", R"({"format": "lockstep-trace", )", "", "malformed JSON at line 1"},
      {"not an object", "[1, 2]", "", "a trace is a JSON object"},
      {"wrong format", R"({"format": "other", "version": 1, "agents": [], "steps": []})", "/format",
       "lockstep-trace"},
      {"future version", R"({"format": "lockstep-trace", "version": 2, "agents": [], "steps": []})",
       "/version", "version 1"},
      {"unknown op", trace_with(R"([{"agent": "A", "op": "lock"}])"), "/steps/0/op",
       "unknown op \"lock\""},
      {"missing id", trace_with(R"([{"agent": "A", "op": "request", "name": "x"}])"), "/steps/0",
       "missing required member \"id\""},
      {"duplicate id", trace_with(R"([{"agent": "A", "op": "request", "id": "r", "name": "x"},
                      {"agent": "A", "op": "query", "id": "r"}])"),
       "/steps/1/id", "duplicate id \"r\""},
      {"dangling signal",
       trace_with(
           R"([{"agent": "A", "op": "request", "id": "r", "name": "x", "options": {"signal": "s"}}])"),
       "/steps/0/options/signal", "no earlier step creates \"s\""},
      {"dangling settle target",
       trace_with(R"([{"agent": "A", "op": "settle", "target": "p", "outcome": "fulfill"}])"),
       "/steps/0/target", "no earlier step creates \"p\""},
      {"wrong type",
       trace_with(
           R"([{"agent": "A", "op": "request", "id": "r", "name": "x", "options": {"ifAvailable": "yes"}}])"),
       "/steps/0/options/ifAvailable", "expected true or false, got a string"},
      {"name of the wrong type",
       trace_with(R"([{"agent": "A", "op": "request", "id": "r", "name": 7}])"), "/steps/0/name",
       "expected a string, got a number"},
      {"await of a promise no step creates",
       trace_with(
           R"([{"agent": "A", "op": "run", "body": [{"op": "await", "target": "nothing"}]}])"),
       "/steps/0/body/0/target", "no earlier step creates \"nothing\""},
      {"await of something that is no promise",
       trace_with(R"([{"agent": "A", "op": "newAbortController", "id": "c"},
                      {"agent": "A", "op": "run", "body": [{"op": "await", "target": "c"}]}])"),
       "/steps/1/body/0/target", "expected a promise"},
      {"await used before its promise is made",
       trace_with(R"([{"agent": "A", "op": "run", "body": [{"op": "await", "target": "r"}]},
                      {"agent": "A", "op": "request", "id": "r", "name": "x"}])"),
       "/steps/0/body/0/target", "no earlier step creates \"r\""},
      {"await at top level", trace_with(R"([{"agent": "A", "op": "await", "target": "r"}])"),
       "/steps/0/op", "only allowed inside a body"},
      {"agent inside a body",
       trace_with(
           R"([{"agent": "A", "op": "run", "body": [{"agent": "A", "op": "mark", "label": "x"}]}])"),
       "/steps/0/body/0/agent", "implied"},
      {"unknown agent", trace_with(R"([{"agent": "Z", "op": "query", "id": "q"}])"),
       "/steps/0/agent", "no agent with id \"Z\""},
      {"misspelt option",
       trace_with(
           R"([{"agent": "A", "op": "request", "id": "r", "name": "x", "options": {"ifAvailble": true}}])"),
       "/steps/0/options/ifAvailble", "unknown member"},
      {"bad mode",
       trace_with(
           R"([{"agent": "A", "op": "request", "id": "r", "name": "x", "options": {"mode": "read"}}])"),
       "/steps/0/options/mode", "expected \"exclusive\" or \"shared\""},
      {"settle of a request whose callback does not stay pending",
       trace_with(R"([{"agent": "A", "op": "request", "id": "r", "name": "x"},
                      {"agent": "A", "op": "settle", "target": "r", "outcome": "fulfill"}])"),
       "/steps/1/target", "expected a newPromise, or a request or postTask"},
      {"bad settle outcome", trace_with(R"([{"agent": "A", "op": "newPromise", "id": "p"},
                      {"agent": "A", "op": "settle", "target": "p", "outcome": "resolve"}])"),
       "/steps/1/outcome", "expected \"fulfill\" or \"reject\""},
      {"signal from another event loop",
       trace_with(R"([{"agent": "A", "op": "newAbortController", "id": "c"},
                      {"agent": "W", "op": "request", "id": "r", "name": "x", "options": {"signal": "c"}}])"),
       "/steps/1/options/signal", "cannot reach"},
      {"abort of a timeout signal",
       trace_with(R"([{"agent": "A", "op": "timeoutSignal", "id": "t", "ms": 5},
                      {"agent": "A", "op": "abort", "signal": "t"}])"),
       "/steps/1/signal", "expected an AbortController or TaskController"},
      {"unload of a worker", trace_with(R"([{"agent": "W", "op": "unload"}])"), "/steps/0/op",
       "is a worker"},
      {"worker on a shared event loop",
       trace_with(
           "[]",
           R"([{"id": "W", "kind": "worker", "origin": "https://a.test", "eventLoop": "L"}])"),
       "/agents/0/eventLoop", "only windows share event loops"},
      {"duplicate agent",
       trace_with(
           "[]",
           R"([{"id": "A", "kind": "window", "origin": "o"}, {"id": "A", "kind": "window", "origin": "o"}])"),
       "/agents/1/id", "duplicate agent id"},
      {"bad agent kind", trace_with("[]", R"([{"id": "A", "kind": "tab", "origin": "o"}])"),
       "/agents/0/kind", "expected \"window\" or \"worker\""},
      {"no agents", trace_with("[]", "[]"), "/agents", "at least one agent"},
      {"step after terminate",
       trace_with(
           R"([{"agent": "W", "op": "terminate"}, {"agent": "W", "op": "query", "id": "q"}])"),
       "/steps/1/agent", "was terminated by steps[0]"},
      {"advanceTime with an agent", trace_with(R"([{"agent": "A", "op": "advanceTime", "ms": 5}])"),
       "/steps/0/agent", "takes no agent"},
      {"negative time", trace_with(R"([{"op": "advanceTime", "ms": -5}])"), "/steps/0/ms",
       "whole number"},
      {"bad callback result",
       trace_with(
           R"([{"agent": "A", "op": "request", "id": "r", "name": "x", "callback": {"result": {"yield": 1}}}])"),
       "/steps/0/callback/result/yield", "unknown result"},
      {"bad schedule choice", trace_with("[]", kTwoAgents, R"(, "schedule": ["loop:Nope"])"),
       "/schedule/0", "no event loop named \"Nope\""},
      {"settled is no early unit",
       trace_with("[]", kTwoAgents, R"(, "schedule": ["settled", "early:settled"])"), "/schedule/1",
       "unknown choice \"early:settled\""},
      {"idle is no early unit",
       trace_with("[]", kTwoAgents, R"(, "schedule": ["idle", "early:idle"])"), "/schedule/1",
       "unknown choice \"early:idle\""},
      {"step is no early unit",
       trace_with("[]", kTwoAgents, R"(, "schedule": ["step", "early:step"])"), "/schedule/1",
       "unknown choice \"early:step\""},
      {"unknown reading", trace_with("[]", kTwoAgents, R"(, "readings": {"released": "note"})"),
       "/readings/released", "unknown member"},
      {"bad reading value",
       trace_with("[]", kTwoAgents, R"(, "readings": {"released-promise": "spec"})"),
       "/readings/released-promise", "expected \"steps\" or \"note\""},
      {"bad closed-window-jobs value",
       trace_with("[]", kTwoAgents, R"(, "readings": {"closed-window-jobs": "yes"})"),
       "/readings/closed-window-jobs", "expected \"dropped\" or \"run\""},
      {"bad stale-removal value",
       trace_with("[]", kTwoAgents, R"(, "readings": {"stale-removal": "fix"})"),
       "/readings/stale-removal", "expected \"literal\" or \"fixed\""},
      {"bad priority",
       trace_with(
           R"([{"agent": "A", "op": "postTask", "id": "t", "options": {"priority": "high"}}])"),
       "/steps/0/options/priority", "user-blocking"},
  };
  // Absurd sizes.
  cases.push_back({"a 10 MB name",
                   trace_with(R"([{"agent": "A", "op": "request", "id": "r", "name": ")" +
                              std::string(10u << 20, 'n') + R"("}])"),
                   "/steps/0/name", "exceeds the limit"});
  std::string many = "[";
  for (int i = 0; i < 1'000'000; ++i) many += std::string(i ? "," : "") + "{}";
  many += "]";
  cases.push_back({"10^6 agents", trace_with("[]", many), "/agents", "exceed the limit"});
  std::string deep = "[";
  for (int i = 0; i < 200; ++i) deep += R"({"op": "run", "body": [)";
  for (int i = 0; i < 200; ++i) deep += "]}";
  deep += "]";
  // JSON nesting stops at 136 levels (2 x 64 + 8): the root, the steps, the step and its body make
  // 4, each further action and body 2, so the 137th container is the action at 67 bodies' depth.
  std::string too_deep = "/steps/0";
  for (int i = 0; i < 67; ++i) too_deep += "/body/0";
  cases.push_back({"bodies nested 200 deep",
                   trace_with(R"([{"agent": "A", "op": "run", "body": )" + deep + "}]"), too_deep,
                   "JSON nested deeper than 136 levels"});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Reader, BadTrace, ::testing::ValuesIn(bad_cases()),
                         [](const auto& param_info) {
                           std::string name;
                           for (char c : param_info.param.label)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

TEST(Reader, ErrorPathReadsLikeCode) {
  Error e{"/steps/4/options/mode", "x"};
  EXPECT_EQ(e.path(), "steps[4].options.mode");
  EXPECT_EQ(e.to_string(), "steps[4].options.mode (/steps/4/options/mode): x");
}

TEST(Reader, FillsDefaultsAndImpliedAgents) {
  auto t = read_trace(trace_with(R"([
    {"agent": "A", "op": "request", "id": "r", "name": "x", "options": {"mode": "shared"},
     "callback": {"body": [{"op": "await", "target": "r"}, {"op": "mark", "label": "m"}], "result": {"pending": true}}},
    {"agent": "A", "op": "request", "id": "r2", "name": "y", "settle": false},
    {"agent": "A", "op": "settle", "target": "r", "outcome": "reject", "value": {"DOMException": "AbortError"}}
  ])"));
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  const Action& r = t->steps[0];
  ASSERT_TRUE(r.lock_options.has_value());
  EXPECT_EQ(r.lock_options->mode, LockMode::Shared);
  EXPECT_FALSE(r.lock_options->if_available);
  ASSERT_TRUE(r.callback.has_value());
  EXPECT_TRUE(r.callback->is_async);
  EXPECT_EQ(r.callback->result, Callback::Result::Pending);
  EXPECT_EQ(r.callback->body[1].agent, "A");
  EXPECT_EQ(r.callback->body[1].pointer, "/steps/0/callback/body/1");
  EXPECT_FALSE(t->steps[1].lock_options.has_value());  // the two-argument overload
  EXPECT_FALSE(t->steps[1].callback->is_async);
  EXPECT_FALSE(t->steps[1].settle);
  EXPECT_EQ(*t->steps[2].value, Value::dom_exception("AbortError"));
  EXPECT_FALSE(t->steps[2].fulfill);
}

TEST(Reader, AcceptsEverySchedulingOpOfTheFormat) {
  auto t = read_trace(trace_with(R"([
    {"agent": "A", "op": "newTaskController", "id": "tc", "priority": "background"},
    {"agent": "A", "op": "taskSignalAny", "id": "any", "signals": ["tc"], "priority": {"signal": "tc"}},
    {"agent": "A", "op": "onPriorityChange", "signal": "tc", "body": [{"op": "mark", "label": "pc"}]},
    {"agent": "A", "op": "postTask", "id": "t1", "options": {"priority": "user-blocking", "signal": "any", "delay": 5},
     "callback": {"body": [{"op": "yield", "id": "y1"}, {"op": "await", "target": "y1"}]}},
    {"agent": "A", "op": "setPriority", "controller": "tc", "priority": "user-visible"},
    {"agent": "A", "op": "requestIdleCallback", "id": "idle"},
    {"agent": "A", "op": "setTimeout", "id": "tm", "ms": 10, "body": [{"op": "queueMicrotask", "body": []}]},
    {"op": "advanceTime", "ms": 10}
  ])"));
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_TRUE(t->uses_scheduling());
  EXPECT_EQ(t->steps[3].task_options->delay, 5u);
}

// I-26, I-27: the pins that replay a run's choices. A step begins at every pin but "early:" and
// "step", idle periods start at every pin but "settled" and "idle": a "step" or an "idle" is kept
// only where such a pin comes next, past those of its kind kept for later points.
TEST(Schedule, ChoicesBecomeThePinsThatReplayThem) {
  EXPECT_EQ(schedule_of_choices({"step", "loop:A/web-locks", "step", "idle", "step",
                                 "early:locks:default", "step", "settled", "step"}),
            (std::vector<std::string>{"loop:A/web-locks", "step", "step", "early:locks:default",
                                      "settled"}));
  EXPECT_EQ(schedule_of_choices({"idle", "step", "idle", "settled", "idle", "loop:A/idle", "idle"}),
            (std::vector<std::string>{"idle", "idle", "settled", "loop:A/idle"}));
  EXPECT_EQ(schedule_of_choices({"early:loop:A", "step", "idle"}),
            std::vector<std::string>{"early:loop:A"});
  EXPECT_TRUE(schedule_of_choices({"step", "idle", "step"}).empty());
}

}  // namespace
}  // namespace lockstep
