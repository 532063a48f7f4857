// lockstep check: the corpus's expected logs are allowed; deliberately corrupted logs are not, and
// the report names the event no schedule explains and what the model logged there instead.
#include "lockstep/check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "fixture_pair.h"
#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "runner/trace_runner.h"

namespace lockstep::check {
namespace {

const std::string kCorpus = std::string(LOCKSTEP_SOURCE_DIR) + "/traces/corpus/";

using Case = testing::FixturePair;

// An empty case, after a failure, when the corpus has no such pair.
Case corpus_case(const std::string& name) {
  return testing::read_fixture_pair("/traces/corpus/" + name).value_or(Case{});
}

Report check_ok(const Case& c, const Options& options) {
  auto report = check(c.trace, c.log, options);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().to_string());
  return report.ok() ? report.value() : Report{};
}

Report check_ok(const Case& c, Profile profile = Profile::Normative) {
  return check_ok(c, Options{.profile = profile});
}

bool instead_has(const Report& r, const std::string& event, const std::string& key,
                 const std::string& value) {
  if (!r.divergence) return false;
  return std::any_of(
      r.divergence->instead.begin(), r.divergence->instead.end(), [&](const Event& e) {
        const Value* v = e.member(key);
        return e.event == event && v && v->kind() == Value::Kind::String && v->as_string() == value;
      });
}

// Calls f(name) for every trace of the corpus ("web-locks/fifo-per-name"); returns how many.
template <class F>
int for_each_corpus_trace(F&& f) {
  int count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kCorpus)) {
    const std::string path = entry.path().string();
    if (path.size() < 11 || path.substr(path.size() - 11) != ".trace.json") continue;
    f(path.substr(kCorpus.size(),
                  path.size() - kCorpus.size() - std::string(".trace.json").size()));
    ++count;
  }
  return count;
}

// JUnit reports carry trace names and adapter messages: markup is escaped, and the control
// characters XML 1.0 forbids become U+FFFD rather than make the report unreadable.
TEST(Check, XmlEscapeKeepsReportsWellFormed) {
  EXPECT_EQ(check::xml_escape("a\x01<b>&\"'\x1b[0m\tc\n"),
            "a\xEF\xBF\xBD&lt;b&gt;&amp;&quot;&apos;\xEF\xBF\xBD[0m\tc\n");
  EXPECT_EQ(check::xml_escape("caf\xC3\xA9"), "caf\xC3\xA9");  // UTF-8 as it is
}

TEST(Check, EveryCorpusLogIsAllowedUnderBothProfiles) {
  const int checked = for_each_corpus_trace([](const std::string& name) {
    const Case c = corpus_case(name);
    EXPECT_EQ(check_ok(c).verdict, Verdict::Allowed) << name;
    EXPECT_EQ(check_ok(c, Profile::Intent).verdict, Verdict::Allowed) << name;
  });
  EXPECT_GE(checked, 50);
}

