// lockstep check on a world split into the parts that run independently (check::Options::split,
// check/README.md "Parts"): which agents make a part, the trace each part is searched on, and
// verdicts the parts decide.
#include <gtest/gtest.h>

#include <algorithm>

#include "fixture_pair.h"
#include "lockstep/check.h"
#include "lockstep/render.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

Agent agent(const std::string& id, const std::string& partition, const std::string& loop = "") {
  Agent a;
  a.id = id;
  a.origin = "https://a.test";
  a.partition = partition;
  a.event_loop = loop.empty() ? id : loop;
  return a;
}

Action step(Op op, const std::string& agent_id, bool settle = true) {
  Action a;
  a.op = op;
  a.agent = agent_id;
  a.settle = settle;
  a.pointer = "/steps/x";
  return a;
}

Action advance_time() {
  Action a = step(Op::AdvanceTime, "");
  a.ms = 5;
  return a;
}

// The fixture's trace, and its log in `log`; both empty after a failure.
Trace read_pair(const std::string& path, Log& log) {
  auto fixture = testing::read_fixture_pair(path);
  if (!fixture) return Trace{};
  log = std::move(fixture->log);
  return std::move(fixture->trace);
}

using Parts = std::vector<std::vector<std::string>>;

TEST(Parts, AgentsShareAPartThroughAPartitionOrAnEventLoop) {
  Trace trace;
  trace.agents = {agent("A", "p1"),      agent("B", "p1"),     agent("C", "p2", "L"),
                  agent("D", "p3", "L"), agent("E", "p4"),     agent("F", "p5", "M"),
                  agent("G", "p4", "N"), agent("H", "p6", "M")};
  EXPECT_EQ(independent_parts(trace), (Parts{{"A", "B"}, {"C", "D"}, {"E", "G"}, {"F", "H"}}));
}

// I-4: advanceTime settles at every instant a timer fires, so work one part left pending would
// run at another part's instants: one part then.
TEST(Parts, TheClockJoinsEveryAgentWhereWorkMayBePendingAtAnInstant) {
  Trace trace;
  trace.agents = {agent("A", "p1"), agent("B", "p2")};
  // An advanceTime first, or after a step that settles, has nothing pending.
  trace.steps = {advance_time(), step(Op::Run, "A", false), step(Op::Run, "B"), advance_time()};
  EXPECT_EQ(independent_parts(trace).size(), 2u);

  Trace unsettled = trace;  // advanceTime after a "settle": false step
  unsettled.steps[2].settle = false;
  EXPECT_EQ(independent_parts(unsettled), (Parts{{"A", "B"}}));

  Trace idle = trace;  // idle callbacks, which a settling may put off (I-27)
  idle.steps.push_back(step(Op::RequestIdleCallback, "A"));
  EXPECT_EQ(independent_parts(idle), (Parts{{"A", "B"}}));
  idle.steps.erase(idle.steps.begin() + 3);  // without advanceTime after step 0, two parts again
  EXPECT_EQ(independent_parts(idle).size(), 2u);
}

TEST(Parts, APartsTraceKeepsEveryStepWithTheOtherAgentsStepsEmpty) {
  Trace trace;
  trace.agents = {agent("A", "p1"), agent("B", "p2"), agent("other-parts", "p3")};
  Action request = step(Op::Request, "B", false);
  request.id = "r";
  request.name = "n";
  trace.steps = {step(Op::Run, "A"), request, advance_time(), step(Op::Query, "B")};
  const Trace part = part_trace(trace, {"A"});
  ASSERT_EQ(part.agents.size(), 2u);
  EXPECT_EQ(part.agents[0].id, "A");
  const Agent& placeholder = part.agents[1];
  EXPECT_NE(placeholder.id, "other-parts");  // an agent has that id
  EXPECT_EQ(placeholder.origin, "opaque");
  EXPECT_EQ(placeholder.partition, placeholder.id);
  EXPECT_EQ(placeholder.event_loop, placeholder.id);
  ASSERT_EQ(part.steps.size(), trace.steps.size());  // steps keep their numbers
  EXPECT_EQ(part.steps[0].op, Op::Run);
  EXPECT_EQ(part.steps[0].agent, "A");
  EXPECT_EQ(part.steps[1].op, Op::Run);  // B's request, emptied
  EXPECT_EQ(part.steps[1].agent, placeholder.id);
  EXPECT_FALSE(part.steps[1].settle);  // and settling as it did
  EXPECT_TRUE(part.steps[1].body.empty());
  EXPECT_EQ(part.steps[2].op, Op::AdvanceTime);  // the clock is the world's
  EXPECT_EQ(part.steps[2].ms, 5u);
  EXPECT_EQ(part.steps[3].agent, placeholder.id);
  EXPECT_TRUE(part.steps[3].settle);
}

