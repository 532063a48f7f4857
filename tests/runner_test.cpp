// The spec engine replaying small traces: failures that only show during replay, races, pins.
#include <gtest/gtest.h>

#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

RunOutcome replay(
    const std::string& steps, const std::string& extra = "",
    const std::string& agents = R"([{"id": "A", "kind": "window", "origin": "https://a.test"},
                                                   {"id": "B", "kind": "window", "origin": "https://a.test"}])") {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1, "agents": )" + agents +
                          R"(, "steps": )" + steps + extra + "}");
  EXPECT_TRUE(trace.ok()) << trace.error().to_string();
  if (!trace.ok()) return RunFailure{RunFailure::Kind::BadInput, trace.error()};
  RunOptions options;
  options.coverage = true;
  return make_spec_engine()->run(trace.value(), options);
}

// `engine` refuses `trace`'s schedule at `pointer`, with an error whose message contains `part`.
void expect_refused(const Engine& engine, const Trace& trace, const std::string& pointer,
                    const std::string& part) {
  const RunOutcome refused = engine.run(trace, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().error.pointer, pointer) << refused.failure().error.message;
  EXPECT_NE(refused.failure().error.message.find(part), std::string::npos)
      << refused.failure().error.message;
}

std::vector<std::string> summary(const RunOutcome& outcome) {
  std::vector<std::string> out;
  for (const Event& e : outcome.result().log.events) {
    std::string s = std::to_string(e.step) + " " + e.agent + " " + e.event;
    if (const Value* v = e.member("label")) s += " " + v->as_string();
    if (const Value* v = e.member("target"))
      s += " " + v->as_string() + " " + e.member("state")->as_string();
    if (const Value* v = e.member("request"))
      s += " " + v->as_string() + (e.member("lock")->kind() == Value::Kind::Null ? " null" : "");
    out.push_back(s);
  }
  return out;
}

TEST(SpecEngine, RunsTheSchedulingOps) {
  // A user-visible task that yields runs its continuation (effective priority 3) before an older
  // user-visible task (2); the background task runs last, after a priority change moved nothing.
  RunOutcome o = replay(R"([
    {"agent": "A", "op": "newTaskController", "id": "tc", "priority": "background"},
    {"agent": "A", "op": "run", "body": [
      {"op": "postTask", "id": "bg", "options": {"signal": "tc"}},
      {"op": "postTask", "id": "t1", "callback": {"body": [{"op": "yield", "id": "y"}, {"op": "mark", "label": "after-yield"}]}},
      {"op": "postTask", "id": "t2"},
      {"op": "setPriority", "controller": "tc", "priority": "background"}]}])");
  ASSERT_TRUE(o.ok()) << o.failure().error.to_string();
  EXPECT_EQ(summary(o), (std::vector<std::string>{
                            "1 A task", "1 A settled y fulfilled", "1 A mark after-yield",
                            "1 A settled t1 fulfilled", "1 A task", "1 A settled t2 fulfilled",
                            "1 A task", "1 A settled bg fulfilled"}));
}

TEST(SpecEngine, SettlingAPendingResultThatDoesNotExistYetNamesBothPlaces) {
  // B's request is queued behind A's held lock, so its callback has not returned its promise.
  RunOutcome o = replay(R"([
    {"agent": "A", "op": "request", "id": "a", "name": "n", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b", "name": "n", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "settle", "target": "b", "outcome": "fulfill"}])");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.failure().error.pointer, "/steps/2");
  EXPECT_NE(o.failure().error.message.find("does not exist yet"), std::string::npos);
}

TEST(SpecEngine, AnAwaitOfAPromiseFromABodyThatNeverRanIsAReplayError) {
  RunOutcome o = replay(R"([
    {"agent": "A", "op": "request", "id": "a", "name": "n", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b", "name": "n", "callback": {"body": [{"op": "query", "id": "q"}]}},
    {"agent": "B", "op": "run", "body": [{"op": "await", "target": "q"}]}])");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.failure().error.pointer, "/steps/2/body/0");
  EXPECT_NE(o.failure().error.message.find("steps[1].callback.body[0]"), std::string::npos);
}