// I-24: the two readings of when a released promise resolves. Each corpus trace's log is allowed
// under the trace's own reading; the note's log of fifo-per-name (which Chromium and Firefox write)
// is allowed for the trace that keeps the default, and the report says under which reading.
TEST(Check, EveryReadingIsSearchedAndTheOneThatExplainsTheLogIsReported) {
  const Case steps = corpus_case("web-locks/fifo-per-name");
  const Case note = corpus_case("web-locks/fifo-per-name-note-reading");
  ASSERT_NE(steps.log.events, note.log.events);
  const Report own = check_ok(steps);
  EXPECT_EQ(own.verdict, Verdict::Allowed);
  EXPECT_EQ(own.readings.released_promise, ReleasedPromiseReading::Steps);
  EXPECT_EQ(own.readings_searched, 1u);
  const Report other = check_ok(Case{steps.trace, note.log});
  EXPECT_EQ(other.verdict, Verdict::Allowed);
  EXPECT_EQ(other.readings.released_promise, ReleasedPromiseReading::Note);
  EXPECT_EQ(other.readings_searched, 2u);
  EXPECT_NE(to_text(other, "t").find("{\"released-promise\": \"note\"}"), std::string::npos);
  // Each combination searched is listed: the trace's own did not explain the log, the note's did.
  ASSERT_EQ(other.searches.size(), 2u);
  EXPECT_EQ(other.searches[0].readings, steps.trace.readings);
  EXPECT_EQ(other.searches[0].verdict, Verdict::NotAllowed);
  EXPECT_LT(other.searches[0].matched, note.log.events.size());
  EXPECT_EQ(other.searches[1].readings, other.readings);
  EXPECT_EQ(other.searches[1].verdict, Verdict::Allowed);
  EXPECT_EQ(other.searches[1].matched, note.log.events.size());
  EXPECT_EQ(other.searches[0].runs + other.searches[1].runs, other.runs);
  EXPECT_EQ(other.searches[0].model_runs + other.searches[1].model_runs, other.model_runs);
  EXPECT_EQ(other.searches[0].choice_points + other.searches[1].choice_points, other.choice_points);
  const std::string text = to_text(other, "t");
  EXPECT_NE(text.find("readings searched, in order:\n  the defaults: not allowed, " +
                      std::to_string(other.searches[0].matched) + " of " +
                      std::to_string(note.log.events.size()) + " events explained"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  {\"released-promise\": \"note\"}: allowed ("), std::string::npos) << text;
  EXPECT_NE(to_json(other, "t").find("\"searches\": ["), std::string::npos);
  ASSERT_EQ(own.searches.size(), 1u);
  EXPECT_EQ(to_text(own, "t").find("readings searched"), std::string::npos);
  // And the other way round: the trace that pins the note's reading allows the steps' log.
  EXPECT_EQ(check_ok(Case{note.trace, steps.log}).readings.released_promise,
            ReleasedPromiseReading::Steps);
}

TEST(Check, ALogNoReadingExplainsIsNotAllowedAfterSearchingBoth) {
  Case c = corpus_case("web-locks/fifo-per-name");
  // r1's promise settled after r3's callback: neither reading delays it that long.
  std::swap(c.log.events[2], c.log.events[3]);
  std::swap(c.log.events[3], c.log.events[4]);
  const Report r = check_ok(c);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  EXPECT_EQ(r.readings_searched, 2u);
  ASSERT_TRUE(r.divergence);
  // Both combinations ruled it out; the one reported got furthest (the first on a tie).
  ASSERT_EQ(r.searches.size(), 2u);
  for (const ReadingSearch& s : r.searches) {
    EXPECT_EQ(s.verdict, Verdict::NotAllowed);
    EXPECT_LE(s.matched, r.divergence->matched);
    EXPECT_GT(s.runs, 0u);
  }
  const std::size_t furthest = r.searches[1].matched > r.searches[0].matched ? 1 : 0;
  EXPECT_EQ(r.searches[furthest].readings, r.readings);
}

// A trace without a lock request has nothing the released promise's readings change, and one
// without the scheduler nothing the stale removal's change.
TEST(Check, OnlyTheReadingsATraceCanTellApartAreSearched) {
  Case scheduling = corpus_case("scheduling/order-by-priority");
  scheduling.log.events.pop_back();  // not allowed: every reading is searched
  EXPECT_EQ(check_ok(scheduling).readings_searched, 2u);
  Case locks = corpus_case("web-locks/fifo-per-name");
  locks.log.events.pop_back();
  EXPECT_EQ(check_ok(locks).readings_searched, 2u);
  Case both = corpus_case("scheduling/meet-lock-callback-yield-is-user-visible");
  both.log.events.pop_back();
  EXPECT_EQ(check_ok(both).readings_searched, 4u);
}

// I-25: the stale removal's fixed reading, which Chromium and Firefox follow, explains their log
// of the literal trace, and the literal trace's log stays allowed.
TEST(Check, TheStaleRemovalsFixedReadingIsSearched) {
  const Case literal = corpus_case("scheduling/spec-issue-stale-removal-strands-task");
  const Case fixed = corpus_case("scheduling/spec-issue-stale-removal-fixed-reading");
  ASSERT_NE(literal.log.events, fixed.log.events);
  const Report r = check_ok(Case{literal.trace, fixed.log});
  EXPECT_EQ(r.verdict, Verdict::Allowed);
  EXPECT_EQ(r.readings.stale_removal, StaleRemovalReading::Fixed);
  EXPECT_EQ(check_ok(Case{fixed.trace, literal.log}).readings.stale_removal,
            StaleRemovalReading::Literal);
}

// I-29: a closed window's promise job runs under one reading and not the other. Each corpus
// trace's log is allowed whichever reading the trace picks, the report naming the one that
// explains it; the reading matters only where a window that shares its event loop closes.
TEST(Check, TheClosedWindowsJobsAreSearchedUnderBothReadings) {
  const Case dropped = corpus_case("web-locks/reactions-belong-to-the-agent-that-attached-them");
  const Case run = corpus_case("web-locks/closed-window-jobs-run-reading");
  ASSERT_NE(dropped.log.events, run.log.events);
  EXPECT_EQ(dropped.trace.readings.closed_window_jobs, ClosedWindowJobsReading::Dropped);
  const Report ran = check_ok(Case{dropped.trace, run.log});
  EXPECT_EQ(ran.verdict, Verdict::Allowed);
  EXPECT_EQ(ran.readings.closed_window_jobs, ClosedWindowJobsReading::Run);
  const Report stayed = check_ok(Case{run.trace, dropped.log});
  EXPECT_EQ(stayed.verdict, Verdict::Allowed);
  EXPECT_EQ(stayed.readings.closed_window_jobs, ClosedWindowJobsReading::Dropped);
  // The closed window's job, run, may not take a lock: its document is not fully active.
  auto granted = read_log(R"({"format": "lockstep-log", "version": 1, "events": [
    {"step": 3, "agent": "C", "event": "mark", "label": "c-after-g"},
    {"step": 3, "agent": "C", "event": "callback", "request": "r1",
     "lock": {"name": "res", "mode": "exclusive"}},
    {"step": 4, "agent": "B", "event": "settled", "target": "q1", "state": "fulfilled",
     "value": {"held": [{"name": "res", "mode": "exclusive", "clientId": "C"}], "pending": []}},
    {"step": 8, "agent": "E", "event": "mark", "label": "e-after-h"}]})");
  ASSERT_TRUE(granted.ok()) << granted.error().to_string();
  EXPECT_EQ(check_ok(Case{dropped.trace, granted.value()}).verdict, Verdict::NotAllowed);
  EXPECT_TRUE(dropped.trace.closes_a_window_on_a_shared_event_loop());
  EXPECT_FALSE(
      corpus_case("web-locks/basic-exclusive").trace.closes_a_window_on_a_shared_event_loop());
}

// I-26: a log in which queued work ran before the next step (Chromium's callback before the abort
// of the next step) is allowed after the rounds without it, with the early units as pins; the
// same log with the abort rejecting the request is explained without any.
TEST(Check, QueuedWorkBeforeTheNextStepIsSearchedAfterTheRest) {
  Case c = corpus_case("web-locks/abort-race-before-grant-steps");
  const Case early = corpus_case("web-locks/abort-race-grant-before-next-step");
  c.log = early.log;  // the order the other trace pins, observed without its schedule
  const Report report = check_ok(c);
  EXPECT_EQ(report.verdict, Verdict::Allowed);
  EXPECT_GT(report.runs, 1u);  // not the canonical schedule
  EXPECT_TRUE(std::any_of(report.schedule.begin(), report.schedule.end(), [](const auto& pin) {
    return pin.rfind("early:", 0) == 0;
  })) << "schedule without an early unit";
  const Case plain = corpus_case("web-locks/abort-race-before-grant-steps");
  const Report canonical = check_ok(plain);
  EXPECT_EQ(canonical.verdict, Verdict::Allowed);
  EXPECT_TRUE(std::none_of(canonical.schedule.begin(), canonical.schedule.end(),
                           [](const auto& pin) { return pin.rfind("early:", 0) == 0; }));
}

