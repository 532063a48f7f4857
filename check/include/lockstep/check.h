// `lockstep check`: does some schedule of the spec model produce an observed log?
//
// The checker replays the trace on the spec model and searches its choice points (which unit runs
// next: a lock task queue, an event loop's task queue, its scheduler, its idle period) depth
// first, canonical choice first (by default on the impl engine first, which offers the same
// points; the model replays a schedule found so to confirm it), abandoning a run as soon as the
// events it has logged cannot be a prefix of the observed ones. Logs are compared per agent: the
// order between agents is free, and causality across agents is whatever the model's run imposes.
// A world whose agents fall into independent parts (no shared partition or event loop) is also
// searched part by part (Options::split). check/README.md says how events are compared (query
// snapshots, clientIds, DOMExceptions) and what is not searched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/error.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::check {

enum class Profile {
  Normative,  // every unit runnable at a choice point may run next (what the specs require)
  Intent,     // only the units the suggested strategy proposes (I-17; the specs recommend it)
};

// Whether the search is also made per part of the world: agents that share no lock task queue and
// no event loop run independently (check/README.md, "Parts"), so each part's log can be searched
// on its own, without the product of the parts' failures. Only under the normative profile, and
// not with `partial`.
enum class Split {
  WhenUnknown,  // the whole world first, then the parts if its search ends unknown (default)
  First,        // the parts first, then the whole world if they do not decide
  Never,
};

struct Options {
  Profile profile = Profile::Normative;
  // Replays of the trace before the verdict is "unknown", for each engine's search (impl_first).
  // On small worlds a log the model allows rarely needs more than 20,000 and none measured needed
  // more than 50,000 (check/README.md, "The budget"); on the impl engine that is about a second.
  std::uint64_t max_runs = 100'000;
  // Seconds of wall-clock time for the whole check, every reading and both engines; 0 (or less):
  // no limit. Past it no replay of a search begins and the verdict is "unknown"
  // (Report::time_ran_out). Unlike max_runs, it makes the verdict depend on the machine: for a
  // campaign's bound per trace, not for CI's expected verdicts.
  double max_seconds = 0;
  bool compare_steps = true;  // an event must carry the step the model logs it in
  // Partial logs: an agent the trace terminates or unloads may have its observed events stop
  // early (a target often loses what a worker logged just before it was terminated). The events
  // taken as unobservable are listed in the report's assumptions.
  bool partial = false;
  // Search on the impl engine first (it offers the model's choice points and logs what the model
  // logs on every schedule, at a small fraction of the cost). A log its canonical schedule
  // explains is answered at once, as the model's canonical log is the impl engine's on every
  // trace. A schedule its search finds answers once one model replay that takes the same choices
  // explains the log too. Any other outcome (not allowed, unknown, not confirmed) is searched
  // again on the model, which gives the verdict and the divergence with its spec steps; each
  // engine's search has the whole of max_runs. Off: the model alone.
  bool impl_first = true;
  // Partial-order reduction under the normative profile: a schedule that differs from one already
  // searched only by the order of two units that commute (check/README.md) is not searched again.
  // Off: every interleaving (for tests that compare the two).
  bool reduce_orders = true;
  // A probe made in one round of the search (I-26) answers the same probe in later rounds instead
  // of a replay: the same search, fewer replays. Off: every probe replayed (for tests).
  bool reuse_probes = true;
  // With the reduction: a choice point met in a state whose every schedule failed already in
  // this round, reached by another order of commuting units, is not searched again
  // (check/README.md, "States already tried"). Off: for tests that compare the two.
  bool cache_states = true;
  // Each part searched with this whole Options (its own max_runs per reading and engine); the
  // time budget is the check's.
  Split split = Split::WhenUnknown;
};

enum class Verdict { Allowed, NotAllowed, Unknown };
const char* verdict_name(Verdict verdict);  // "allowed", "not allowed", "unknown"

// Where the search got furthest, when no run explained the whole log.
struct Divergence {
  std::string agent;
  std::size_t agent_index = 0;    // the agent's n-th observed event (from 0)
  std::size_t log_index = 0;      // its index in the observed log's events
  std::optional<Event> observed;  // the event no run produced there; none: the model went on
  std::size_t matched = 0;        // events explained before it, over all agents
  std::vector<Event> instead;     // what runs that got this far logged there instead (distinct)
  bool model_could_stop = false;  // some run that got this far logged nothing more for the agent
  std::vector<std::string> spec_steps;  // step ids run since the last choice point, sorted
  // Whether the model ran to it: only the model trails spec steps. When the search ran out of
  // budget on the impl engine, one model replay of `schedule` looks them up; false if that replay
  // did not get here: `spec_steps` is then empty because nobody looked them up, not because no
  // step ran (`--model-only` searches the model and names them).
  bool spec_steps_looked_up = false;
  // The choices of the first run that got this far, as pins (schedule_of_choices): pinned as a
  // trace's `schedule` (then the canonical policy), they replay a log that matches the observed
  // one up to this point.
  std::vector<std::string> schedule;
  // Found by the search of one part (Options::split): its agents. `schedule` then replays that
  // part's trace, part_trace(trace, part), not the whole trace, and `matched` counts the part's
  // events.
  std::vector<std::string> part;
  // What kind of failure it is, without ids, names and values (divergence_signature, signature.h).
  std::string signature;
  // Why, in words, and the spec steps that rule on it, the deciding one first (explain.h).
  std::string why;
  std::vector<std::string> rests_on;
};