TEST(SpecEngine, ABadPinNamesTheScheduleEntry) {
  RunOutcome o = replay(R"([
    {"agent": "A", "op": "request", "id": "a", "name": "n", "settle": false},
    {"agent": "B", "op": "request", "id": "b", "name": "n"}])",
                        R"(, "schedule": ["loop:B"])");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.failure().error.pointer, "/schedule/0");
  EXPECT_NE(o.failure().error.message.find("runnable: locks:default"), std::string::npos);
}

TEST(SpecEngine, UnsettledStepsRaceAndPinsDecide) {
  // A's grant task and B's abort: canonically the abort comes after the grant decision and before
  // the callback task; the callback never runs, the request rejects, the lock is released.
  const std::string steps = R"([
    {"agent": "A", "op": "newAbortController", "id": "c"},
    {"agent": "A", "op": "request", "id": "r", "name": "n", "options": {"signal": "c"}, "settle": false},
    {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "before-abort"}], "settle": false},
    {"agent": "A", "op": "abort", "signal": "c"},
    {"agent": "A", "op": "query", "id": "q"}])";
  RunOutcome o = replay(steps);
  ASSERT_TRUE(o.ok()) << o.failure().error.to_string();
  EXPECT_EQ(summary(o), (std::vector<std::string>{"2 A mark before-abort", "3 A settled r rejected",
                                                  "4 A settled q fulfilled"}));
  const Value* snapshot = o.result().log.events.back().member("value");
  EXPECT_TRUE(snapshot->member("held")->items().empty());
  EXPECT_TRUE(o.result().steps_hit.count("algorithm-process-request 2.14.1.1.1.1"));
}

// I-26: "early:" pins run what a step that does not settle left queued before the next step, on
// both engines; a pin that names nothing runnable there is refused, listing what could go early.
TEST(BothEngines, EarlyPinsRunQueuedWorkBeforeTheNextStep) {
  const std::string steps = R"([
    {"agent": "A", "op": "newAbortController", "id": "c"},
    {"agent": "A", "op": "request", "id": "r", "name": "n", "options": {"signal": "c"}, "settle": false},
    {"agent": "A", "op": "abort", "signal": "c"}])";
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    auto trace = read_trace(
        R"({"format": "lockstep-trace", "version": 1, "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}], "steps": )" +
        steps + R"(, "schedule": ["early:locks", "early:loop:A/web-locks"]})");
    ASSERT_TRUE(trace.ok()) << trace.error().to_string();
    RunOutcome o = engine->run(trace.value(), {});
    ASSERT_TRUE(o.ok()) << o.failure().error.to_string();
    // Granted and called back before the abort's step: the abort comes too late.
    EXPECT_EQ(summary(o), (std::vector<std::string>{"2 A callback r", "2 A settled r fulfilled"}));
    EXPECT_EQ(o.result().choices,
              (std::vector<std::string>{"early:locks:default", "early:loop:A/web-locks"}));
    Trace wrong = trace.value();
    wrong.schedule = {"early:loop:A"};  // only the lock task queue has work before step 2
    expect_refused(*engine, wrong, "/schedule/0", "runnable: early:locks:default");
  }
}