// I-27: a browser that never starts the idle period (Chromium, in a frame of the second origin) is
// allowed under both profiles, the idle period put off at every settling; with the callback's
// events stamped one step late it is allowed too.
TEST(Check, IdlePeriodsPutOffAreSearched) {
  Case c = corpus_case("scheduling/idle-period-put-off");
  c.trace.schedule.clear();
  for (const Profile profile : {Profile::Normative, Profile::Intent}) {
    Case never = c;
    never.log.events.resize(1);  // the mark of step 1 alone
    const Report report = check_ok(never, profile);
    EXPECT_EQ(report.verdict, Verdict::Allowed);
    EXPECT_EQ(std::count(report.schedule.begin(), report.schedule.end(), "settled"), 3)
        << "step 0's, step 1's and the final settling";
    const Report later = check_ok(c, profile);  // the corpus log, its schedule not given
    EXPECT_EQ(later.verdict, Verdict::Allowed);
    EXPECT_EQ(later.schedule, std::vector<std::string>{"settled"});
  }
  Case wrong = c;  // the idle callback logged twice: no putting off explains that
  wrong.log.events.push_back(wrong.log.events[1]);
  EXPECT_EQ(check_ok(wrong).verdict, Verdict::NotAllowed);
}

// The search on the impl engine (Options::impl_first) gives the model's answers: on every corpus
// log, and on each with its last event dropped (which only the model can explain as a
// divergence), the verdict, schedule and divergence of the model alone. It makes as many replays
// and meets as many choice points as the model's search: a log the canonical schedule explains
// takes one impl replay; one the search explains, the model's number of replays and one
// confirming model replay; any other, the model's replays twice (once on each engine, the
// model's giving the verdict).
TEST(Check, TheImplEngineFirstGivesTheModelsAnswers) {
  Options model_only;
  model_only.impl_first = false;
  const int checked = for_each_corpus_trace([&](const std::string& name) {
    Case c = corpus_case(name);
    for (int corrupted = 0; corrupted < 2; ++corrupted) {
      if (corrupted) {
        if (c.log.events.empty()) break;
        c.log.events.pop_back();
      }
      auto fast = check(c.trace, c.log, {});
      auto slow = check(c.trace, c.log, model_only);
      ASSERT_TRUE(fast.ok() && slow.ok()) << name;
      EXPECT_EQ(fast->verdict, slow->verdict) << name << (corrupted ? " (corrupted)" : "");
      EXPECT_EQ(fast->schedule, slow->schedule) << name;
      if (fast->model_runs == 0) {  // the canonical schedule on the impl engine
        EXPECT_EQ(fast->runs, 1u) << name;
        EXPECT_EQ(slow->runs, 1u) << name;
        EXPECT_EQ(fast->choice_points, slow->choice_points) << name;
      } else if (fast->verdict == Verdict::Allowed) {  // searched on impl, confirmed by the model
        EXPECT_EQ(fast->model_runs, 1u) << name;
        EXPECT_EQ(fast->runs, slow->runs + 1) << name;
        EXPECT_EQ(fast->choice_points, slow->choice_points) << name;
      } else {  // searched on both: the log is one the model's search does not explain either
        EXPECT_NE(fast->verdict, Verdict::Allowed) << name;
        EXPECT_EQ(fast->model_runs, slow->runs) << name;
        EXPECT_EQ(fast->runs, 2 * slow->runs) << name;
        EXPECT_EQ(fast->choice_points, 2 * slow->choice_points) << name;
      }
      ASSERT_EQ(fast->divergence.has_value(), slow->divergence.has_value()) << name;
      if (fast->divergence) {
        EXPECT_EQ(fast->divergence->agent, slow->divergence->agent) << name;
        EXPECT_EQ(fast->divergence->agent_index, slow->divergence->agent_index) << name;
        EXPECT_EQ(fast->divergence->instead, slow->divergence->instead) << name;
      }
    }
  });
  EXPECT_GE(checked, 50);
}

TEST(Check, EventsSwappedWithinAnAgentAreNotAllowed) {
  Case c = corpus_case("web-locks/abort-non-head-request");
  std::swap(c.log.events[1], c.log.events[2]);  // the query's result before r2's rejection
  const Report r = check_ok(c);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->log_index, 1u);
  EXPECT_EQ(r.divergence->matched, 1u);
  EXPECT_TRUE(instead_has(r, "settled", "target", "r2"));
}

TEST(Check, AWrongErrorNameIsNotAllowed) {
  Case c = corpus_case("web-locks/signal-already-aborted");
  Event& rejected = c.log.events[1];
  ASSERT_EQ(rejected.member("target")->as_string(), "r2");
  for (auto& [key, value] : rejected.members)
    if (key == "reason") value = Value::dom_exception("NotAllowedError");
  const Report r = check_ok(c);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->log_index, 1u);
  ASSERT_EQ(r.divergence->instead.size(), 1u);
  EXPECT_EQ(*r.divergence->instead[0].member("reason"), Value::dom_exception("AbortError"));
  // Among the steps of the unit that logged the rejection: request() step 9, which rejects a
  // request whose signal is aborted already. Each step named once, in order.
  // A log ruled out is searched on the model, which trails the steps.
  EXPECT_TRUE(r.divergence->spec_steps_looked_up);
  const std::vector<std::string>& steps = r.divergence->spec_steps;
  EXPECT_NE(std::find(steps.begin(), steps.end(), "dom-lockmanager-request 9"), steps.end());
  EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
  EXPECT_EQ(std::adjacent_find(steps.begin(), steps.end()), steps.end());
}

TEST(Check, AGrantOutOfFifoOrderWithinAnAgentIsNotAllowed) {
  Case c = corpus_case("web-locks/fifo-per-name");
  // r3 granted where r2 should be, r2 where r3 should be.
  for (std::size_t i : {1u, 3u})
    for (auto& [key, value] : c.log.events[i].members)
      if (key == "request") value = Value::string(value.as_string() == "r2" ? "r3" : "r2");
  const Report r = check_ok(c);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->log_index, 1u);
  EXPECT_TRUE(instead_has(r, "callback", "request", "r2"));
}