// The property SplittingDecidesAsTheWholeSearch found it: at 1,000 replays per search the whole
// world is unknown, while each part is allowed within a few and their schedules merge.
TEST(CheckSplit, ThePartsDecideALogTheWholeWorldsSearchLeavesUnknown) {
  Log log;
  const Trace trace = read_pair("/tests/check/two-partitions-decided-by-parts", log);
  Options options;
  options.max_runs = 1'000;
  options.split = Split::Never;
  const auto whole = check(trace, log, options);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->verdict, Verdict::Unknown);
  EXPECT_TRUE(whole->parts.empty());

  options.split = Split::WhenUnknown;  // the default
  const auto split = check(trace, log, options);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->verdict, Verdict::Allowed);
  EXPECT_TRUE(split->decided_by_parts);
  EXPECT_FALSE(split->runs_ran_out);
  ASSERT_EQ(split->parts.size(), 2u);
  EXPECT_EQ(split->parts[0].agents, (std::vector<std::string>{"A", "D"}));
  EXPECT_EQ(split->parts[1].agents, (std::vector<std::string>{"B", "C"}));
  for (const PartSearch& p : split->parts) EXPECT_EQ(p.verdict, Verdict::Allowed);
  EXPECT_EQ(split->parts[0].observed_events + split->parts[1].observed_events, log.events.size());
  // The whole world's searches are listed and counted too.
  ASSERT_EQ(split->searches.size(), whole->searches.size());
  EXPECT_GT(split->runs, whole->runs + split->parts[0].runs + split->parts[1].runs);
  // The merged schedule, pinned under the readings reported, replays the log on the model.
  Trace pinned = trace;
  pinned.schedule = split->schedule;
  pinned.readings = split->readings;
  const RunOutcome replayed = make_spec_engine()->run(pinned, {});
  ASSERT_TRUE(replayed.ok()) << replayed.failure().error.to_string();
  EXPECT_TRUE(same_observations(trace, replayed.result().log, log));
  const std::string json = to_json(split.value(), trace.name);
  EXPECT_NE(json.find("\"decidedByParts\": true"), std::string::npos);
  EXPECT_NE(to_text(split.value(), trace.name).find("decided by the parts"), std::string::npos);
}

// Agent P has a partition of its own: a wrong step number on its one event is ruled out by its
// part's search, whose divergence names the part and the event's place in the whole log.
TEST(CheckSplit, APartWhoseLogIsNotAllowedRulesOutTheWholeLog) {
  Log log;
  const Trace trace =
      read_pair("/traces/corpus/web-locks/example-isolation-partitions-origins-opaque", log);
  ASSERT_EQ(log.events.at(1).agent, "P");
  log.events[1].step = 0;
  for (Split split : {Split::First, Split::Never}) {
    const auto report = check(trace, log, Options{.split = split});
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->verdict, Verdict::NotAllowed);
    ASSERT_TRUE(report->divergence && report->divergence->observed);
    EXPECT_EQ(report->divergence->agent, "P");
    EXPECT_EQ(report->divergence->log_index, 1u);
    EXPECT_EQ(*report->divergence->observed, log.events[1]);
    if (split == Split::Never) {
      EXPECT_FALSE(report->decided_by_parts);
      EXPECT_TRUE(report->divergence->part.empty());
      continue;
    }
    EXPECT_TRUE(report->decided_by_parts);
    EXPECT_EQ(report->divergence->part, (std::vector<std::string>{"P"}));
    ASSERT_EQ(report->parts.size(), 2u);
    EXPECT_EQ(report->parts[0].verdict, Verdict::Allowed);  // A, O, X
    EXPECT_EQ(report->parts[1].verdict, Verdict::NotAllowed);
    // Its schedule replays the part's trace, where P's one event comes in step 1: at step 0 the
    // model logs nothing more for P.
    EXPECT_TRUE(report->divergence->model_could_stop);
    Trace pinned = part_trace(trace, report->divergence->part);
    pinned.schedule = report->divergence->schedule;
    const RunOutcome replayed = make_spec_engine()->run(pinned, {});
    ASSERT_TRUE(replayed.ok());
    const auto p_event =
        std::find_if(replayed.result().log.events.begin(), replayed.result().log.events.end(),
                     [](const Event& e) { return e.agent == "P"; });
    ASSERT_NE(p_event, replayed.result().log.events.end());
    EXPECT_EQ(p_event->step, 1);
    Event moved = *p_event;
    moved.step = 0;
    EXPECT_EQ(moved, log.events[1]);
  }
}