// I-26: the pin "step" begins a step where a queued unit could go first, so that an "early:" pin
// after it waits for a later step; where nothing could go first there is no point and the pin
// waits too; at an ordinary choice point it is refused, saying where it belongs.
TEST(BothEngines, TheStepPinLetsAnEarlyUnitWaitForALaterStep) {
  const std::string agents = R"([{"id": "A", "kind": "window", "origin": "https://a.test"},
    {"id": "B", "kind": "window", "origin": "https://b.test"}])";
  const std::string steps = R"([
    {"agent": "A", "op": "postTask", "id": "t", "callback": {"body": [{"op": "mark", "label": "task"}]}, "settle": false},
    {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "one"}], "settle": false},
    {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "two"}]}])";
  const auto pinned = [&](const std::string& schedule) {
    auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1, "agents": )" + agents +
                            R"(, "steps": )" + steps + R"(, "schedule": )" + schedule + "}");
    EXPECT_TRUE(trace.ok()) << trace.error().to_string();
    return trace.value();
  };
  // The task runs in step 2's settling, whenever it goes: its events carry step 2.
  const std::vector<std::string> task{"2 A task", "2 A mark task", "2 A settled t fulfilled"};
  const auto with_task_at = [&](std::size_t at) {
    std::vector<std::string> marks{"1 A mark one", "2 A mark two"};
    marks.insert(marks.begin() + static_cast<std::ptrdiff_t>(at), task.begin(), task.end());
    return marks;
  };
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    RunOutcome first = engine->run(pinned(R"(["early:loop:A/scheduler"])"), {});
    ASSERT_TRUE(first.ok()) << first.failure().error.to_string();
    EXPECT_EQ(summary(first), with_task_at(0));  // taken before step 1, the first point
    // Before step 0 nothing is queued (no point), before step 1 the step begins, before step 2
    // the task goes first.
    RunOutcome later = engine->run(pinned(R"(["step", "early:loop:A/scheduler"])"), {});
    ASSERT_TRUE(later.ok()) << later.failure().error.to_string();
    EXPECT_EQ(summary(later), with_task_at(1));
    EXPECT_EQ(later.result().choices, (std::vector<std::string>{"step", "early:loop:A/scheduler"}));
    RunOutcome none = engine->run(pinned(R"(["step", "step"])"), {});
    ASSERT_TRUE(none.ok()) << none.failure().error.to_string();
    EXPECT_EQ(summary(none), with_task_at(2));  // as without pins
    // Three steps begin where A's task could go first; then B's task and A's compete in the final
    // settling, where "step" names neither.
    Trace two_loops = pinned(R"(["step", "step", "step", "step"])");
    two_loops.steps.back().settle = false;
    auto b_task =
        read_trace(R"({"format": "lockstep-trace", "version": 1, "agents": )" + agents +
                   R"(, "steps": [{"agent": "B", "op": "postTask", "id": "u", "callback": {}}]})");
    ASSERT_TRUE(b_task.ok()) << b_task.error().to_string();
    two_loops.steps.push_back(b_task.value().steps.front());
    two_loops.steps.back().settle = false;
    expect_refused(*engine, two_loops, "/schedule/3",
                   "\"step\" is a choice only at a point before a step, not here; runnable: "
                   "loop:A/scheduler, loop:B/scheduler");
  }
}

// I-27: the pin "settled", where only idle periods could start, ends the settling with the idle
// callback still queued, on both engines: it runs in a later step's settling, or never. Where
// other work is runnable the pin names nothing and is refused.
TEST(BothEngines, SettledPinsPutIdlePeriodsOff) {
  const std::string head =
      R"({"format": "lockstep-trace", "version": 1, "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}], "steps": [
    {"agent": "A", "op": "requestIdleCallback", "id": "i"},
    {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "after"}]}], )";
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    auto once = read_trace(head + R"("schedule": ["settled"]})");
    ASSERT_TRUE(once.ok()) << once.error().to_string();
    RunOutcome later = engine->run(once.value(), {});
    ASSERT_TRUE(later.ok()) << later.failure().error.to_string();
    EXPECT_EQ(summary(later), (std::vector<std::string>{"1 A mark after", "1 A idle"}));
    EXPECT_EQ(later.result().choices, (std::vector<std::string>{"settled"}));
    Trace never_run = once.value();
    never_run.schedule = {"settled", "settled", "settled"};  // step 0's, step 1's, the final one
    RunOutcome never = engine->run(never_run, {});
    ASSERT_TRUE(never.ok()) << never.failure().error.to_string();
    EXPECT_EQ(summary(never), (std::vector<std::string>{"1 A mark after"}));
    auto busy = read_trace(
        R"({"format": "lockstep-trace", "version": 1, "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}, {"id": "B", "kind": "window", "origin": "https://b.test"}], "steps": [
      {"agent": "B", "op": "postTask", "id": "t", "settle": false},
      {"agent": "A", "op": "requestIdleCallback", "id": "i"}], "schedule": ["settled"]})");
    ASSERT_TRUE(busy.ok()) << busy.error().to_string();
    // B's task could run too.
    expect_refused(*engine, busy.value(), "/schedule/0",
                   "\"settled\" is a choice only at a point where only idle periods start");
    Trace busy_idle = busy.value();  // "idle" belongs to the same kind of point
    busy_idle.schedule = {"idle"};
    expect_refused(*engine, busy_idle, "/schedule/0",
                   "\"idle\" is a choice only at a point where only idle periods start");
  }
}