// Three agents queue on one name; the observed log grants C's request when A releases, ahead of
// B's older one. Per agent each sequence looks plausible; the step numbers give it away.
TEST(Check, AGrantOutOfFifoOrderAcrossAgentsIsNotAllowed) {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
               {"id": "B", "kind": "window", "origin": "https://a.test"},
               {"id": "C", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "A", "op": "request", "id": "r1", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "B", "op": "request", "id": "r2", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "C", "op": "request", "id": "r3", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "A", "op": "settle", "target": "r1", "outcome": "fulfill", "value": 1},
      {"agent": "B", "op": "settle", "target": "r2", "outcome": "fulfill", "value": 2},
      {"agent": "C", "op": "settle", "target": "r3", "outcome": "fulfill", "value": 3}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  auto fair = read_log(R"({"format": "lockstep-log", "version": 1, "events": [
    {"step": 0, "agent": "A", "event": "callback", "request": "r1", "lock": {"name": "res", "mode": "exclusive"}},
    {"step": 3, "agent": "B", "event": "callback", "request": "r2", "lock": {"name": "res", "mode": "exclusive"}},
    {"step": 3, "agent": "A", "event": "settled", "target": "r1", "state": "fulfilled", "value": 1},
    {"step": 4, "agent": "C", "event": "callback", "request": "r3", "lock": {"name": "res", "mode": "exclusive"}},
    {"step": 4, "agent": "B", "event": "settled", "target": "r2", "state": "fulfilled", "value": 2},
    {"step": 5, "agent": "C", "event": "settled", "target": "r3", "state": "fulfilled", "value": 3}]})");
  ASSERT_TRUE(fair.ok()) << fair.error().to_string();
  EXPECT_EQ(check_ok(Case{trace.value(), fair.value()}).verdict, Verdict::Allowed);
  Log unfair = fair.value();
  unfair.events[1].step = 4;  // B granted only after C
  unfair.events[3].step = 3;  // C granted when A releases
  const Report r = check_ok(Case{trace.value(), unfair});
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  ASSERT_TRUE(r.divergence->observed);
  EXPECT_EQ(r.divergence->observed->member("request")->as_string(), "r2");
  EXPECT_TRUE(instead_has(r, "callback", "request", "r2"));
}

// The divergence's schedule, pinned, replays the run that got furthest: the diverging agent's
// events match the observed ones up to the divergence, and its next event is one of `instead`.
void expect_schedule_replays_the_divergence(const Case& c, const Report& r) {
  ASSERT_TRUE(r.divergence);
  const Divergence& d = *r.divergence;
  Trace pinned = c.trace;
  pinned.schedule = d.schedule;
  RunOutcome outcome = make_spec_engine()->run(pinned, RunOptions{});
  ASSERT_TRUE(outcome.ok()) << outcome.failure().error.to_string();
  std::vector<std::string> model, observed;
  for (const Event& e : outcome.result().log.events)
    if (e.agent == d.agent) model.push_back(write_event(e));
  for (const Event& e : c.log.events)
    if (e.agent == d.agent) observed.push_back(write_event(e));
  ASSERT_GE(model.size(), d.agent_index);
  for (std::size_t i = 0; i < d.agent_index; ++i) EXPECT_EQ(model[i], observed[i]) << i;
  if (model.size() == d.agent_index) {
    EXPECT_TRUE(d.model_could_stop);
    return;
  }
  const bool listed = std::any_of(d.instead.begin(), d.instead.end(), [&](const Event& e) {
    return write_event(e) == model[d.agent_index];
  });
  EXPECT_TRUE(listed) << model[d.agent_index];
}

TEST(Check, TheDivergenceScheduleReplaysTheRunThatGotFurthest) {
  Case c = corpus_case("web-locks/abort-non-head-request");
  std::swap(c.log.events[1], c.log.events[2]);
  expect_schedule_replays_the_divergence(c, check_ok(c));

  // A's lock callback task and its scheduler tasks race on A's event loop. The log of a run that
  // takes a unit other than the canonical one at every choice point runs the callback first; with
  // its last event moved to a step it cannot belong to, the run that gets furthest must leave the
  // canonical policy, and its schedule says how.
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "A", "op": "postTask", "id": "t1", "settle": false},
      {"agent": "A", "op": "request", "id": "r1", "name": "res", "settle": false},
      {"agent": "A", "op": "postTask", "id": "t2"}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  Case off{trace.value(), {}};
  spec::TraceRunner runner(off.trace);
  runner.world().set_chooser([](const spec::World::ChoicePoint& point) {
    return point.canonical == 0 ? point.names.size() - 1 : 0;
  });
  off.log = runner.run().log;
  Options canonical_only;
  canonical_only.max_runs = 1;
  ASSERT_EQ(check(off.trace, off.log, canonical_only)->verdict, Verdict::Unknown);
  off.log.events.back().step += 1000;
  const Report r = check_ok(off);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_FALSE(r.divergence->schedule.empty());
  expect_schedule_replays_the_divergence(off, r);
}

// The log the model makes under `pinned`'s schedule, checked without it: allowed by the search on
// either engine, with `expected` as the schedule, which replays that log on both engines.
Case expect_the_schedule_reported_and_replayed(const std::string& pinned,
                                               const std::vector<std::string>& expected) {
  auto trace = read_trace(pinned);
  EXPECT_TRUE(trace.ok()) << trace.error().to_string();
  if (!trace.ok()) return {};
  RunOutcome observed = make_spec_engine()->run(trace.value(), {});
  EXPECT_TRUE(observed.ok()) << observed.failure().error.to_string();
  if (!observed.ok()) return {};
  Case c{trace.value(), observed.result().log};
  c.trace.schedule.clear();
  for (const bool impl_first : {true, false}) {
    Options options;
    options.impl_first = impl_first;
    const auto report = check(c.trace, c.log, options);
    EXPECT_TRUE(report.ok()) << report.error().to_string();
    if (!report.ok()) continue;
    EXPECT_EQ(report->verdict, Verdict::Allowed);
    EXPECT_EQ(report->schedule, expected) << "impl first: " << impl_first;
    Trace replay = c.trace;
    replay.schedule = report->schedule;
    for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
      RunOutcome replayed = engine->run(replay, {});
      EXPECT_TRUE(replayed.ok()) << replayed.failure().error.to_string();
      if (replayed.ok()) {
        EXPECT_EQ(first_difference(c.log, replayed.result().log), std::nullopt);
      }
    }
  }
  return c;
}