// The search under one combination of readings (Report::searches).
struct ReadingSearch {
  Readings readings;
  Verdict verdict = Verdict::Unknown;
  std::uint64_t runs = 0;           // replays under these readings (a look-up's included)
  std::uint64_t model_runs = 0;     // of those, on the spec model
  std::uint64_t choice_points = 0;  // met over its runs
  // Observed events its best run explained: all of them when allowed, else its divergence's
  // `matched`.
  std::size_t matched = 0;
};

// The search of one part of the world (Options::split).
struct PartSearch {
  std::vector<std::string> agents;
  Verdict verdict = Verdict::Unknown;
  std::size_t observed_events = 0;  // its agents' events
  std::uint64_t runs = 0;
  std::uint64_t model_runs = 0;
  // False if the parts were decided before its turn (an earlier part's log is not allowed) or the
  // time ran out first.
  bool searched = true;
};

struct Report {
  Verdict verdict = Verdict::Unknown;
  Profile profile = Profile::Normative;
  std::uint64_t runs = 0;           // replays of the trace
  std::uint64_t model_runs = 0;     // of those, replays on the spec model (the rest on impl)
  std::uint64_t choice_points = 0;  // met over the search's runs (not a confirming replay's)
  // The budget searched with (Options::max_runs): replays per combination of readings on each
  // engine. An unknown verdict says a search spent it; a larger one may decide the log.
  std::uint64_t max_runs = 0;
  double max_seconds = 0;  // Options::max_seconds, 0: none
  // What made an unknown verdict: a search that spent max_runs, and max_seconds passing (a search
  // cut, readings not searched, or the look-up of a divergence's spec steps not made). Either or
  // both; neither on a verdict other than unknown.
  bool runs_ran_out = false;
  bool time_ran_out = false;
  // Unknown for the time after the impl engine's search had tried every schedule and found none
  // that explains the log: the model's search, which alone decides "not allowed", was not made.
  bool not_allowed_on_impl = false;
  // Combinations of readings not searched because the time ran out (after readings_searched).
  std::size_t readings_not_searched = 0;
  // Probes answered from the same probe in an earlier round of the search (I-26) instead of a
  // replay; not counted in runs.
  std::uint64_t reused_probes = 0;
  // Choice points not searched because their state had been searched from another path.
  std::uint64_t states_already_tried = 0;
  std::size_t observed_events = 0;
  std::vector<std::string> schedule;     // Allowed: the choices of a run that produced the log,
                                         // as pins that replay it
  std::optional<Divergence> divergence;  // NotAllowed and Unknown: the furthest point reached
  std::vector<std::string> assumptions;  // what the comparison took for granted
  // The readings of spec text that says two things (docs/interpretations.md I-24, I-25) under
  // which `schedule` produced the log, or under which the search got furthest. Every combination
  // is searched, the trace's own first: `readings_searched` counts those tried.
  Readings readings;
  std::size_t readings_searched = 0;
  // Each combination searched, in order; the totals above are their sums. A spec editor sees
  // which readings a log depends on: a log allowed under the second was not under the first.
  std::vector<ReadingSearch> searches;
  // Each part of the world, in the order of their first agents, and how its search ended; empty if
  // the world was not split. `decided_by_parts`: the verdict is theirs (a part whose log is not
  // allowed, or the parts' runs merged into one that the model replays to the whole log).
  // `searches` and `readings_searched` are always the whole world's search's (none if only the
  // parts were searched); `readings` is the part's where its log is not allowed.
  std::vector<PartSearch> parts;
  bool decided_by_parts = false;
};

// Bad input (an observed event of an unknown agent, a trace the model rejects) is an Error.
// `Options::max_runs` applies to the search under each reading.
Result<Report> check(const Trace& trace, const Log& observed, const Options& options);

// Whether `observed` is what the model logged in `model`, compared as check() compares: each
// agent's events in the same order (the order between agents is free), query() snapshots as the
// spec orders them, clientIds as I-23 reads them (the agents' own ids when `observed` writes only
// agent ids, else paired one to one with the trace's agents over the whole log), DOMExceptions by
// name, steps unless `compare_steps` is false. For comparing a replay of a reported schedule with
// the log it explained: two schedules may give snapshots whose held locks come in another order.
bool same_observations(const Trace& trace, const Log& model, const Log& observed,
                       bool compare_steps = true);

// The parts of the world that run independently under the normative profile: agents joined by a
// shared partition (one lock task queue) or a shared event loop; every reference an action makes
// is to an id made on its own event loop (I-16). The whole world is one part where the clock may
// order one part's work by another's timers: an `advanceTime` step after a `"settle": false` step,
// or in a world with idle callbacks (check/README.md, "Parts"). Each part lists its agents' ids in
// the trace's order; the parts are in the order of their first agents.
std::vector<std::vector<std::string>> independent_parts(const Trace& trace);

// The trace one part is searched on: its agents, and every top-level step so that steps keep their
// numbers, with another agent's step replaced by an empty `run` (with the same `settle`) of one
// window, in a partition and on an event loop of its own, added as the last agent.
// `advanceTime` steps stay: the clock is the world's.
Trace part_trace(const Trace& trace, const std::vector<std::string>& agents);

// Output forms of a report: text for people, JSON for tools, JUnit XML for CI dashboards.
std::string to_text(const Report& report, const std::string& trace_name);
std::string to_json(const Report& report, const std::string& trace_name);
std::string to_junit(const Report& report, const std::string& trace_name);
// Text as XML character data or an attribute's value: the five markup characters escaped, and
// each control character XML 1.0 forbids (all below U+0020 but tab, line feed and carriage return)
// written as U+FFFD, so that no trace name or adapter message makes a JUnit report unreadable.
std::string xml_escape(const std::string& text);

}  // namespace lockstep::check