// I-27: the pin "idle" starts the idle periods at such a point, so that a "settled" after it puts
// off those of a later point; alone, the "settled" is taken at the first.
TEST(BothEngines, TheIdlePinLetsALaterSettlingPutIdlePeriodsOff) {
  const std::string head =
      R"({"format": "lockstep-trace", "version": 1, "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}], "steps": [
    {"agent": "A", "op": "requestIdleCallback", "id": "i"},
    {"agent": "A", "op": "requestIdleCallback", "id": "j"},
    {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "after"}]}], )";
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    auto second = read_trace(head + R"("schedule": ["idle", "settled"]})");
    ASSERT_TRUE(second.ok()) << second.error().to_string();
    RunOutcome o = engine->run(second.value(), {});
    ASSERT_TRUE(o.ok()) << o.failure().error.to_string();
    // i runs in step 0's settling; j, put off in step 1's, runs after step 2's mark.
    EXPECT_EQ(summary(o), (std::vector<std::string>{"0 A idle", "2 A mark after", "2 A idle"}));
    EXPECT_EQ(o.result().choices, (std::vector<std::string>{"idle", "settled"}));
    Trace first = second.value();
    first.schedule = {"settled"};
    RunOutcome f = engine->run(first, {});
    ASSERT_TRUE(f.ok()) << f.failure().error.to_string();
    // i put off in step 0's settling; both run in step 1's.
    EXPECT_EQ(summary(f), (std::vector<std::string>{"1 A idle", "1 A idle", "2 A mark after"}));
  }
}

TEST(SpecEngine, EventsCarryTheStepDuringWhoseSettlingTheyHappen) {
  RunOutcome o = replay(R"([
    {"agent": "A", "op": "request", "id": "a", "name": "n", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b", "name": "n"},
    {"agent": "A", "op": "settle", "target": "a", "outcome": "fulfill", "value": 7}])");
  ASSERT_TRUE(o.ok()) << o.failure().error.to_string();
  // Releasing grants B (release step 7) before A's promise is resolved (waiting-promise step 2).
  EXPECT_EQ(summary(o),
            (std::vector<std::string>{"0 A callback a", "2 B callback b", "2 A settled a fulfilled",
                                      "2 B settled b fulfilled"}));
}

TEST(SpecEngine, TerminationInsideABodyStopsTheBodyAndLaterStepsAreErrors) {
  RunOutcome o = replay(R"([
    {"agent": "W", "op": "run", "body": [{"op": "mark", "label": "one"}, {"op": "terminate"}, {"op": "mark", "label": "two"}]},
    {"agent": "W", "op": "query", "id": "q"}])",
                        "", R"([{"id": "W", "kind": "worker", "origin": "https://a.test"}])");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.failure().error.pointer, "/steps/1/agent");
  EXPECT_NE(o.failure().error.message.find("terminated during step 0"), std::string::npos);
}

TEST(SpecEngine, ReplayIsDeterministic) {
  const std::string steps = R"([
    {"agent": "A", "op": "request", "id": "a", "name": "n", "settle": false},
    {"agent": "B", "op": "request", "id": "b", "name": "n", "options": {"mode": "shared"}, "settle": false},
    {"agent": "A", "op": "query", "id": "q"}])";
  RunOutcome one = replay(steps), two = replay(steps);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_FALSE(first_difference(one.result().log, two.result().log).has_value());
  EXPECT_EQ(one.result().choices, two.result().choices);
  EXPECT_FALSE(one.result().choices.empty());
}

}  // namespace
}  // namespace lockstep