// I-26: a unit that could have gone before step 1 but went only before step 2 is reported with
// the pin "step" before its "early:" pin, which would otherwise be taken before step 1. The same
// holds for the schedule of the run that got furthest on a log no schedule explains.
TEST(Check, AnEarlyUnitThatWaitedPastAStepIsReportedWithAStepPin) {
  const std::vector<std::string> expected{"step", "early:loop:A/scheduler"};
  const Case c =
      expect_the_schedule_reported_and_replayed(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "A", "op": "postTask", "id": "t", "callback": {"body": [{"op": "mark", "label": "task"}]}, "settle": false},
      {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "one"}], "settle": false},
      {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "two"}]}],
    "schedule": ["step", "early:loop:A/scheduler"]})",
                                                expected);
  ASSERT_FALSE(c.log.events.empty());
  Case off = c;  // the last event stamped with a step it cannot belong to
  off.log.events.back().step += 1000;
  const Report r = check_ok(off);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->schedule, expected);
  expect_schedule_replays_the_divergence(off, r);
}

// I-27: idle periods started at step 0's settling and put off at step 1's are reported with the
// pin "idle" before "settled", which would otherwise be taken at step 0's.
TEST(Check, IdlePeriodsPutOffOnlyAtALaterSettlingAreReportedWithAnIdlePin) {
  expect_the_schedule_reported_and_replayed(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "A", "op": "requestIdleCallback", "id": "i"},
      {"agent": "A", "op": "requestIdleCallback", "id": "j"},
      {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "after"}]}],
    "schedule": ["idle", "settled"]})",
                                            {"idle", "settled"});
}

TEST(Check, ATaskRunBelowARunnableHigherPriorityIsNotAllowed) {
  Case c = corpus_case("scheduling/order-by-priority");
  // user-visible's task and result before user-blocking's.
  std::rotate(c.log.events.begin(), c.log.events.begin() + 2, c.log.events.begin() + 4);
  for (Profile profile : {Profile::Normative, Profile::Intent}) {
    const Report r = check_ok(c, profile);
    EXPECT_EQ(r.verdict, Verdict::NotAllowed);
    ASSERT_TRUE(r.divergence);
    EXPECT_EQ(r.divergence->log_index, 0u);
    EXPECT_EQ(r.divergence->observed->member("task")->as_string(), "uv");
    EXPECT_TRUE(instead_has(r, "task", "task", "ub"));
  }
}

TEST(Check, OpaqueClientIdsMapOntoAgentsOneToOne) {
  Case c = corpus_case("web-locks/shared-together");
  const auto rename = [&](const std::string& a, const std::string& b) {
    Case renamed = c;
    Value& snapshot = renamed.log.events[2].members[2].second;
    std::vector<Value::Member> members(snapshot.members().begin(), snapshot.members().end());
    std::vector<Value> held = members[0].second.items();
    std::reverse(held.begin(), held.end());  // held locks come in no particular order
    for (Value& lock : held) {
      std::vector<Value::Member> fields(lock.members().begin(), lock.members().end());
      fields[2].second = Value::string(fields[2].second.as_string() == "A" ? a : b);
      lock = Value::object(fields);
    }
    members[0].second = Value::array(held);
    snapshot = Value::object(members);
    return renamed;
  };
  EXPECT_EQ(check_ok(rename("9f1c-uuid", "77ab-uuid")).verdict, Verdict::Allowed);
  // Two agents cannot be the same client.
  EXPECT_EQ(check_ok(rename("9f1c-uuid", "9f1c-uuid")).verdict, Verdict::NotAllowed);
}

// What the properties compare a reported schedule's replay with: the log as check reads it.
TEST(Check, SameObservationsComparesAsCheckDoes) {
  const Case c = corpus_case("web-locks/shared-together");
  EXPECT_TRUE(same_observations(c.trace, c.log, c.log));
  // Held locks in the other order, as another schedule can list them: the same observations.
  Log reordered = c.log;
  Value& snapshot = reordered.events[2].members[2].second;
  std::vector<Value::Member> members(snapshot.members().begin(), snapshot.members().end());
  std::vector<Value> held = members[0].second.items();
  std::reverse(held.begin(), held.end());
  members[0].second = Value::array(held);
  snapshot = Value::object(members);
  EXPECT_FALSE(reordered.events == c.log.events);
  EXPECT_TRUE(same_observations(c.trace, reordered, c.log));
  // Another agent's event in between: the order between agents is free.
  Log interleaved = c.log;
  std::swap(interleaved.events[1], interleaved.events[2]);  // B's callback, A's query
  EXPECT_TRUE(same_observations(c.trace, interleaved, c.log));
  // One agent's own events swapped, a value changed, a step changed, an event missing: not.
  Log swapped = c.log;
  std::swap(swapped.events[0], swapped.events[3]);  // A's callback and A's settlement
  EXPECT_FALSE(same_observations(c.trace, swapped, c.log));
  Log other_value = c.log;
  other_value.events[3].members[2].second = Value::number(7);
  EXPECT_FALSE(same_observations(c.trace, other_value, c.log));
  Log other_step = c.log;
  other_step.events[4].step = 3;
  EXPECT_FALSE(same_observations(c.trace, other_step, c.log));
  EXPECT_TRUE(same_observations(c.trace, other_step, c.log, /*compare_steps=*/false));
  Log shorter = c.log;
  shorter.events.pop_back();
  EXPECT_FALSE(same_observations(c.trace, shorter, c.log));
  EXPECT_FALSE(same_observations(c.trace, c.log, shorter));
}

TEST(Check, AnEventOfAnAgentTheTraceLacksIsBadInput) {
  Case c = corpus_case("web-locks/basic-exclusive");
  c.log.events[0].agent = "Z";
  auto report = check(c.trace, c.log, Options{});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().pointer, "/events/0/agent");
}