// Under the default, a whole world's search that ends unknown is followed by the parts': here the
// part of A, B and C rules out a log that lacks one of A's events.
TEST(CheckSplit, APartRulesOutALogTheWholeWorldsSearchLeavesUnknown) {
  Log log;
  const Trace trace = read_pair("/tests/check/two-partitions-ruled-out-by-a-part", log);
  Options options;
  options.max_runs = 200;
  options.split = Split::Never;
  const auto whole = check(trace, log, options);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->verdict, Verdict::Unknown);
  options.split = Split::WhenUnknown;
  const auto split = check(trace, log, options);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->verdict, Verdict::NotAllowed);
  EXPECT_TRUE(split->decided_by_parts);
  EXPECT_FALSE(split->runs_ran_out);
  ASSERT_EQ(split->parts.size(), 2u);
  EXPECT_EQ(split->parts[0].agents, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(split->parts[0].verdict, Verdict::NotAllowed);
  EXPECT_FALSE(split->parts[1].searched);  // D's: the first part decided
  ASSERT_TRUE(split->divergence && split->divergence->observed);
  EXPECT_EQ(split->divergence->agent, "A");
  EXPECT_EQ(split->divergence->log_index, 0u);
  EXPECT_EQ(split->divergence->part, split->parts[0].agents);
  EXPECT_FALSE(split->divergence->spec_steps.empty());
  EXPECT_EQ(split->searches.size(), whole->searches.size());  // the whole world's, listed
  EXPECT_EQ(split->readings_searched, whole->readings_searched);
  EXPECT_NE(to_text(split.value(), trace.name).find("agents D: not searched"), std::string::npos);
}

// render --log draws a divergence one part's search found on that part's trace, which its
// schedule replays: the timeline has no unit of the other part's agents (A's event loop), and
// the trace drawn has the window that stands in for them.
TEST(CheckSplit, RenderDrawsAPartsDivergenceOnThePartsTrace) {
  Log log;
  const Trace trace =
      read_pair("/traces/corpus/web-locks/example-isolation-partitions-origins-opaque", log);
  log.events.at(1).step = 0;
  render::Options options;
  options.observed = &log;
  options.check.split = Split::First;
  const auto page = render::render_page(trace, options);
  ASSERT_TRUE(page.ok()) << page.error().to_string();
  EXPECT_EQ(page->find("loop:A/web-locks"), std::string::npos);
  EXPECT_NE(page->find("other-parts"), std::string::npos);  // the part's trace's own window
  options.check.split = Split::Never;
  const auto whole = render::render_page(trace, options);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(whole->find("loop:A/web-locks"), std::string::npos);
}

TEST(CheckSplit, OnlyAWorldOfSeveralPartsUnderTheNormativeProfileIsSplit) {
  Log log;
  const Trace isolation =
      read_pair("/traces/corpus/web-locks/example-isolation-partitions-origins-opaque", log);
  const auto split = check(isolation, log, Options{.split = Split::First});
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->verdict, Verdict::Allowed);
  EXPECT_EQ(split->parts.size(), 2u);
  for (const Options& options : {Options{.profile = Profile::Intent, .split = Split::First},
                                 Options{.partial = true, .split = Split::First}}) {
    const auto whole = check(isolation, log, options);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->verdict, Verdict::Allowed);
    EXPECT_TRUE(whole->parts.empty());
  }
  Log one_log;
  const Trace one_partition = read_pair("/traces/corpus/web-locks/fifo-per-name", one_log);
  const auto whole = check(one_partition, one_log, Options{.split = Split::First});
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->parts.empty());
}

}  // namespace
}  // namespace lockstep::check
