// Properties over generated worlds (world_generator.cpp): validity, the two engines under random
// schedules, isolation between storage keys, renaming, and the lock invariants visible in the log.
// A failure writes the (shrunk) trace where `lockstep run` replays it: see README.md. The bodies
// run under GoogleTest (world_properties_test.cpp) and under `lockstep fuzz`.
#include "world_properties.h"

#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <set>

#include "counterexamples.h"
#include "engines.h"
#include "generators.h"
#include "lockstep/check.h"
#include "lockstep/choice_point.h"
#include "lockstep/trace_io.h"
#include "model_invariants.h"
#include "runner/trace_runner.h"
#include "steered.h"

namespace lockstep {

Trace validated(const Trace& generated) {
  auto read = read_trace(write_trace(generated));
  if (!read.ok())
    RC_FAIL(counterexample("invalid", generated, "not valid: " + read.error().to_string()));
  return read.value();
}

Readings any_readings() {
  return Readings{
      *rc::gen::element(ReleasedPromiseReading::Steps, ReleasedPromiseReading::Note),
      *rc::gen::element(StaleRemovalReading::Literal, StaleRemovalReading::Fixed),
      *rc::gen::element(ClosedWindowJobsReading::Dropped, ClosedWindowJobsReading::Run)};
}

namespace {

Log spec_log(const Trace& trace, const char* property) {
  RunOutcome run = make_spec_engine()->run(trace, {});
  if (!run.ok()) RC_FAIL(counterexample(property, trace, run.failure().error.to_string()));
  return run.result().log;
}

}  // namespace

namespace properties {

void generated_traces_are_valid_and_replay_on_both_engines() {
  Trace trace = validated(*gen::world_trace());
  trace.readings = any_readings();
  if (auto diff = disagreement(trace); !diff.empty())
    RC_FAIL(counterexample("engines-disagree", trace, diff));
  // What the generated traces reach (printed by RapidCheck): contention and its outcomes.
  bool waiting = false, rejected = false, tasks = false;
  for (const Event& e : spec_log(trace, "spec-replay-failed").events) {
    const Value* v = e.member(e.member("value") ? "value" : "reason");
    if (e.event == "task") tasks = true;
    if (!v) continue;
    if (const Value* pending = v->member("pending"); pending && !pending->items().empty())
      waiting = true;
    if (v->kind() == Value::Kind::DOMException && v->as_string() == "AbortError") {
      rejected = true;
    }
  }
  RC_CLASSIFY(waiting, "a query saw a waiting request");
  RC_CLASSIFY(rejected, "a promise rejected with AbortError");
  RC_CLASSIFY(tasks, "a task ran");
}

// A schedule pinned at random among the choices the spec engine reports: both engines take the
// same path or refuse the same pin.
void engines_agree_under_random_schedules() {
  Trace trace = validated(*gen::world_trace());
  trace.readings = any_readings();
  RunOutcome unpinned = make_spec_engine()->run(trace, {});
  RC_ASSERT(unpinned.ok());
  std::set<std::string> names;
  for (const std::string& c : unpinned.result().choices) {
    names.insert(c);
    if (c.rfind("loop:", 0) == 0) names.insert(c.substr(0, c.find('/')));
  }
  // Each may also be pinned before a step (I-26), where it names the same units.
  for (const std::string& c : std::set<std::string>(names)) names.insert("early:" + c);
  names.insert("settled");  // I-27: where only idle periods could start, they are put off
  names.insert("step");     // I-26: a step begins where a unit could have gone first
  names.insert("idle");     // I-27: idle periods start where they could have been put off
  RC_CLASSIFY(names.empty(), "no choice point");
  if (names.empty()) return;
  const std::vector<std::string> vocabulary(names.begin(), names.end());
  trace.schedule = *rc::gen::container<std::vector<std::string>>(
      *rc::gen::inRange<std::size_t>(1, 12), rc::gen::elementOf(vocabulary));
  if (auto diff = disagreement(trace); !diff.empty())
    RC_FAIL(counterexample("engines-disagree-pinned", trace, diff));
}

// Steered by a chooser (check's search), the impl engine offers the model's choice points one by
// one: the same units in the same order under the same names, the same proposals and canonical
// choice, the same points before steps (I-26) and where only idle periods could start (I-27); and
// under the same decisions it logs the same events.
void engines_offer_the_same_choice_points_when_steered() {
  Trace trace = validated(*gen::world_trace());
  trace.readings = any_readings();
  trace.schedule.clear();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const ChoicePicker pick = [seed](std::size_t k, const ChoicePoint& point) {
    return seeded_pick(seed, k, point);
  };
  const Steered model = steered_on_the_model(trace, pick);
  RC_CLASSIFY(model.points.empty(), "no choice point");
  if (auto diff = steered_disagreement(model, steered_on_impl(trace, pick)); !diff.empty())
    RC_FAIL(counterexample("engines-disagree-steered", trace,
                           "seed " + std::to_string(seed) + ": " + diff));
  // The steered run's choices as pins (schedule_of_choices, I-26, I-27) replay it on both
  // engines: the same log, and choices that give the same pins back.
  Trace pinned = trace;
  pinned.schedule = schedule_of_choices(model.choices);
  RC_CLASSIFY(std::count(pinned.schedule.begin(), pinned.schedule.end(), "step") > 0,
              "pinned with step");
  RC_CLASSIFY(std::count(pinned.schedule.begin(), pinned.schedule.end(), "idle") > 0,
              "pinned with idle");
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    const RunOutcome replayed = engine->run(pinned, {});
    std::string why;
    if (!replayed.ok())
      why = "the pins do not replay: " + replayed.failure().error.to_string();
    else if (auto diff = first_difference(model.log, replayed.result().log))
      why = "the pins replay another log: " + *diff;
    else if (schedule_of_choices(replayed.result().choices) != pinned.schedule)
      why = "the replay's choices give other pins";
    if (!why.empty())
      RC_FAIL(counterexample("steered-choices-do-not-replay-as-pins", pinned,
                             "seed " + std::to_string(seed) + ": " + why));
  }
}

// The log of the model under a schedule drawn choice point by choice point (not pinned by name,
// so every draw is a schedule the model can follow), under the trace's readings.
Log log_of_a_random_schedule(Trace trace) {
  trace.schedule.clear();
  spec::TraceRunner runner(trace);
  runner.world().set_chooser([](const spec::World::ChoicePoint& point) {
    return *rc::gen::inRange<std::size_t>(0, point.names.size());
  });
  return runner.run().log;
}

// The log of the model when only the points before steps are drawn (I-26) and every other choice
// is canonical: the orders an engine such as Chromium adds to the canonical ones, and none of the
// random interleavings whose search the property above already measures. At most two steps wait,
// each with one chance in four where it can, for one or more queued units: check's rounds search
// schedules by how many steps wait, and its cost grows with that number (check/README.md).
Log log_with_random_early_units(Trace trace) {
  trace.schedule.clear();
  spec::TraceRunner runner(trace);
  spec::World& world = runner.world();
  world.offer_early_units(true);
  world.offer_putting_off_idle(true);  // I-27, a third of the time where it is offered
  int waits = 0, waiting = -1;         // steps that waited, and the one waiting now
  world.set_chooser([&](const spec::World::ChoicePoint& point) -> std::size_t {
    if (point.idle_only) return *rc::gen::inRange(0, 3) == 0 ? 1 : 0;
    if (!point.before_step) return point.canonical;
    const bool more = world.current_step() == waiting;  // another unit before the same step?
    if (!more && (waits == 2 || *rc::gen::inRange(0, 4) != 0)) return 0;  // the step begins
    if (more && *rc::gen::inRange(0, 2) != 0) return 0;
    if (!more) ++waits, waiting = world.current_step();
    return *rc::gen::inRange<std::size_t>(1, point.names.size());
  });
  return runner.run().log;
}

// The log of the model under a schedule drawn at every point: random interleavings, as
// log_of_a_random_schedule, with steps that wait (at most two, as log_with_random_early_units) and
// idle periods put off a third of the time where only they could start.
Log log_of_a_random_schedule_with_waits(Trace trace) {
  trace.schedule.clear();
  spec::TraceRunner runner(trace);
  spec::World& world = runner.world();
  world.offer_early_units(true);
  world.offer_putting_off_idle(true);
  int waits = 0, waiting = -1;
  world.set_chooser([&](const spec::World::ChoicePoint& point) -> std::size_t {
    if (point.idle_only) return *rc::gen::inRange(0, 3) == 0 ? 1 : 0;
    if (!point.before_step) return *rc::gen::inRange<std::size_t>(0, point.names.size());
    const bool more = world.current_step() == waiting;
    if (!more && (waits == 2 || *rc::gen::inRange(0, 4) != 0)) return 0;
    if (more && *rc::gen::inRange(0, 2) != 0) return 0;
    if (!more) ++waits, waiting = world.current_step();
    return *rc::gen::inRange<std::size_t>(1, point.names.size());
  });
  return runner.run().log;
}

check::Report checked(const Trace& trace, const Log& log, std::uint64_t max_runs) {
  check::Options options;
  options.max_runs = max_runs;
  auto report = check::check(trace, log, options);
  RC_ASSERT(report.ok());
  return report.value();
}

std::string explained(const Trace& trace, const check::Report& report, const Log& log) {
  return check::to_text(report, trace.name) + "\nobserved log:\n" + write_log(log);
}

// A share of the traces under each combination of readings (I-24, I-25, I-29), chosen by the number
// of steps rather than drawn, so that the check properties' seeded cases stay the ones CI has
// always run.
Trace with_either_reading(Trace trace) {
  if (trace.steps.size() % 2) trace.readings.released_promise = ReleasedPromiseReading::Note;
  if (trace.steps.size() / 2 % 2) trace.readings.stale_removal = StaleRemovalReading::Fixed;
  if (trace.steps.size() / 4 % 2) trace.readings.closed_window_jobs = ClosedWindowJobsReading::Run;
  return trace;
}

// A small world (up to three agents, a fifth of the generator's size) under either reading, and
// its log with random early units; with `may_drop_an_event`, one time in three that log loses one
// event, so that the model may not give it.
std::pair<Trace, Log> small_world_with_early_units(bool may_drop_an_event) {
  gen::Profile small;
  small.max_agents = 3;
  Trace trace = with_either_reading(validated(*rc::gen::scale(0.2, gen::world_trace(small))));
  Log log = log_with_random_early_units(trace);
  if (may_drop_an_event && !log.events.empty() && *rc::gen::inRange(0, 3) == 0)
    log.events.erase(log.events.begin() + *rc::gen::inRange<std::ptrdiff_t>(
                                              0, static_cast<std::ptrdiff_t>(log.events.size())));
  return {std::move(trace), std::move(log)};
}

// lockstep check's completeness on small worlds (up to three agents, short scripts): the log of
// any schedule of the model is found, within the CLI's default search budget (at the 5,000
// replays this used before 2026-11-29, about 1 in 20,000 such logs ended unknown; check/README.md,
// "The budget").
void check_allows_every_log_the_model_produces() {
  gen::Profile small;
  small.max_agents = 3;
  const Trace trace =
      with_either_reading(validated(*rc::gen::scale(0.35, gen::world_trace(small))));
  const Log log = log_of_a_random_schedule(trace);
  const check::Report report = checked(trace, log, check::Options{}.max_runs);
  RC_CLASSIFY(report.runs > 1, "searched");
  if (report.verdict != check::Verdict::Allowed)
    RC_FAIL(counterexample("check-does-not-find-a-model-log", trace, log,
                           explained(trace, report, log)));
}

// lockstep check on logs in which steps waited for queued work (I-26), and in which idle periods
// were put off where only they could start (I-27): never "not allowed". It
// searches those schedules after the ones where every step begins at once, and finds most within
// its budget ("explained with early units"); "unknown" is counted, not failed: early units are
// stamped with the settling step under way, which often fits before several steps, and the
// search tries each (check/README.md, "The budget": at 2,000 replays 0.15-0.25% ended unknown,
// at the default 2 of 20,000). A schedule it reports replays the log.
void check_never_rejects_model_logs_with_early_units() {
  const auto [trace, log] = small_world_with_early_units(/*may_drop_an_event=*/false);
  const check::Report report = checked(trace, log, check::Options{}.max_runs);
  RC_CLASSIFY(report.verdict == check::Verdict::Unknown, "unknown");
  RC_CLASSIFY(report.decided_by_parts, "decided by the parts after the whole search");
  RC_CLASSIFY(std::any_of(report.schedule.begin(), report.schedule.end(),
                          [](const std::string& c) { return c.rfind("early:", 0) == 0; }),
              "explained with early units");
  RC_CLASSIFY(std::count(report.schedule.begin(), report.schedule.end(), "settled") > 0,
              "explained with idle periods put off");
  if (report.verdict == check::Verdict::NotAllowed)
    RC_FAIL(counterexample("check-rejects-a-model-log-with-early-units", trace, log,
                           explained(trace, report, log)));
  if (report.verdict != check::Verdict::Allowed) return;
  RC_CLASSIFY(std::count(report.schedule.begin(), report.schedule.end(), "step") > 0,
              "reported with step");
  RC_CLASSIFY(std::count(report.schedule.begin(), report.schedule.end(), "idle") > 0,
              "reported with idle");
  // The schedule reported, pinned under the readings reported, replays the log on both engines:
  // each agent's events as observed (a "step" or "idle" pin keeps an "early:" or "settled" pin
  // from being taken at an earlier point, I-26, I-27), compared as check compares them: the
  // replay may list a snapshot's held locks in another order than the schedule that made the log.
  Trace pinned = trace;
  pinned.schedule = report.schedule;
  pinned.readings = report.readings;
  for (const auto& engine : {make_spec_engine(), make_impl_engine()}) {
    const RunOutcome replayed = engine->run(pinned, {});
    std::string why;
    if (!replayed.ok())
      why = "the reported schedule does not replay: " + replayed.failure().error.to_string();
    else if (!check::same_observations(trace, replayed.result().log, log))
      why = "the reported schedule replays another log:\n" + write_log(replayed.result().log);
    if (!why.empty())
      RC_FAIL(counterexample("check-reports-a-schedule-that-does-not-replay", pinned,
                             why + "\n" + explained(trace, report, log)));
  }
}

// The same, combination by combination of readings (Report::searches): an out-of-budget search
// makes the model's replays on impl alone (plus the look-up replay, under the readings reported),
// one that rules the log out makes them on both, one that explains it confirms it with one model
// replay, or needed only the canonical replay on impl.
std::string searched_differently_per_reading(const check::Report& fast, const check::Report& slow) {
  if (fast.searches.size() != slow.searches.size() ||
      fast.searches.size() != fast.readings_searched)
    return "the searches list other combinations of readings than were searched";
  for (std::size_t i = 0; i < fast.searches.size(); ++i) {
    const check::ReadingSearch& f = fast.searches[i];
    const check::ReadingSearch& m = slow.searches[i];
    const std::string where = "under combination " + std::to_string(i) + " of readings: ";
    if (f.readings != m.readings || f.verdict != m.verdict || f.matched != m.matched)
      return where + "the engines' searches ended differently";
    if (m.model_runs != m.runs) return where + "a model-only search made replays on impl";
    const bool looked_up = fast.verdict == check::Verdict::Unknown && fast.divergence &&
                           fast.divergence->spec_steps_looked_up && fast.readings == f.readings;
    bool same = false;
    switch (f.verdict) {
      case check::Verdict::Unknown:
        same = f.model_runs == (looked_up ? 1u : 0u) && f.runs - f.model_runs == m.runs &&
               f.choice_points == m.choice_points;
        break;
      case check::Verdict::NotAllowed:
        same = f.model_runs == m.runs && f.runs == 2 * m.runs &&
               f.choice_points == 2 * m.choice_points;
        break;
      case check::Verdict::Allowed:
        same = (f.model_runs == 0 && f.runs == 1 && m.runs == 1) ||
               (f.model_runs == 1 && f.runs == m.runs + 1 && f.choice_points == m.choice_points);
        break;
    }
    if (!same) return where + "the impl engine's search made other replays than the model's";
  }
  std::uint64_t runs = 0, model_runs = 0, choice_points = 0;
  for (const check::ReadingSearch& f : fast.searches)
    runs += f.runs, model_runs += f.model_runs, choice_points += f.choice_points;
  if (runs != fast.runs || model_runs != fast.model_runs || choice_points != fast.choice_points)
    return "the searches do not add up to the report's totals";
  return {};
}

// How the impl engine's search departs from the model's under one readings (empty if it does not):
// a found schedule costs one more (model) replay to confirm, a log it rules out is searched again
// on the model, replay for replay, and a search whose budget ran out is not searched again.
std::string searched_differently(const check::Report& fast, const check::Report& slow) {
  const bool allowed = fast.verdict == check::Verdict::Allowed;
  if (fast.verdict == check::Verdict::Unknown) {
    // Summed over the readings: those that ran out on impl made no model replay, those that
    // ruled the log out made as many on the model as on impl; one more model replay looks up the
    // reported divergence's spec steps.
    if (fast.runs - fast.model_runs != slow.runs || fast.model_runs > slow.runs ||
        fast.choice_points < slow.choice_points)
      return "the impl engine's search made other replays than the model's";
  } else if (fast.model_runs == 0 && (fast.runs != 1 || slow.runs != 1)) {
    return "the canonical schedule took more than one replay";
  }
  if (fast.model_runs == 1 && allowed &&
      (fast.runs != slow.runs + 1 || fast.choice_points != slow.choice_points))
    return "the impl engine's search made other replays than the model's";
  if (fast.model_runs > 1 && allowed)
    return "the impl engine's search missed a schedule the model's search found";
  if (fast.verdict == check::Verdict::NotAllowed &&
      (fast.model_runs != slow.runs || fast.runs != 2 * slow.runs ||
       fast.choice_points != 2 * slow.choice_points))
    return "the impl engine's search made other replays than the model's";
  if (fast.divergence.has_value() != slow.divergence.has_value() ||
      (fast.divergence && (fast.divergence->agent != slow.divergence->agent ||
                           fast.divergence->agent_index != slow.divergence->agent_index)))
    return "the divergences differ";
  // Only the model trails spec steps; a divergence says whether runs on it found it.
  if (slow.divergence && !slow.divergence->spec_steps_looked_up)
    return "a divergence the model's search found says its spec steps were not looked up";
  if (fast.divergence && fast.verdict == check::Verdict::NotAllowed &&
      !fast.divergence->spec_steps_looked_up)
    return "a log ruled out was not searched on the model";
  if (fast.divergence && fast.model_runs == 0 && fast.divergence->spec_steps_looked_up)
    return "a divergence only the impl engine searched says its spec steps were looked up";
  // Unknown: the divergence's schedule, replayed on the model, gets to it, and the steps of that
  // run are among those the model's search noted from every run that got there.
  if (fast.verdict == check::Verdict::Unknown && fast.divergence) {
    if (!fast.divergence->spec_steps_looked_up)
      return "a model replay of an unknown divergence's schedule did not get to it";
    const auto& one = fast.divergence->spec_steps;
    const auto& all = slow.divergence->spec_steps;
    if (!std::includes(all.begin(), all.end(), one.begin(), one.end()))
      return "the spec steps looked up are not among those the model's search noted there";
    for (const Event& e : fast.divergence->instead)
      if (std::find(slow.divergence->instead.begin(), slow.divergence->instead.end(), e) ==
          slow.divergence->instead.end())
        return "the impl engine's search logged an event there that the model's did not";
  }
  if (fast.divergence && !fast.divergence->spec_steps_looked_up &&
      !fast.divergence->spec_steps.empty())
    return "a divergence has spec steps it says were not looked up";
  return {};
}

// lockstep check's search on the impl engine (check::Options::impl_first) makes exactly the
// model's replays, so it offers the model's choice points in the model's order: on logs with
// early units and idle periods put off, whole or with one event dropped, it gives the model's
// verdict, schedule and replays (searched_differently).
void check_searches_the_same_on_both_engines() {
  const auto world = small_world_with_early_units(/*may_drop_an_event=*/true);
  const Trace& trace = world.first;
  const Log& log = world.second;
  check::Options options, model_only;
  options.max_runs = model_only.max_runs = 500;
  model_only.impl_first = false;
  // One search of the world each: the parts' searches, after an unknown, are searches of smaller
  // worlds, which this property covers as worlds of their own.
  options.split = model_only.split = check::Split::Never;
  const auto search = [&](const Trace& t) {
    auto fast = check::check(t, log, options);
    auto slow = check::check(t, log, model_only);
    RC_ASSERT(fast.ok() && slow.ok());
    return std::pair{fast.value(), slow.value()};
  };
  auto [fast, slow] = search(trace);
  RC_CLASSIFY(fast.model_runs == 0 && fast.verdict == check::Verdict::Allowed,
              "the canonical schedule on impl");
  RC_CLASSIFY(fast.verdict == check::Verdict::Unknown, "unknown (out of budget on impl)");
  RC_CLASSIFY(fast.verdict == check::Verdict::Unknown && fast.divergence &&
                  fast.divergence->spec_steps_looked_up,
              "unknown, its spec steps looked up on the model");
  RC_CLASSIFY(fast.verdict == check::Verdict::Allowed && fast.model_runs == 1,
              "searched on impl, confirmed");
  RC_CLASSIFY(fast.verdict != check::Verdict::Unknown && fast.model_runs > 1, "searched on both");
  std::string why;
  if (fast.verdict != slow.verdict || fast.schedule != slow.schedule ||
      fast.readings != slow.readings || fast.readings_searched != slow.readings_searched) {
    why = "the verdicts, schedules or readings differ";
  } else if (fast.verdict == check::Verdict::Allowed && fast.readings_searched > 1) {
    // The readings searched first, which do not explain the log, were searched on both engines
    // (on the model as many replays as on impl); the one that does is then compared alone, as
    // the trace's own readings, so that its search comes first.
    RC_CLASSIFY(true, "allowed under other readings than the trace's");
    if (fast.runs != slow.runs + fast.model_runs) {
      why = "the impl engine's search made other replays than the model's";
    } else {
      Trace under = trace;
      under.readings = slow.readings;
      std::tie(fast, slow) = search(under);
      RC_ASSERT(fast.readings_searched == 1 && slow.readings_searched == 1);
      why = searched_differently(fast, slow);
    }
  } else {
    why = searched_differently(fast, slow);
  }
  if (why.empty()) why = searched_differently_per_reading(fast, slow);
  if (!why.empty())
    RC_FAIL(counterexample("check-searches-differently-on-impl", trace, log,
                           why + "\nimpl first: " + check::to_text(fast, trace.name) +
                               "model only: " + check::to_text(slow, trace.name) +
                               "observed log:\n" + write_log(log)));
}

// Fails the property when `why` says how two checks of one log differ, with both reports and the
// log.
void fail_if_checks_differ(const std::string& why, const std::string& name, const Trace& trace,
                           const Log& log, const std::string& first, const check::Report& a,
                           const std::string& second, const check::Report& b) {
  if (why.empty()) return;
  RC_FAIL(counterexample(name, trace, log,
                         why + "\n" + first + ": " + check::to_text(a, trace.name) + second + ": " +
                             check::to_text(b, trace.name) + "observed log:\n" + write_log(log)));
}

// Reusing probes across the rounds of check's search (I-26, check::Options::reuse_probes) saves
// replays and changes nothing else: the same verdict, schedule, readings and divergence, and each
// probe reused is one replay fewer. Compared where the search without it needed at most a quarter
// of the budget: every round may spend half of what is left, so no round was cut short in either
// search, and the two take the same path.
void reused_probes_change_only_the_replays() {
  const auto world = small_world_with_early_units(/*may_drop_an_event=*/true);
  const Trace& trace = world.first;
  const Log& log = world.second;
  check::Options reusing, replaying;
  reusing.max_runs = replaying.max_runs = 2'000;
  replaying.reuse_probes = false;
  const auto without = check::check(trace, log, replaying);
  RC_ASSERT(without.ok());
  if (without->runs > replaying.max_runs / 4) {
    RC_CLASSIFY(true, "too large to compare");
    return;
  }
  const auto with = check::check(trace, log, reusing);
  RC_ASSERT(with.ok());
  RC_CLASSIFY(with->reused_probes > 0, "probes reused");
  std::string why;
  if (with->verdict != without->verdict || with->schedule != without->schedule ||
      with->readings != without->readings)
    why = "the verdicts, schedules or readings differ";
  else if (with->runs + with->reused_probes != without->runs || without->reused_probes != 0)
    why = "a reused probe did not stand for exactly one replay";
  else if (with->divergence.has_value() != without->divergence.has_value() ||
           (with->divergence &&
            (with->divergence->agent != without->divergence->agent ||
             with->divergence->agent_index != without->divergence->agent_index ||
             with->divergence->matched != without->divergence->matched)))
    why = "the divergences differ";
  fail_if_checks_differ(why, "check-reuses-probes-differently", trace, log, "reusing", with.value(),
                        "replaying", without.value());
}

// The cache of states already tried (check/README.md) cuts only subtrees whose twin, reached by
// another order of commuting units, failed: the same search but for those, so the same verdict,
// schedule and divergence, in no more replays.
void cached_states_change_only_the_replays() {
  const auto world = small_world_with_early_units(/*may_drop_an_event=*/true);
  const Trace& trace = world.first;
  const Log& log = world.second;
  check::Options caching, searching;
  caching.max_runs = searching.max_runs = 2'000;
  searching.cache_states = false;
  // One search of the world each. With the default split, a search the budget cut without the
  // cache goes on by parts, whose verdict agrees but whose divergence is a part's
  // (tests/check/cache-decides-within-the-budget); parts are worlds this property covers too.
  caching.split = searching.split = check::Split::Never;
  const auto without = check::check(trace, log, searching);
  RC_ASSERT(without.ok());
  if (without->verdict == check::Verdict::Unknown) {
    RC_CLASSIFY(true, "unknown without the cache");
    return;
  }
  // As for reused probes: every round of the search (I-26) may spend half of what is left, so a
  // search without the cache that needed more than a quarter of the budget may have had a round cut
  // short, and found another schedule in a later round than the one the cache lets finish (fuzz
  // seeds 80034, 80415: the same schedule once the budget cuts no round).
  if (without->runs > searching.max_runs / 4) {
    RC_CLASSIFY(true, "too large to compare");
    return;
  }
  const auto with = check::check(trace, log, caching);
  RC_ASSERT(with.ok());
  RC_CLASSIFY(with->states_already_tried > 0, "states cut");
  RC_CLASSIFY(with->verdict == check::Verdict::NotAllowed, "not allowed");
  std::string why;
  if (with->verdict != without->verdict || with->schedule != without->schedule ||
      with->readings != without->readings)
    why = "the verdicts, schedules or readings differ";
  else if (with->runs > without->runs || without->states_already_tried != 0)
    why = "the cache cost replays";
  else if (with->divergence.has_value() != without->divergence.has_value() ||
           (with->divergence && with->divergence->matched != without->divergence->matched))
    why = "the divergences differ";
  fail_if_checks_differ(why, "check-caches-states-differently", trace, log, "caching", with.value(),
                        "without", without.value());
}

// Options::max_seconds only cuts the search short: with any time budget the verdict is the one
// without it or unknown, a log the impl engine ruled out before the time ran out is one the whole
// check rules out, and a search the time did not cut is the same search, replay for replay. Logs of
// small worlds with early units, one in three with an event dropped (so some are not allowed); time
// budgets from one microsecond, which cuts nearly every search, to ten milliseconds, which cuts
// few.
void a_time_budget_only_turns_verdicts_unknown() {
  const auto world = small_world_with_early_units(/*may_drop_an_event=*/true);
  const Trace& trace = world.first;
  const Log& log = world.second;
  check::Options untimed, timed;
  untimed.max_runs = timed.max_runs = 2'000;
  timed.max_seconds = *rc::gen::element(1e-6, 1e-4, 1e-3, 1e-2);
  const auto without = check::check(trace, log, untimed);
  const auto with = check::check(trace, log, timed);
  RC_ASSERT(without.ok() && with.ok());
  RC_CLASSIFY(with->time_ran_out, "time ran out");
  RC_CLASSIFY(without->verdict == check::Verdict::NotAllowed, "not allowed");
  RC_CLASSIFY(with->not_allowed_on_impl, "not allowed on the impl engine, then the time ran out");
  std::string why;
  if (without->time_ran_out)
    why = "a check without a time budget says the time ran out";
  else if (with->verdict != check::Verdict::Unknown && with->verdict != without->verdict)
    why = "the time budget changed a verdict";
  else if (with->not_allowed_on_impl && without->verdict != check::Verdict::NotAllowed)
    why = "the impl engine's search ruled out a log the check without a time budget did not";
  else if (with->runs_ran_out && without->verdict != check::Verdict::Unknown)
    why = "the replays ran out with a time budget but not without";
  else if (!with->time_ran_out &&
           (with->verdict != without->verdict || with->runs != without->runs ||
            with->schedule != without->schedule))
    why = "a search the time did not cut differs from the search without a time budget";
  fail_if_checks_differ(why, "check-time-budget", trace, log, "timed", with.value(), "untimed",
                        without.value());
}

// lockstep check's soundness on larger worlds (up to six agents, half the generator's size, to
// keep the CI budget under the sanitizers): a log of the model is never "not allowed" (the search
// may run out of budget: "unknown" is counted, not failed).
void check_never_rejects_a_log_the_model_produces() {
  const Trace trace = with_either_reading(validated(*rc::gen::scale(0.5, gen::world_trace())));
  const Log log = log_of_a_random_schedule(trace);
  const check::Report report = checked(trace, log, check::Options{}.max_runs);
  RC_CLASSIFY(report.verdict == check::Verdict::Unknown, "unknown");
  if (report.verdict == check::Verdict::NotAllowed)
    RC_FAIL(counterexample("check-rejects-a-model-log", trace, log, explained(trace, report, log)));
}

// Splitting a world into its independent parts (check::Options::split, check/README.md "Parts")
// decides no log otherwise than the whole world's search: logs of worlds of two to four agents
// under random schedules, canonical ones with steps that wait, or random ones with steps that wait
// and idle periods put off (a third each), one event dropped one time in three, checked with the
// parts first and without them. A log of the model is never ruled out; where both decide, they
// agree; a schedule merged from the parts replays the log on the model.
void splitting_decides_as_the_whole_search() {
  gen::Profile several;
  several.min_agents = 2;
  several.max_agents = 4;
  const Trace trace =
      with_either_reading(validated(*rc::gen::scale(0.25, gen::world_trace(several))));
  const int kind = *rc::gen::inRange(0, 3);
  Log log = kind == 0   ? log_of_a_random_schedule(trace)
            : kind == 1 ? log_with_random_early_units(trace)
                        : log_of_a_random_schedule_with_waits(trace);
  const bool dropped = !log.events.empty() && *rc::gen::inRange(0, 3) == 0;
  if (dropped)
    log.events.erase(log.events.begin() + *rc::gen::inRange<std::ptrdiff_t>(
                                              0, static_cast<std::ptrdiff_t>(log.events.size())));
  const std::size_t parts = check::independent_parts(trace).size();
  RC_CLASSIFY(parts >= 2, "two parts or more");
  if (parts < 2) return;
  check::Options whole, split;
  whole.max_runs = split.max_runs = 5'000;
  whole.split = check::Split::Never;
  split.split = check::Split::First;
  const auto by_parts = check::check(trace, log, split);
  const auto at_once = check::check(trace, log, whole);
  RC_ASSERT(by_parts.ok() && at_once.ok());
  RC_CLASSIFY(by_parts->decided_by_parts, "decided by the parts");
  RC_CLASSIFY(by_parts->decided_by_parts && at_once->verdict == check::Verdict::Unknown,
              "decided by the parts, unknown at once");
  RC_CLASSIFY(by_parts->verdict == check::Verdict::NotAllowed, "not allowed");
  std::string why;
  if (by_parts->verdict == check::Verdict::NotAllowed && !dropped)
    why = by_parts->decided_by_parts ? "a part rules out a log of the model"
                                     : "the whole world's search after the parts' rules out a log "
                                       "of the model";
  else if (by_parts->verdict != check::Verdict::Unknown &&
           at_once->verdict != check::Verdict::Unknown && by_parts->verdict != at_once->verdict)
    why = "the parts and the whole world's search decide differently";
  else if (by_parts->decided_by_parts && by_parts->verdict == check::Verdict::Allowed) {
    Trace pinned = trace;
    pinned.schedule = by_parts->schedule;
    pinned.readings = by_parts->readings;
    const RunOutcome replayed = make_spec_engine()->run(pinned, {});
    if (!replayed.ok() || !check::same_observations(trace, replayed.result().log, log))
      why = "the merged schedule does not replay the log on the model";
  }
  fail_if_checks_differ(why, "check-split-decides-differently", trace, log, "by parts",
                        by_parts.value(), "at once", at_once.value());
}

// The storage key of an agent: the lock manager it uses (opaque origins have none of their own).
std::string storage_key(const Agent& a) {
  return a.origin == "opaque" ? "opaque:" + a.id : a.partition + " " + a.origin;
}

// Noninterference: deleting every step of the agents of one partition, one origin, or one storage
// key leaves every other agent's events unchanged (docs/interpretations.md I-3 for why a deleted
// step leaves a placeholder).
void deleting_one_partition_or_origin_leaves_the_others_unchanged() {
  gen::Profile two_or_more;
  two_or_more.min_agents = 2;
  Trace trace = *gen::world_trace(two_or_more);
  // Every step settles: leftovers of a `"settle": false` step before `advanceTime` would race with
  // the first due timer, whichever agent's it is (I-4), so another agent's timer may move them.
  for (Action& step : trace.steps) step.settle = true;
  trace = validated(trace);
  const int by = *rc::gen::inRange(0, 3);  // 0: partition, 1: origin, 2: storage key
  const Agent& chosen = *rc::gen::elementOf(trace.agents);
  std::set<std::string> removed;
  for (const Agent& a : trace.agents)
    if ((by == 0 && a.partition == chosen.partition) || (by == 1 && a.origin == chosen.origin) ||
        (by == 2 && storage_key(a) == storage_key(chosen)))
      removed.insert(a.id);
  RC_CLASSIFY(removed.size() == trace.agents.size(), "nothing left");
  if (removed.size() == trace.agents.size()) return;
  // A deleted step leaves an empty task of a window of its own in its place (check::part_trace,
  // which `check` searches a part of a world on), so that the world settles at the same points (a
  // `"settle": false` step's leftovers run during the next step's settling: that timing is the
  // trace's, not an interference between agents).
  std::vector<std::string> kept;
  for (const Agent& a : trace.agents)
    if (!removed.count(a.id)) kept.push_back(a.id);
  const Trace smaller = validated(check::part_trace(trace, kept));
  const Log whole = spec_log(trace, "isolation-whole");
  const Log part = spec_log(smaller, "isolation-part");
  std::map<std::string, std::vector<Event>> expected, actual;
  for (const Event& e : whole.events)
    if (!removed.count(e.agent)) expected[e.agent].push_back(e);
  for (const Event& e : part.events) actual[e.agent].push_back(e);
  for (auto& [agent, events] : expected) {
    const auto& got = actual[agent];
    if (got.size() != events.size())
      RC_FAIL(counterexample("isolation", trace,
                             "agent " + agent + ": " + std::to_string(events.size()) +
                                 " events with the others, " + std::to_string(got.size()) +
                                 " without"));
    for (std::size_t i = 0; i < events.size(); ++i) {
      // Step numbers shift with the deletion (and leftovers of `"settle": false` steps may
      // settle under another step): what must not change is each agent's sequence of events.
      Event want = events[i];
      want.step = got[i].step;
      if (!(want == got[i]))
        RC_FAIL(counterexample("isolation", trace,
                               "agent " + agent + " event " + std::to_string(i) + " differs"));
    }
  }
}

// Renaming agents and resource names (to names that sort the other way) renames the log and
// changes nothing else: nothing in either spec depends on how names compare.
struct Renaming {
  std::map<std::string, std::string> agents, names;
  std::string agent(const std::string& s) const {
    auto it = agents.find(s);
    return it == agents.end() ? s : it->second;
  }
  std::string name(const std::string& s) const {
    auto it = names.find(s);
    return it == names.end() ? s : it->second;
  }
  void apply(std::vector<Action>& actions) const {
    for (Action& a : actions) {
      a.agent = agent(a.agent);
      if (a.op == Op::Request) a.name = name(a.name);
      if (a.callback) apply(a.callback->body);
      apply(a.body);
    }
  }
  // Snapshot entries ({name, mode, clientId}) inside a settled value.
  Value apply(const Value& v) const {
    if (v.kind() == Value::Kind::Array) {
      std::vector<Value> items;
      for (const Value& i : v.items()) items.push_back(apply(i));
      return Value::array(std::move(items));
    }
    if (v.kind() != Value::Kind::Object) return v;
    std::vector<std::pair<std::string, Value>> members;
    for (const auto& [k, m] : v.members()) {
      if (k == "name" && m.kind() == Value::Kind::String)
        members.emplace_back(k, Value::string(name(m.as_string())));
      else if (k == "clientId" && m.kind() == Value::Kind::String)
        members.emplace_back(k, Value::string(agent(m.as_string())));
      else
        members.emplace_back(k, apply(m));
    }
    return Value::object(std::move(members));
  }
};

void renaming_agents_and_names_renames_the_log() {
  const Trace trace = validated(*gen::world_trace());
  Renaming r;
  for (std::size_t i = 0; i < trace.agents.size(); ++i)
    r.agents[trace.agents[i].id] = std::string("Z") + static_cast<char>('z' - i);
  r.names = {{"n1", "x9"}, {"n2", "x8"}, {"n3", "x7"}, {"-reserved", "-other"}};
  Trace renamed = trace;
  for (Agent& a : renamed.agents) {
    a.id = r.agent(a.id);
    a.event_loop = r.agent(a.event_loop);  // default loops are named by their agent
  }
  r.apply(renamed.steps);
  renamed = validated(renamed);
  Log expected = spec_log(trace, "rename-original");
  for (Event& e : expected.events) {
    e.agent = r.agent(e.agent);
    for (auto& [k, v] : e.members) v = r.apply(v);
  }
  const Log got = spec_log(renamed, "rename-renamed");
  if (auto diff = first_difference(expected, got)) RC_FAIL(counterexample("rename", trace, *diff));
}

// web-locks#grantable, as query() shows it: per name one exclusive holder alone, or shared ones.
void snapshots_never_show_conflicting_holders() {
  const Trace trace = validated(*gen::world_trace());
  for (const Event& e : spec_log(trace, "snapshot").events) {
    const Value* value = e.member("value");
    if (e.event != "settled" || !value || !value->member("held")) continue;
    std::map<std::string, std::pair<int, int>> per_name;  // exclusive, shared
    for (const Value& info : value->member("held")->items())
      (info.member("mode")->as_string() == "exclusive"
           ? per_name[info.member("name")->as_string()].first
           : per_name[info.member("name")->as_string()].second)++;
    for (const auto& [name, counts] : per_name)
      if (counts.first > 1 || (counts.first == 1 && counts.second > 0))
        RC_FAIL(counterexample("conflicting-holders", trace, "name " + name));
  }
}

// Every request ends at most once, and its callback, if any, runs once and before the end.
void every_request_ends_at_most_once_after_its_callback() {
  const Trace trace = validated(*gen::world_trace());
  std::map<std::string, int> settled, called;
  for (const Event& e : spec_log(trace, "ends-once").events) {
    if (e.event == "callback" || e.event == "task" || e.event == "idle") {
      const char* key = e.event == "task" ? "task" : e.event == "idle" ? "id" : "request";
      const std::string id = e.member(key)->as_string();
      if (settled[id] != 0 || ++called[id] != 1)
        RC_FAIL(counterexample("ends-once", trace, id + " called after it ended or twice"));
    }
    if (e.event == "settled" && ++settled[e.member("target")->as_string()] != 1)
      RC_FAIL(
          counterexample("ends-once", trace, e.member("target")->as_string() + " settled twice"));
  }
}

// The model's state around every unit it runs: grantable holders, grants in queue order, no
// grantable request left waiting at a queue's front once the lock task queue has run, nothing
// left of a terminated agent or an unloaded document at the end, every query result a state the
// model was in, and scheduler tasks chosen by effective priority then enqueue order
// (model_invariants.h).
void the_model_keeps_its_invariants_at_every_unit() {
  const Trace trace = validated(*gen::world_trace());
  spec::TraceRunner runner(trace);
  LockInvariants invariants(runner.web_locks());
  SchedulerInvariants scheduler_invariants(runner.scheduling());
  std::string broken;
  std::string unit;  // the name of the unit that runs
  runner.world().set_unit_observer([&] {
    if (broken.empty()) broken = invariants.after_unit(unit);
  });
  runner.world().set_before_unit_observer([&](const std::string& name, std::uint64_t seq, int) {
    unit = name;
    if (broken.empty()) broken = scheduler_invariants.before_unit(name, seq);
  });
  const RunResult result = runner.run();
  if (broken.empty()) broken = invariants.at_end();
  for (const Event& e : result.log.events) {
    const Value* value = e.member("value");
    if (broken.empty() && e.event == "settled" && value && value->member("held") &&
        !invariants.is_a_state_seen(*value))
      broken = "query " + e.member("target")->as_string() + " of " + e.agent +
               " reported a state no lock manager was in";
  }
  if (!broken.empty()) RC_FAIL(counterexample("model-invariant", trace, broken));
}

const std::vector<Property>& world_properties() {
  static const std::vector<Property> all{
      {"GeneratedTracesAreValidAndReplayOnBothEngines",
       generated_traces_are_valid_and_replay_on_both_engines},
      {"EnginesAgreeUnderRandomSchedules", engines_agree_under_random_schedules},
      {"DeletingOnePartitionOrOriginLeavesTheOthersUnchanged",
       deleting_one_partition_or_origin_leaves_the_others_unchanged},
      {"RenamingAgentsAndNamesRenamesTheLog", renaming_agents_and_names_renames_the_log},
      {"SnapshotsNeverShowConflictingHolders", snapshots_never_show_conflicting_holders},
      {"EveryRequestEndsAtMostOnceAfterItsCallback",
       every_request_ends_at_most_once_after_its_callback},
      {"TheModelKeepsItsInvariantsAtEveryUnit", the_model_keeps_its_invariants_at_every_unit},
      {"CheckAllowsEveryLogTheModelProduces", check_allows_every_log_the_model_produces},
      {"CheckNeverRejectsALogTheModelProduces", check_never_rejects_a_log_the_model_produces},
      {"CheckNeverRejectsModelLogsWithEarlyUnits", check_never_rejects_model_logs_with_early_units},
      {"CheckSearchesTheSameOnBothEngines", check_searches_the_same_on_both_engines},
      {"ReusedProbesChangeOnlyTheReplays", reused_probes_change_only_the_replays},
      {"EnginesOfferTheSameChoicePointsWhenSteered",
       engines_offer_the_same_choice_points_when_steered},
      {"UnitsTakenAsIndependentCommute", units_taken_as_independent_commute},
      {"CachedStatesChangeOnlyTheReplays", cached_states_change_only_the_replays},
      {"ATimeBudgetOnlyTurnsVerdictsUnknown", a_time_budget_only_turns_verdicts_unknown},
      {"SplittingDecidesAsTheWholeSearch", splitting_decides_as_the_whole_search},
  };
  return all;
}

}  // namespace properties
}  // namespace lockstep