TEST(Check, AMissingEventIsNamedWithWhatTheModelLogsInstead) {
  Case c = corpus_case("web-locks/fifo-per-name");
  c.log.events.pop_back();  // r3's settlement never observed
  const Report r = check_ok(c);
  EXPECT_EQ(r.verdict, Verdict::NotAllowed);
  ASSERT_TRUE(r.divergence);
  EXPECT_FALSE(r.divergence->observed);  // the observed log ran out
  EXPECT_TRUE(instead_has(r, "settled", "target", "r3"));
}

// A worker terminated while it holds a lock: a target may lose what the worker logged. With
// --partial its missing events are assumed unobservable, and the report says so; without, the
// log is incomplete.
TEST(Check, PartialLogsOfTerminatedAgentsAreAllowedWithTheAssumptionStated) {
  auto trace = read_trace(R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "W", "kind": "worker", "origin": "https://a.test"},
               {"id": "A", "kind": "window", "origin": "https://a.test"}],
    "steps": [
      {"agent": "W", "op": "request", "id": "r1", "name": "res", "callback": {"result": {"pending": true}}},
      {"agent": "A", "op": "request", "id": "r2", "name": "res", "callback": {"result": {"return": 2}}},
      {"agent": "W", "op": "terminate"}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  auto full = make_spec_engine()->run(trace.value(), {});
  ASSERT_TRUE(full.ok());
  Log partial = full.result().log;
  const auto before = partial.events.size();
  std::erase_if(partial.events, [](const Event& e) { return e.agent == "W"; });
  ASSERT_LT(partial.events.size(), before);
  EXPECT_EQ(check_ok(Case{trace.value(), partial}).verdict, Verdict::NotAllowed);
  Options options;
  options.partial = true;
  auto report = check(trace.value(), partial, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->verdict, Verdict::Allowed);
  ASSERT_EQ(report->assumptions.size(), 1u);
  EXPECT_NE(report->assumptions[0].find("agent W"), std::string::npos);
  // --partial does not excuse an agent that is never terminated.
  Log missing_a = full.result().log;
  std::erase_if(missing_a.events, [](const Event& e) { return e.agent == "A"; });
  EXPECT_EQ(check(trace.value(), missing_a, options)->verdict, Verdict::NotAllowed);
}

// Partial-order reduction (check/README.md): schedules that differ only by the order of units that
// commute are searched once, which keeps the verdict and cuts the replays; on this log, which needs
// steps to wait for queued work, by more than ten times.
TEST(Check, SchedulesThatOnlyReorderCommutingUnitsAreSearchedOnce) {
  const auto fixture = testing::read_fixture_pair("/tests/check/commuting-units");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  Options options;
  options.max_runs = 20'000;
  options.impl_first = false;
  auto reduced = check(trace, log, options);
  options.reduce_orders = false;
  options.max_runs = 100'000;  // it needs about 17,000
  auto every = check(trace, log, options);
  ASSERT_TRUE(reduced.ok() && every.ok());
  EXPECT_EQ(reduced->verdict, Verdict::Allowed);
  EXPECT_EQ(every->verdict, Verdict::Allowed);
  EXPECT_LT(reduced->runs * 10, every->runs);
  // A log the model cannot give stays not allowed: the reduction only skips equivalent orders.
  Log swapped = log;
  std::swap(swapped.events[0], swapped.events[1]);
  options.reduce_orders = true;
  options.max_runs = 20'000;
  auto rejected = check(trace, swapped, options);
  ASSERT_TRUE(rejected.ok());
  EXPECT_EQ(rejected->verdict, Verdict::NotAllowed);
}

// Two event loops of one partition commute where at most one of them enqueued lock steps (what
// each unit did, measured on the replay that ran it). Three windows, two of them on one origin,
// and a log far from the canonical schedule, found by the property
// CheckAllowsEveryLogTheModelProduces at size 100. Taking every two loops of a partition as
// dependent, the search needed 41,148 replays; by what the units did, about 5,300, on either
// engine.
TEST(Check, LoopsOfOnePartitionCommuteUnlessBothEnqueuedLockSteps) {
  const auto fixture = testing::read_fixture_pair("/tests/check/loops-of-one-partition");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  for (const bool impl_first : {true, false}) {
    Options options;
    options.max_runs = 10'000;
    options.impl_first = impl_first;
    auto report = check(trace, log, options);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->verdict, Verdict::Allowed) << "impl first: " << impl_first;
    // The schedule found replays the observed log.
    Trace pinned = trace;
    pinned.schedule = report->schedule;
    auto replayed = make_spec_engine()->run(pinned, {});
    ASSERT_TRUE(replayed.ok());
    EXPECT_TRUE(same_observations(pinned, replayed.result().log, log));
  }
}

// A state reached again by another order of commuting units, whose every schedule failed the first
// time, is not searched again (check/README.md, "States already tried"): the same verdict and
// schedule, in fewer replays (169 against 289 when this was written), on either engine.
TEST(Check, StatesAlreadyTriedAreNotSearchedAgain) {
  const auto fixture = testing::read_fixture_pair("/tests/check/commuting-units");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  for (const bool impl_first : {true, false}) {
    Options options;
    options.impl_first = impl_first;
    const auto caching = check(trace, log, options);
    options.cache_states = false;
    const auto searching = check(trace, log, options);
    ASSERT_TRUE(caching.ok() && searching.ok());
    EXPECT_EQ(caching->verdict, Verdict::Allowed);
    EXPECT_EQ(searching->verdict, Verdict::Allowed);
    EXPECT_EQ(caching->schedule, searching->schedule);
    EXPECT_GT(caching->states_already_tried, 0u);
    EXPECT_EQ(searching->states_already_tried, 0u);
    EXPECT_LT(caching->runs, searching->runs);
    EXPECT_NE(to_json(caching.value(), "t").find("\"statesAlreadyTried\""), std::string::npos);
  }
}

// The cache decides within a budget that the same search spends without it. On this pair (found by
// fuzzing CachedStatesChangeOnlyTheReplays, seed 70015: a worker that steals its own lock on one
// partition, a window's shared requests on another, the window's first callback logged out of
// order) the search with the cache rules the log out; without the cache the same budget runs out,
// and check goes on by parts, where the window's part rules it out with a divergence of its own.
// Given the replays it needs, the search without the cache reaches the divergence the one with the
// cache reports.
TEST(Check, TheCacheDecidesWithinABudgetThatTheSearchWithoutItSpends) {
  const auto fixture = testing::read_fixture_pair("/tests/check/cache-decides-within-the-budget");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  Options options{.max_runs = 2'000, .split = Split::Never};
  const auto caching = check(trace, log, options);
  options.cache_states = false;
  const auto cut = check(trace, log, options);
  options.split = Split::WhenUnknown;
  const auto by_parts = check(trace, log, options);
  options.split = Split::Never;
  options.max_runs = 200'000;
  const auto searching = check(trace, log, options);
  ASSERT_TRUE(caching.ok() && cut.ok() && by_parts.ok() && searching.ok());

  EXPECT_EQ(caching->verdict, Verdict::NotAllowed);
  EXPECT_GT(caching->states_already_tried, 0u);
  EXPECT_EQ(cut->verdict, Verdict::Unknown);
  EXPECT_TRUE(cut->runs_ran_out);
  EXPECT_EQ(by_parts->verdict, Verdict::NotAllowed);
  ASSERT_TRUE(by_parts->divergence.has_value());
  EXPECT_EQ(by_parts->divergence->part, std::vector<std::string>{"A"});
  EXPECT_EQ(searching->verdict, Verdict::NotAllowed);
  EXPECT_LT(caching->runs, searching->runs);
  ASSERT_TRUE(caching->divergence.has_value() && searching->divergence.has_value());
  EXPECT_EQ(searching->divergence->log_index, caching->divergence->log_index);
  EXPECT_EQ(searching->divergence->matched, caching->divergence->matched);
  EXPECT_EQ(searching->divergence->instead, caching->divergence->instead);
}

// The rounds of the search (I-26) meet the points of the rounds before them again; their probes
// are answered from the earlier replays. The same search, each reused probe one replay fewer.
TEST(Check, ProbesReusedInLaterRoundsSaveReplaysAndChangeNothingElse) {
  const auto fixture = testing::read_fixture_pair("/tests/check/commuting-units");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  Log swapped = log;  // not allowed: every round searched in full
  std::swap(swapped.events[0], swapped.events[1]);
  for (const Log& observed : {log, swapped}) {
    Options options;
    options.impl_first = false;
    const auto reusing = check(trace, observed, options);
    options.reuse_probes = false;
    const auto replaying = check(trace, observed, options);
    ASSERT_TRUE(reusing.ok() && replaying.ok());
    EXPECT_EQ(reusing->verdict, replaying->verdict);
    EXPECT_EQ(reusing->schedule, replaying->schedule);
    EXPECT_GT(reusing->reused_probes, 0u);
    EXPECT_EQ(replaying->reused_probes, 0u);
    EXPECT_EQ(reusing->runs + reusing->reused_probes, replaying->runs);
    ASSERT_EQ(reusing->divergence.has_value(), replaying->divergence.has_value());
    if (reusing->divergence) {
      EXPECT_EQ(reusing->divergence->log_index, replaying->divergence->log_index);
      EXPECT_EQ(reusing->divergence->matched, replaying->divergence->matched);
      EXPECT_EQ(reusing->divergence->instead, replaying->divergence->instead);
    }
  }
}

TEST(Check, TheBudgetGivesUnknown) {
  Case c = corpus_case("web-locks/example-nested-deadlock");
  c.log.events.pop_back();
  Options options;
  options.max_runs = 1;
  auto report = check(c.trace, c.log, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->verdict, Verdict::Unknown);
  // The report names the budget it spent and how to give a larger one.
  EXPECT_EQ(report->max_runs, 1u);
  EXPECT_NE(to_text(report.value(), "nested")
                .find("budget ran out before every schedule was tried: 1 replay under each "
                      "combination of readings on each engine (--max-runs sets it"),
            std::string::npos);
  EXPECT_NE(to_json(report.value(), "nested").find("\"maxRuns\": 1"), std::string::npos);
}

// Options::max_seconds bounds the whole check in wall-clock time: past it no replay begins and the
// verdict is unknown, with the reports saying it was the time (not the replays) that ran out.
TEST(Check, TheTimeBudgetGivesUnknown) {
  Case c = corpus_case("web-locks/example-nested-deadlock");
  c.log.events.pop_back();
  const Report unlimited = check_ok(c);
  ASSERT_EQ(unlimited.verdict, Verdict::NotAllowed);
  EXPECT_FALSE(unlimited.time_ran_out);
  EXPECT_FALSE(unlimited.runs_ran_out);
  EXPECT_EQ(to_json(unlimited, "nested").find("maxSeconds"), std::string::npos);
  EXPECT_EQ(to_json(unlimited, "nested").find("budgetSpent"), std::string::npos);

  // A budget that passes before the search's first probe.
  const Report report = check_ok(c, Options{.max_seconds = 1e-9});
  EXPECT_EQ(report.verdict, Verdict::Unknown);
  EXPECT_TRUE(report.time_ran_out);
  EXPECT_FALSE(report.runs_ran_out);
  EXPECT_FALSE(report.not_allowed_on_impl);  // cut during the impl engine's search
  // Cut in the first combination of readings: the others are not begun.
  EXPECT_EQ(report.readings_searched, 1u);
  EXPECT_EQ(report.readings_not_searched, unlimited.readings_searched - 1);
  EXPECT_LT(report.runs, unlimited.runs);
  EXPECT_EQ(report.model_runs, 0u);  // neither the model's search nor its look-up of spec steps
  const std::string text = to_text(report, "nested");
  EXPECT_NE(text.find("the time budget ran out before every schedule was tried"),
            std::string::npos);
  EXPECT_EQ(text.find("--max-runs sets it"), std::string::npos);
  const std::string json = to_json(report, "nested");
  EXPECT_NE(json.find("\"budgetSpent\": [\n    \"time\"\n  ]"), std::string::npos);
  EXPECT_NE(json.find("\"maxSeconds\": 1e-09"), std::string::npos);
  EXPECT_NE(to_junit(report, "nested").find("unknown: time budget spent"), std::string::npos);

  // Spent replays say so too.
  const Report out_of_runs = check_ok(c, Options{.max_runs = 1});
  EXPECT_FALSE(out_of_runs.time_ran_out);
  EXPECT_TRUE(out_of_runs.runs_ran_out);
  EXPECT_NE(to_json(out_of_runs, "nested").find("\"budgetSpent\": [\n    \"runs\"\n  ]"),
            std::string::npos);

  // A budget too large for the clock's tick count is no limit, not one already passed.
  const Report huge = check_ok(c, Options{.max_seconds = 1e300});
  EXPECT_EQ(huge.verdict, Verdict::NotAllowed);
  EXPECT_EQ(huge.runs, unlimited.runs);
}

// The replay that may answer at once (the canonical schedule on the impl engine) is made whatever
// the time budget: a log it explains is allowed, not unknown.
TEST(Check, ALogTheCanonicalScheduleExplainsIsAllowedWithinAnyTimeBudget) {
  const Report report =
      check_ok(corpus_case("web-locks/example-nested-deadlock"), Options{.max_seconds = 1e-9});
  EXPECT_EQ(report.verdict, Verdict::Allowed);
  EXPECT_FALSE(report.time_ran_out);
}

// Three loops of one origin that all steal one name, every event in the last step (found by the
// property CheckAllowsEveryLogTheModelProduces, seed 9643): every unit enqueues lock steps on the
// one partition, so no two commute, and the search needs about 22,000 replays, all in its first
// round (I-26), which gets half the budget. The default budget decides it; 20,000, the default
// before 2026-11-29, left it unknown.
TEST(Check, ThreeLoopsStealingOneNameAreDecidedWithinTheDefaultBudget) {
  const auto fixture = testing::read_fixture_pair("/tests/check/three-loops-steal-one-name");
  ASSERT_TRUE(fixture);
  const auto& [trace, log] = *fixture;
  const Report report = check_ok(Case{trace, log});
  EXPECT_EQ(report.verdict, Verdict::Allowed);
  EXPECT_GT(report.runs, 10'000u);  // more than the old default's first round could make
  Trace pinned = trace;
  pinned.schedule = report.schedule;
  pinned.readings = report.readings;
  auto replayed = make_spec_engine()->run(pinned, {});
  ASSERT_TRUE(replayed.ok());
  EXPECT_TRUE(same_observations(pinned, replayed.result().log, log));
}

// A search whose budget runs out on the impl engine is not made again on the model, whose search
// would make the same replays: the same divergence, whose spec steps (which only the model trails)
// come from one model replay of the schedule that got there. They are those of that run, so among
// the steps the model's search notes from every run that got there.
TEST(Check, ASearchOutOfBudgetOnTheImplEngineLooksUpItsSpecStepsInOneModelReplay) {
  Case c = corpus_case("web-locks/example-nested-deadlock");
  c.log.events.pop_back();
  Options options, model_only;
  options.max_runs = model_only.max_runs = 3;
  model_only.impl_first = false;
  const auto fast = check(c.trace, c.log, options);
  const auto slow = check(c.trace, c.log, model_only);
  ASSERT_TRUE(fast.ok() && slow.ok());
  ASSERT_EQ(fast->verdict, Verdict::Unknown);
  ASSERT_EQ(slow->verdict, Verdict::Unknown);
  EXPECT_EQ(fast->model_runs, 1u);
  EXPECT_EQ(fast->runs, slow->runs + 1);
  EXPECT_EQ(fast->choice_points, slow->choice_points);
  ASSERT_TRUE(fast->divergence && slow->divergence);
  EXPECT_EQ(fast->divergence->agent, slow->divergence->agent);
  EXPECT_EQ(fast->divergence->agent_index, slow->divergence->agent_index);
  EXPECT_EQ(fast->divergence->instead, slow->divergence->instead);
  ASSERT_FALSE(slow->divergence->instead.empty());
  EXPECT_TRUE(fast->divergence->spec_steps_looked_up);
  EXPECT_TRUE(slow->divergence->spec_steps_looked_up);
  const auto& looked_up = fast->divergence->spec_steps;
  const auto& searched = slow->divergence->spec_steps;
  EXPECT_FALSE(looked_up.empty());
  EXPECT_TRUE(std::is_sorted(looked_up.begin(), looked_up.end()));
  EXPECT_TRUE(std::includes(searched.begin(), searched.end(), looked_up.begin(), looked_up.end()));
  for (const auto& report : {fast.value(), slow.value()}) {
    EXPECT_EQ(to_text(report, "nested").find("not looked up"), std::string::npos);
    // "spec steps of the unit ...", or beside the spec's rule "other steps of the unit ...".
    EXPECT_NE(to_text(report, "nested").find("steps of the unit that logged it instead:"),
              std::string::npos);
    EXPECT_NE(to_json(report, "nested").find("\"specStepsLookedUp\": true"), std::string::npos);
  }
}

// The text says the spec steps were not looked up from the divergence itself, not from the
// report's count of model replays: under several readings, one reading's search may run out on
// the impl engine (no spec steps) while another's was searched on the model (model_runs > 0).
TEST(Check, TheTextSaysSpecStepsWereNotLookedUpFromTheDivergenceItself) {
  Report report;
  report.verdict = Verdict::Unknown;
  report.runs = 40;
  report.model_runs = 12;  // another reading's search, on the model
  report.observed_events = 3;
  Divergence d;
  d.agent = "A";
  d.agent_index = 1;
  d.matched = 1;
  Event instead;
  instead.agent = "A";
  instead.event = "mark";
  instead.members = {{"label", Value::string("x")}};
  d.instead = {instead};
  report.divergence = d;
  EXPECT_NE(to_text(report, "t").find("spec steps: not looked up"), std::string::npos);
  report.divergence->spec_steps_looked_up = true;  // looked up, and none ran: nothing to say
  EXPECT_EQ(to_text(report, "t").find("not looked up"), std::string::npos);
  report.divergence->spec_steps = {"dom-lockmanager-request 9"};
  EXPECT_NE(to_text(report, "t")
                .find("spec steps of the unit that logged it instead: "
                      "dom-lockmanager-request 9"),
            std::string::npos);
}

}  // namespace
}  // namespace lockstep::check
