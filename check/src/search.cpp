// The search behind `lockstep check` (check.h). The first replay follows the canonical policy
// throughout; if it does not explain the log, the search proper begins. Every run replays the trace
// from the start on a fresh model (the model has no snapshot/restore) and follows the current path
// of the search tree through the choice points it meets. At a choice point met for the first time,
// the search probes each alternative: a replay that takes it and stops at the next choice point. An
// alternative whose unit logs an event the observed log does not have next for that agent is dead
// and is never explored; the live ones are explored depth first, those whose first event comes
// earliest in the observed log first (the implementation's own interleaving is the best guess),
// then the silent ones, canonical choice first among equals. A dead end backtracks to the deepest
// choice point with an untried live alternative. Alternatives tried before at a point sleep below
// it while only units independent of them run (partial-order reduction, independence.h): under
// the normative profile a sleeping unit is not offered again, since running it there gives a
// schedule equivalent to one already searched.
//
// A probe's canonical continuation tells more than how to order one point's alternatives: the
// choice points it passed before the log strayed are points where the canonical choice keeps
// explaining the log. So after probing a point, the exploring replay takes the canonical choice at
// the points the best alternative's continuation passed (all but the last before it strayed, which
// may be where the log wants something else) without probing them. Their alternatives are kept,
// canonical first, and tried as the search backtracks, so the search covers the same schedules;
// only the probes are saved, which on a log far from the canonical schedule are most of the
// replays. At the last point it passed, the canonical choice is dead unless that continuation
// explained the whole log: it went on from there into the events that strayed, or to an end that
// left observed events unexplained, and a probe of it would replay exactly that. That probe is
// saved too.
//
// The rounds of I-26 (run()) each search the earlier rounds' schedules again. A probe's replay is
// fixed by the choices that lead to it, so each is kept (probed_, ProbeRecord) and a later round
// derives its answer from the record instead of replaying (outcome_of).
//
// Before all that, the canonical schedule is replayed on the impl engine (Options::impl_first):
// the impl engine gives the model's log on every trace and schedule (corpus-impl/*,
// engines_agree_test, the property TheImplEngineAgreesWithTheSpecEngine) about 40 times faster
// on long traces, so a log the canonical schedule explains is answered without the model. Then the
// whole search runs on the impl engine, which offers the model's choice points (ReplayWorld,
// lockstep/impl_replay.h), so it makes the model's replays at a fraction of their cost. The run
// it finds is replayed once on the model, by the same choices, and only a log the model then
// explains is answered so. A search whose budget runs out is unknown without the model, whose
// search would make the same replays. Any other outcome is searched again on the model, which
// alone gives a divergence its spec steps (search_reading).
#include "search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "event_match.h"
#include "independence.h"
#include "lockstep/check.h"
#include "lockstep/choice_point.h"
#include "lockstep/explain.h"
#include "lockstep/impl_engine.h"
#include "lockstep/signature.h"
#include "lockstep/spec_engine.h"
#include "platform/errors.h"
#include "platform/step.h"
#include "replay_world.h"
#include "split.h"
#include "state_fingerprint.h"
#include "unit_meter.h"

namespace lockstep::check {
namespace {

struct Stop {};         // thrown out of an engine's choice point to end a replay early
struct BudgetSpent {};  // thrown when a probe would exceed Options::max_runs or max_seconds

constexpr std::size_t kSilent = std::numeric_limits<std::size_t>::max();

// A sequence of choices, as two independent 64-bit hashes of their names (FNV-1a, and a
// polynomial hash with another multiplier): a probe cache key that stays small however long the
// path. Two different paths collide with a chance of about n^2 / 2^129 for n probes (below 10^-25
// for ten million), far below any other cause of a wrong verdict.
struct ChoicePath {
  std::uint64_t fnv = 14695981039346656037ull;
  std::uint64_t poly = 0;

  static ChoicePath of(const std::vector<std::string>& choices) {
    ChoicePath path;
    for (const std::string& choice : choices) path.add(choice);
    return path;
  }
  ChoicePath then(const std::string& choice) const {
    ChoicePath next = *this;
    next.add(choice);
    return next;
  }
  void add(const std::string& choice) {
    for (unsigned char c : choice) mix(c);
    mix(0x100);  // ends a name: ("ab", "c") and ("a", "bc") differ
  }
  void mix(unsigned c) {
    fnv = (fnv ^ c) * 1099511628211ull;
    poly = poly * 0x9E3779B97F4A7C15ull + c + 1;
  }
  friend bool operator==(const ChoicePath&, const ChoicePath&) = default;
  struct Hash {
    std::size_t operator()(const ChoicePath& p) const { return p.fnv ^ (p.poly >> 7); }
  };
};

// One replay's view of how far the model's log matches the observed one.
struct Progress {
  Progress(const ObservedSnapshots& snapshots, bool compare_steps)
      : matcher(snapshots, compare_steps) {}
  EventMatcher matcher;
  std::map<std::string, std::size_t> matched;
  std::size_t consumed = 0;
  std::size_t first_matched = kSilent;  // observed index of the first event matched lately
  std::map<std::string, std::size_t> unobserved;  // --partial: model events past the observed
};

// An alternative searched before at a point of the path, and what it did there.
struct Sleeper {
  std::string unit;
  UnitEffect did;
};
using Sleepers = std::vector<Sleeper>;

// A choice point of the search tree: its live alternatives (unit indexes) in the order they are
// explored, and which one the current path takes.
struct Node {
  std::vector<std::size_t> order;
  std::vector<std::string> names;  // of those units, for the reported schedule
  std::size_t at = 0;
  // What the units in `order` did when a replay ran them here (partial-order reduction); those
  // tried before `at` sleep with it. Unknown for one no replay has run to its end yet.
  std::vector<UnitEffect> effects;
  // The state the point was met in (StateFingerprint, with what decides the round's choices
  // below it) and the units asleep there; once every alternative has failed, a later point met
  // in the same state with those units asleep, and maybe more, is not searched again.
  std::optional<std::uint64_t> state;
  std::vector<std::string> asleep;
  // Choice points after this one that the best alternative's continuation passed (probed nodes).
  std::size_t reach = 0;
  bool reach_complete = false;  // that continuation explained the whole log
  // How the log matched when the replay that made the node met it. Every later replay reaches the
  // point by the same choices, so logs the same events up to it (the model is deterministic but
  // for its choice points): it takes this instead of matching them again.
  std::optional<Progress> before;
};

// The trace as the search replays it: under `readings`, with no pinned schedule (every schedule is
// searched, not the one the trace pins). The caller's own when it is so already, as it is for the
// first readings searched of a trace without a schedule: a copy of 10^5 steps costs more than the
// impl engine's replay of them.
const Trace& as_searched(const Trace& trace, const Readings& readings, std::optional<Trace>& copy) {
  if (trace.readings == readings && trace.schedule.empty()) return trace;
  copy = trace;
  copy->readings = readings;
  copy->schedule.clear();
  copy->schedule_pointer.clear();
  return *copy;
}

class Search {
 public:
  // Under `readings`, whatever the trace's own (search_every_reading); the observed clientIds
  // read in `client_ids`' form (I-23).
  Search(const Trace& trace, const Readings& readings, const Log& observed, const Options& options,
         ClientIdForm client_ids, SearchEngine engine, const Deadline& deadline)
      : engine_(engine),
        deadline_(deadline),
        trace_(as_searched(trace, readings, copy_)),
        observed_(observed),
        options_(options),
        snapshots_(trace, observed, client_ids),
        independence_(trace),
        reduce_(options.reduce_orders && options.profile == Profile::Normative),
        cache_states_(reduce_ && options.cache_states) {
    if (options.partial)
      for_each_action(trace.steps, [&](const Action& a) {
        if (a.op == Op::Terminate || a.op == Op::Unload) may_stop_early_.insert(a.agent);
      });
    for (std::size_t i = 0; i < observed.events.size(); ++i) {
      const std::string& agent = observed.events[i].agent;
      if (!by_agent_.count(agent)) order_.push_back(agent);
      by_agent_[agent].push_back(i);
    }
  }

  Report run() {
    report_.profile = options_.profile;
    report_.observed_events = observed_.events.size();
    if (options_.impl_first && explained_by_the_impl_engine()) {
      canonical_on_impl_ = true;
      report_.verdict = Verdict::Allowed;
      return finish();
    }
    // First the canonical schedule alone: an implementation that follows the suggested strategy
    // is explained in one replay, without probing any choice point.
    canonical_only_ = true;
    if (replay(0).complete) {
      allowed_canonically_ = true;
      report_.verdict = Verdict::Allowed;
      report_.schedule = schedule_of_choices(canonical_schedule_);
      return finish();
    }
    canonical_only_ = false;
    // I-26: first the schedules in which every step begins at once, then those in which at most
    // one step waits for queued work (any number of units), then two, ...: an implementation that
    // rarely lets a step wait is explained after a search little larger than without those
    // points (as context-bounded model checkers bound preemptions). A round that never met its
    // bound searched everything: its verdict is final.
    for (early_bound_ = 0;; ++early_bound_) {
      nodes_.clear();
      failed_states_.clear();  // tried under this round's bound
      early_bound_hit_ = false;
      // Each round may spend half of what is left, so that a log that needs a waiting step is
      // not kept from the next round by a long search of the schedules without one. A round cut
      // short says nothing final: a later round's schedules include its own.
      const std::uint64_t left = options_.max_runs - std::min(options_.max_runs, report_.runs);
      round_limit_ = report_.runs + std::max<std::uint64_t>(left / 2, 1);
      report_.verdict = search_within_bound();
      if (report_.verdict == Verdict::Allowed) return finish();
      if (report_.runs >= options_.max_runs || report_.time_ran_out) {
        report_.verdict = Verdict::Unknown;
        report_.runs_ran_out = !report_.time_ran_out;
        break;
      }
      if (report_.verdict == Verdict::NotAllowed && !early_bound_hit_) break;
    }
    report_.divergence = best_;  // its spec_steps sorted already (note_divergence)
    return finish();
  }

  // Depth first over the schedules in which at most early_bound_ steps wait for queued work (I-26).
  Verdict search_within_bound() {
    for (;;) {
      if (!may_replay()) return Verdict::Unknown;
      Outcome outcome;
      try {
        outcome = replay(nodes_.size());
      } catch (const BudgetSpent&) {
        return Verdict::Unknown;
      }
      if (outcome.complete) {
        report_.verdict = Verdict::Allowed;
        std::vector<std::string> taken;
        for (const Node& n : nodes_) taken.push_back(n.names[n.at]);
        report_.schedule = schedule_of_choices(taken);  // "step" only where it is needed
        return Verdict::Allowed;
      }
      // Backtrack: the deepest choice point with a live alternative not tried yet.
      while (!nodes_.empty() && nodes_.back().at + 1 >= nodes_.back().order.size()) {
        if (nodes_.back().state) failed(*nodes_.back().state, std::move(nodes_.back().asleep));
        nodes_.pop_back();
      }
      if (nodes_.empty()) return Verdict::NotAllowed;
      ++nodes_.back().at;
    }
  }

  // The verdict is the impl engine's canonical schedule's (explained_by_the_impl_engine): trusted
  // without the model, as the canonical log of every corpus trace and generated world is the
  // model's (corpus-impl/*, TheImplEngineAgreesWithTheSpecEngine).
  bool canonical_on_impl() const { return canonical_on_impl_; }
  // So far, for a search the impl engine's failure cut short.
  std::uint64_t runs() const { return report_.runs; }
  std::uint64_t choice_points() const { return report_.choice_points; }
  std::uint64_t reused_probes() const { return report_.reused_probes; }
  std::uint64_t states_already_tried() const { return report_.states_already_tried; }

  // The run that explained the log, replayed on the model: the same choices, named the same at
  // every point, must explain it there too. This is how a verdict the impl engine's search found
  // becomes the model's. The report counts the replay among the runs (and model_runs), not its
  // choice points.
  std::optional<Report> confirmed_by_the_model() {
    engine_ = SearchEngine::Model;
    confirming_ = true;
    canonical_only_ = allowed_canonically_;
    const std::uint64_t searched = report_.choice_points;
    const Outcome outcome = replay(canonical_only_ ? 0 : nodes_.size());
    report_.choice_points = searched;
    if (!outcome.complete) return std::nullopt;
    report_.model_runs = 1;
    return report_;
  }

  // An unknown verdict's divergence that runs on the impl engine found has no spec steps, since
  // only the model trails them. One replay on the model (this search's engine) of the schedule
  // that first got there (Divergence::schedule, then the canonical policy) logs the same events
  // up to it: the steps of the unit that logs the model's event there are noted as the model's
  // search would note them from that run. True if the replay got to the same place; the model's
  // search would add the steps of every other run that got there too (--model-only).
  bool look_up_spec_steps(Divergence& divergence) {
    best_ = divergence;
    looking_up_ = true;
    Trace pinned = trace_;
    pinned.schedule = divergence.schedule;
    ++report_.runs;
    Progress progress(snapshots_, options_.compare_steps);
    spec::StepTrail steps;  // of the unit running now
    const spec::ScopedStepSink not_counted(nullptr);
    const spec::ScopedStepTrail trail(&steps);
    try {
      const std::unique_ptr<ReplayWorld> world = replay_world(SearchEngine::Model, pinned);
      current_world_ = world.get();
      const auto check_events = [&] {
        if (!still_explains(progress, *world, &steps)) throw Stop{};
        steps.clear();
      };
      world->steer(
          [&](const ChoicePoint& point) {
            check_events();
            return point.canonical;  // the pins are taken before a chooser is asked
          },
          [&](const std::string&) { check_events(); });
      const RunResult result = world->run();
      if (advance(progress, result.log, &steps)) all_matched(progress);
    } catch (const Stop&) {
    } catch (const spec::ReplayError&) {
      // The pins do not replay on the model: the steps stay not looked up.
    }
    current_world_ = nullptr;
    if (!best_->spec_steps_looked_up) return false;
    divergence = *best_;
    return true;
  }

  Report finish() {
    if (!options_.compare_steps)
      report_.assumptions.push_back("events were compared without their step numbers");
    if (report_.verdict == Verdict::Allowed)
      for (const auto& [agent, n] : unobserved_)
        report_.assumptions.push_back(
            "agent " + agent + " (terminated or unloaded): its last " + std::to_string(n) +
            " event(s) in the model's log were taken as not observable (--partial)");
    return report_;
  }

 private:
  struct Outcome {
    bool alive = false;     // the log still matches where the replay stopped
    bool complete = false;  // the replay ended and explained every observed event
    std::size_t first_event = kSilent;
    std::size_t matched = 0;  // observed events explained before the replay stopped
    std::size_t reach = 0;    // probes: choice points the canonical continuation passed
  };

  // What a probe's replay did after the alternative it took, in terms that do not depend on the
  // round (I-26): a point before a step is a choice point only while the round's bound leaves it
  // open, so which points the continuation decided, and whether the log strayed before the first
  // of them (the alternative is dead) or after (it only scores lower), are worked out for the
  // round at hand (outcome_of). Kept per probe in probed_, so a later round, which searches the
  // earlier rounds' schedules again, does not replay them.
  struct ProbeRecord {
    bool reached = false;  // the replay got to the probed point
    // The points the continuation passed: those every round offers, and those before a step
    // (that did not wait already), which only a round whose bound is above late_steps offers.
    // The continuation lets no step wait, so late_steps is the same at all of them.
    std::size_t points = 0;
    std::size_t before_steps = 0;
    std::size_t late_steps = 0;  // steps let wait so far, the probed choice included
    bool explained = false;      // the run ended and explained every observed event
    std::size_t first_event = kSilent;
    std::size_t matched = 0;
  };

  // The probe's outcome under this round's bound; notes that the bound closed a point it passed.
  Outcome outcome_of(const ProbeRecord& r) {
    if (!r.reached) return Outcome{};
    std::size_t decided = r.points;  // choice points of this round after the probed one
    if (r.late_steps < early_bound_)
      decided += r.before_steps;
    else if (r.before_steps > 0)
      early_bound_hit_ = true;  // a step began for want of a choice there
    if (r.explained)            // such a probe vouches for every point after it, and for itself
      return Outcome{true, true, r.first_event, r.matched, decided + 1};
    // Strayed before any choice point after the probed one: the probed segment logged an event
    // not observed next (or left the log unexplained at the end), so the alternative is dead.
    if (decided == 0) return Outcome{};
    return Outcome{true, false, r.first_event, r.matched, decided};
  }

  // Replays along the current path. A probe (`probe` set, which it fills) takes alternative
  // `probe_choice` at depth `depth` (the first choice point not on the path); the alternative is
  // dead if the events up to the next choice point do not match. Then it goes on by the canonical
  // policy until the log strays or the run ends, which scores the alternative: how many observed
  // events the run explains, and where its first event sits in the observed log (so a unit that
  // logs nothing itself is judged by what follows it). What happens after the probed segment only
  // orders the alternatives; it never kills one (outcome_of). An exploring replay extends the
  // path at every new choice point, probing its alternatives to order them.
  Outcome replay(std::size_t depth, ProbeRecord* probe = nullptr, std::size_t probe_choice = 0) {
    ++report_.runs;
    Progress progress(snapshots_, options_.compare_steps);
    // Up to the path's last point the log is known to match (Node::before): its events are not
    // matched again, and the spec steps of its units, which only a divergence reports, not noted.
    const std::size_t follow_until =
        !confirming_ && depth > 0 && nodes_[depth - 1].before ? depth : 0;
    spec::StepTrail steps;  // of the unit running now
    const spec::ScopedStepSink not_counted(nullptr);
    const spec::ScopedStepTrail trail(follow_until > 0 ? nullptr : &steps);
    const std::unique_ptr<ReplayWorld> replaying = replay_world(engine_, trace_);
    ReplayWorld& world = *replaying;
    // This replay's world until it ends; then the world of the replay that probed through it.
    struct CurrentWorld {
      ReplayWorld*& current;
      ReplayWorld* const outer;
      ~CurrentWorld() { current = outer; }
    } const restore_world{current_world_, current_world_};
    current_world_ = &world;
    world.set_logging(follow_until == 0);  // the path's events: neither matched nor kept
    std::size_t met = 0;                   // choice points met in this replay
    // Units asleep here (partial-order reduction): alternatives searched before at a point of the
    // path, while only units independent of them have run since.
    Sleepers sleep;
    // What the unit running now did is known once it has ended (finish_unit, which the world
    // calls then; the next point, unit or end of the run calls it too, in case). running_node is
    // the path point whose alternative it is (kSilent for none).
    UnitMeter meter(independence_, [&world](const std::string& partition) {
      return world.lock_steps_enqueued(partition);
    });
    std::size_t running_node = kSilent;
    std::size_t taken_at = kSilent;  // the path point whose alternative was taken last
    // The state reached (cache_states_): every unit, step begun and choice that runs no unit.
    std::optional<StateFingerprint> fingerprint;
    if (cache_states_ && !probe && !confirming_ && !canonical_only_)
      fingerprint.emplace(independence_);
    int fingerprinted_step = -1;
    std::optional<std::uint64_t> state;  // at the point being decided, with the round's counts
    const auto note_step = [&] {
      if (!fingerprint || world.current_step() == fingerprinted_step) return;
      fingerprinted_step = world.current_step();
      fingerprint->step_began(fingerprinted_step);
    };
    // A unit ended: notes what it did at its path point, and wakes the sleepers it does not
    // commute with (itself included, if it ran anyway).
    const auto finish_unit = [&] {
      if (!meter.running()) return;
      const UnitEffect did = meter.ended();
      if (fingerprint) fingerprint->unit_ran(meter.unit(), did);
      if (running_node != kSilent) {
        Node& node = nodes_[running_node];
        node.effects.resize(node.order.size());
        node.effects[node.at] = did;
      }
      sleep.erase(std::remove_if(sleep.begin(), sleep.end(),
                                 [&](const Sleeper& s) {
                                   return independence_.dependent(s.unit, s.did, meter.unit(), did);
                                 }),
                  sleep.end());
    };
    // Exploring replays: new choice points before this one take the canonical choice unprobed.
    std::size_t trusted_until = 0;
    std::size_t canonical_dead_at = kSilent;  // after a probe whose winner left the log unexplained
    const auto check_events = [&] {
      if (met < follow_until) return;  // on the path: matched already
      if (!still_explains(progress, world, &steps)) throw Stop{};
    };
    // What the current path, the probe or the canonical policy takes at a choice point.
    const auto decide = [&](const ChoicePoint& point) -> std::size_t {
      ++report_.choice_points;
      const std::size_t here = met++;
      if (canonical_only_) {
        canonical_schedule_.push_back(point.names[point.canonical]);
        return point.canonical;
      }
      if (here < depth) {
        const Node& node = nodes_[here];
        const std::size_t taken = node.order[node.at];
        if (confirming_ &&
            (taken >= point.names.size() || point.names[taken] != node.names[node.at]))
          throw Stop{};  // the model offers other units here than the impl engine did
        if (reduce_)
          for (std::size_t i = 0; i < node.at; ++i)
            sleep.push_back(Sleeper{std::string(Independence::unit_of(node.names[i])),
                                    i < node.effects.size() ? node.effects[i] : UnitEffect{}});
        taken_at = here;
        if (here + 1 == follow_until) {  // the path's last point: matching resumes after it
          progress = *node.before;
          progress.consumed = world.event_log().events.size();  // none: logging was off
          world.set_logging(true);
          spec::set_step_trail(&steps);
        }
        return taken;
      }
      if (confirming_) throw Stop{};  // a point the impl engine's run did not have
      if (probe) {
        if (here == depth) {
          progress.first_matched = kSilent;
          return alternatives(point, sleep)[probe_choice];
        }
        return point.canonical;
      }
      // An exploring replay meets a new choice point: trusted (see the top of this file), or
      // ordered by probing its alternatives.
      Node node;
      if (state && tried_before(*state, sleep)) {
        ++report_.states_already_tried;
        throw Stop{};  // every schedule on from here was searched from another path
      }
      if (here < trusted_until) node = trusted_node(point, sleep);
      if (node.order.empty()) {
        node = order_alternatives(point, here, sleep, here == canonical_dead_at);
        if (node.order.empty()) {  // every alternative is dead
          if (state) failed(*state, names_of(sleep));
          throw Stop{};
        }
        trusted_until = here + node.reach;  // all but the last point the continuation passed
        canonical_dead_at = node.reach_complete ? kSilent : trusted_until;
      }
      node.before = progress;
      if (state) node.state = state, node.asleep = names_of(sleep);
      nodes_.push_back(std::move(node));
      ++depth;
      taken_at = here;
      return nodes_[here].order[0];
    };
    // I-26: the steps this replay let wait for queued work, and the last of them. Once a step
    // waits, more units before it cost nothing more.
    std::size_t late_steps = 0;
    int late_step = -1;
    const auto chooser = [&](const ChoicePoint& point) -> std::size_t {
      finish_unit();
      taken_at = kSilent;
      note_step();
      check_events();
      steps.clear();
      if (point.idle_only && canonical_only_) return 0;  // the canonical schedule starts them
      const bool waits_already = point.before_step && world.current_step() == late_step;
      const bool bounded = point.before_step && !waits_already;
      const bool after_probe = probe && met > depth;  // the probed point was decided
      if (bounded && (canonical_only_ || late_steps >= early_bound_)) {
        // Not a choice point of this round: the step begins.
        if (!canonical_only_) early_bound_hit_ = true;
        sleep.clear();
        if (after_probe) ++probe->before_steps;
        return 0;
      }
      if (fingerprint) {
        // The state, with what decides this round's choices after it: the steps let wait so
        // far, and whether the current one waits, and what kind of point this is.
        std::uint64_t key = fingerprint->value();
        for (const std::uint64_t part :
             {std::uint64_t{late_steps}, std::uint64_t{waits_already},
              std::uint64_t{point.before_step}, std::uint64_t{point.idle_only}})
          key = (key ^ part) * 0x100000001b3u;
        state = key;
      }
      const std::size_t picked = decide(point);
      state.reset();
      // A choice that runs no unit (a step begins, an idle period...) is ordered against all.
      const bool no_unit = Independence::unit_of(point.names[picked]).empty();
      if (fingerprint && no_unit) fingerprint->everything(point.names[picked]);
      if (bounded && picked != 0) {
        ++late_steps;
        late_step = world.current_step();
      }
      if (!sleep.empty() && no_unit) sleep.clear();  // a step begins
      if (after_probe) ++(bounded ? probe->before_steps : probe->points);
      return picked;
    };
    const auto before_unit = [&](const std::string& unit) {
      finish_unit();
      note_step();
      check_events();
      steps.clear();  // the steps noted with a divergence are those of the unit that logged it
      // The alternative the path took at its last point, if this is it (not a unit run after it).
      const bool taken_here =
          taken_at != kSilent &&
          Independence::unit_of(nodes_[taken_at].names[nodes_[taken_at].at]) == unit;
      running_node = taken_here ? taken_at : kSilent;
      taken_at = kSilent;
      meter.began(unit);
    };
    world.steer(chooser, before_unit);   // with points before steps (I-26) and idle-only (I-27)
    world.after_each_unit(finish_unit);  // before a step that follows adds its own lock steps
    // How the replay ended: a probe's outcome depends on the round (outcome_of); an exploring
    // replay's only on whether it explained the whole log.
    const auto ended = [&](bool explained) {
      if (!probe)
        return explained ? Outcome{true, true, progress.first_matched, total(progress), 0}
                         : Outcome{};
      probe->reached = met > depth;
      probe->late_steps = late_steps;  // the continuation lets no step wait
      probe->explained = explained;
      probe->first_event = progress.first_matched;
      probe->matched = total(progress);
      return outcome_of(*probe);
    };
    RunResult result;
    try {
      result = world.run();  // takes the log out of the world
    } catch (const Stop&) {
      return ended(false);
    }
    finish_unit();
    if (!advance(progress, result.log, &steps)) return ended(false);
    if (!all_matched(progress)) return ended(false);
    unobserved_ = progress.unobserved;
    return ended(true);
  }

  // The canonical schedule on the impl engine: true when its log explains the observed one, with
  // the run, its choice points and its schedule (the model's canonical one) in the report.
  bool explained_by_the_impl_engine() {
    RunOutcome outcome = make_impl_engine()->run(trace_, {});
    if (!outcome.ok()) return false;  // the model will say what is wrong
    Progress progress(snapshots_, options_.compare_steps);
    if (!advance(progress, outcome.result().log, nullptr) || !all_matched(progress, false))
      return false;
    ++report_.runs;
    report_.choice_points += outcome.result().choices.size();
    report_.schedule = schedule_of_choices(outcome.result().choices);
    unobserved_ = progress.unobserved;
    return true;
  }

  // The point's alternatives the search tries, canonical first, but for those asleep.
  std::vector<std::size_t> alternatives(const ChoicePoint& point, const Sleepers& sleep) const {
    std::vector<std::size_t> all{point.canonical};
    if (options_.profile == Profile::Intent) {
      for (std::size_t i : point.proposals)
        if (i != point.canonical) all.push_back(i);
    } else {
      for (std::size_t i = 0; i < point.names.size(); ++i)
        if (i != point.canonical) all.push_back(i);
    }
    if (sleep.empty()) return all;
    const auto asleep = [&](std::size_t i) {
      const std::string_view unit = Independence::unit_of(point.names[i]);
      return !unit.empty() && std::any_of(sleep.begin(), sleep.end(),
                                          [&](const Sleeper& s) { return s.unit == unit; });
    };
    all.erase(std::remove_if(all.begin(), all.end(), asleep), all.end());
    return all;
  }

  // A point the best continuation of the last probed point passed: its alternatives unprobed,
  // canonical first. Empty if the canonical choice is asleep here (the point is probed instead).
  Node trusted_node(const ChoicePoint& point, const Sleepers& sleep) const {
    Node node;
    const std::vector<std::size_t> all = alternatives(point, sleep);
    if (all.empty() || all.front() != point.canonical) return node;
    node.order = all;
    for (std::size_t i : all) node.names.push_back(point.names[i]);
    return node;
  }

  // `canonical_dead`: known without a probe (see the top of this file).
  Node order_alternatives(const ChoicePoint& point, std::size_t depth, const Sleepers& sleep,
                          bool canonical_dead) {
    const std::vector<std::size_t> all = alternatives(point, sleep);
    // Every choice the world has made so far, single units included: the model and the impl
    // engine are deterministic but for these, so they name the state the probes start from.
    const ChoicePath here =
        options_.reuse_probes ? ChoicePath::of(current_world_->choices_taken()) : ChoicePath{};
    // Best first: a replay that explains everything; then the one whose canonical continuation
    // explains the most events; then the one whose first event comes earliest in the observed
    // log; then canonical order. Each with how far its continuation went (ranks differ, so that
    // never decides the order).
    std::vector<std::tuple<bool, std::size_t, std::size_t, std::size_t, std::size_t>> live;
    for (std::size_t rank = 0; rank < all.size(); ++rank) {
      if (canonical_dead && all[rank] == point.canonical) continue;
      const ChoicePath key = here.then(point.names[all[rank]]);
      Outcome o;
      if (const auto known = probed_.find(key); options_.reuse_probes && known != probed_.end()) {
        o = outcome_of(known->second);  // probed in an earlier round: the same replay
        ++report_.reused_probes;
      } else {
        if (!may_replay()) throw BudgetSpent{};
        ProbeRecord record;
        o = replay(depth, &record, rank);
        if (options_.reuse_probes) probed_.emplace(key, record);
      }
      if (o.alive)
        live.emplace_back(!o.complete, kSilent - o.matched, o.first_event, rank, o.reach);
    }
    std::sort(live.begin(), live.end());
    Node node;
    if (!live.empty()) {
      node.reach = std::get<4>(live.front());
      node.reach_complete = !std::get<0>(live.front());
    }
    for (const auto& [incomplete, unexplained, first, rank, reach] : live) {
      node.order.push_back(all[rank]);
      node.names.push_back(point.names[all[rank]]);
    }
    return node;
  }

  static std::size_t total(const Progress& p) {
    std::size_t n = 0;
    for (const auto& [agent, k] : p.matched) n += k;
    return n;
  }

  // Compares the events logged since the last call with the observed ones, agent by agent. A
  // mismatch is noted as a divergence with `steps` (those of the unit that logged it), unless
  // `steps` is null.
  bool advance(Progress& p, const Log& log, const spec::StepTrail* steps) {
    for (; p.consumed < log.events.size(); ++p.consumed) {
      const Event& e = log.events[p.consumed];
      const auto& mine = by_agent_[e.agent];
      std::size_t& k = p.matched[e.agent];
      if (k < mine.size() && p.matcher.matches(e, observed_.events[mine[k]])) {
        p.first_matched = std::min(p.first_matched, mine[k]);
        ++k;
        continue;
      }
      if (k >= mine.size() && may_stop_early_.count(e.agent)) {
        ++p.unobserved[e.agent];  // --partial: the agent's observed events stopped early
        continue;
      }
      if (steps) note_divergence(e.agent, k, total(p), &e, *steps);
      return false;
    }
    return true;
  }

  // The model stamps every event with the latest top-level step begun (I-3), so once step s has
  // begun, an observed event of an earlier step that is still unexplained never will be: the
  // replay is dead at once, not at the agent's next event, which may come much later (noted as a
  // divergence: the model went on without it).
  bool steps_still_reachable(Progress& p, int current_step) {
    if (!options_.compare_steps) return true;
    for (const std::string& agent : order_) {
      const auto& mine = by_agent_[agent];
      const std::size_t k = p.matched[agent];
      if (k < mine.size() && observed_.events[mine[k]].step < current_step) {
        note_divergence(agent, k, total(p), nullptr, {});
        return false;
      }
    }
    return true;
  }

  // Whether a replay under way can still explain the log: the events it logged since the last
  // call match, and no observed event of a step already left is still unexplained. Both the
  // search's replays and the look-up of a divergence's spec steps stop when it cannot.
  bool still_explains(Progress& p, ReplayWorld& world, const spec::StepTrail* steps) {
    return advance(p, world.event_log(), steps) && steps_still_reachable(p, world.current_step());
  }

  // At the end of a replay: every agent's observed events were all logged (noted as a divergence
  // if not, when `note`).
  bool all_matched(Progress& p, bool note = true) {
    for (const std::string& agent : order_) {
      const std::size_t k = p.matched[agent];
      if (k < by_agent_[agent].size()) {
        if (note) note_divergence(agent, k, total(p), nullptr, {});
        return false;
      }
    }
    return true;
  }

  // Keeps the divergence of the replay that explained the most events; replays that fail at the
  // same place add what they logged there instead.
  void note_divergence(const std::string& agent, std::size_t k, std::size_t matched,
                       const Event* model_event, const spec::StepTrail& steps) {
    const auto& mine = by_agent_[agent];
    const bool same_place =
        best_ && best_->matched == matched && best_->agent == agent && best_->agent_index == k;
    if (!same_place) {
      if (looking_up_) return;  // not where the divergence looked up is
      if (best_ && best_->matched >= matched) return;
      best_ = Divergence{};
      best_->agent = agent;
      best_->agent_index = k;
      best_->matched = matched;
      best_->schedule = schedule_of_choices(current_world_->choices_taken());
      if (k < mine.size()) {
        best_->log_index = mine[k];
        best_->observed = observed_.events[mine[k]];
      }
    }
    if (engine_ == SearchEngine::Model) best_->spec_steps_looked_up = true;
    if (model_event) {
      if (std::find(best_->instead.begin(), best_->instead.end(), *model_event) ==
          best_->instead.end())
        best_->instead.push_back(*model_event);
      auto& ids = best_->spec_steps;  // sorted, without repeats (a trail repeats ids)
      ids.insert(ids.end(), steps.begin(), steps.end());
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    } else {
      best_->model_could_stop = true;
    }
  }

  // Whether the search may begin another replay: within this round's share of max_runs and
  // before the deadline of max_seconds (noted in the report when that is what stops it).
  bool may_replay() {
    if (report_.runs >= round_limit_) return false;
    if (deadline_.passed()) report_.time_ran_out = true;
    return !report_.time_ran_out;
  }

  SearchEngine engine_;
  const Deadline& deadline_;
  std::optional<Trace> copy_;  // of the caller's trace, if it needed other readings or no schedule
  const Trace& trace_;
  const Log& observed_;
  Options options_;
  ObservedSnapshots snapshots_;  // what every replay's matcher reads snapshots by
  Independence independence_;
  bool reduce_;  // partial-order reduction (Options::reduce_orders, normative profile only)
  std::map<std::string, std::vector<std::size_t>> by_agent_;  // observed event indexes per agent
  std::set<std::string> may_stop_early_;  // --partial: agents the trace terminates or unloads
  std::map<std::string, std::size_t> unobserved_;  // of the replay that explained the log
  std::vector<std::string> order_;    // agents in the order the observed log first names them
  std::vector<Node> nodes_;           // the current path of the search tree
  bool canonical_only_ = false;       // the first replay: the canonical policy throughout
  bool canonical_on_impl_ = false;    // the verdict came from explained_by_the_impl_engine()
  bool allowed_canonically_ = false;  // the verdict came from the canonical-only replay
  bool confirming_ = false;           // replaying the path found on the impl engine, on the model
  bool looking_up_ = false;           // replaying a divergence's schedule for its spec steps
  std::size_t early_bound_ = 0;    // this round's: steps that wait for queued work, at most (I-26)
  bool early_bound_hit_ = false;   // this round met a point its bound closed
  std::uint64_t round_limit_ = 0;  // the replays this round may reach (report_.runs)
  std::vector<std::string> canonical_schedule_;
  std::optional<Divergence> best_;
  ReplayWorld* current_world_ = nullptr;  // of the innermost replay running now
  Report report_;
  // Every probe of this search, by the choices that lead to it and the alternative it took. A
  // round re-searches the schedules of the rounds before it (I-26), so it meets the same points
  // and would probe them again.
  std::unordered_map<ChoicePath, ProbeRecord, ChoicePath::Hash> probed_;
  // States whose every schedule failed in this round, with the units asleep when they were tried.
  bool cache_states_;
  std::unordered_map<std::uint64_t, std::vector<std::vector<std::string>>> failed_states_;

  static std::vector<std::string> names_of(const Sleepers& sleep) {
    std::vector<std::string> names;
    for (const Sleeper& s : sleep) names.push_back(s.unit);
    return names;
  }
  void failed(std::uint64_t state, std::vector<std::string> asleep) {
    failed_states_[state].push_back(std::move(asleep));
  }
  // Whether the state was tried with no unit asleep that is not asleep now: its search then
  // covered every schedule this one would search (sleep sets with state caching).
  bool tried_before(std::uint64_t state, const Sleepers& sleep) const {
    const auto found = failed_states_.find(state);
    if (found == failed_states_.end()) return false;
    for (const std::vector<std::string>& asleep : found->second)
      if (std::all_of(asleep.begin(), asleep.end(), [&](const std::string& unit) {
            return std::any_of(sleep.begin(), sleep.end(),
                               [&](const Sleeper& s) { return s.unit == unit; });
          }))
        return true;
    return false;
  }
};

// The search under one readings: on the impl engine first (Options::impl_first), whose schedule
// the model then confirms with one replay that takes the same choices; a search whose budget ran
// out there is unknown; otherwise, or if the impl engine fails, rules the log out or is not
// confirmed, on the model, which alone gives a divergence its spec steps.
Report search_reading(const Trace& trace, const Readings& readings, const Log& observed,
                      const Options& options, ClientIdForm client_ids, const Deadline& deadline) {
  std::uint64_t impl_runs = 0, impl_choice_points = 0, impl_reused_probes = 0, unconfirmed = 0,
                impl_states_already_tried = 0;
  if (options.impl_first) {
    Search search(trace, readings, observed, options, client_ids, SearchEngine::Impl, deadline);
    try {
      const Report report = search.run();
      if (search.canonical_on_impl()) return report;
      // The budget ran out: the model's search makes the same replays in the same order
      // (CheckSearchesTheSameOnBothEngines), so it would end unknown too, at several times the
      // cost. The divergence has no spec steps then (only the model trails them); the one
      // reported gets them from one model replay (search_every_reading).
      if (report.verdict == Verdict::Unknown) return report;
      if (report.verdict == Verdict::Allowed)
        if (std::optional<Report> confirmed = search.confirmed_by_the_model()) return *confirmed;
      unconfirmed = report.verdict == Verdict::Allowed ? 1 : 0;  // a model replay that disagreed
      if (deadline.passed()) {  // no time left for the model's search: unknown
        Report cut = report;
        cut.not_allowed_on_impl = report.verdict == Verdict::NotAllowed;
        cut.verdict = Verdict::Unknown;
        cut.time_ran_out = true;
        cut.runs = search.runs();
        cut.model_runs = unconfirmed;
        return cut;
      }
    } catch (const ImplFailed&) {
      // The model replays it next and says what is wrong, if anything.
    }
    impl_runs = search.runs() - unconfirmed;
    impl_choice_points = search.choice_points();
    impl_reused_probes = search.reused_probes();
    impl_states_already_tried = search.states_already_tried();
  }
  Options model_options = options;
  model_options.impl_first = false;
  Report report =
      Search(trace, readings, observed, model_options, client_ids, SearchEngine::Model, deadline)
          .run();
  report.model_runs = report.runs + unconfirmed;
  report.runs += impl_runs + unconfirmed;
  report.choice_points += impl_choice_points;
  report.reused_probes += impl_reused_probes;
  report.states_already_tried += impl_states_already_tried;
  return report;
}

}  // namespace

Report search_every_reading(const Trace& trace, const Log& observed, const Options& options,
                            ClientIdForm client_ids, const Deadline& deadline) {
  Report result;
  std::uint64_t runs = 0, model_runs = 0, choice_points = 0, reused_probes = 0,
                states_already_tried = 0;
  bool unknown = false, runs_ran_out = false, time_ran_out = false, not_allowed_on_impl = false;
  std::size_t readings_not_searched = 0;
  std::vector<ReadingSearch> searches;
  const std::vector<Readings> readings = trace.readings_that_matter();
  for (std::size_t i = 0; i < readings.size(); ++i) {
    if (i > 0 && deadline.passed()) {  // the readings left are not searched: unknown
      unknown = time_ran_out = true;
      readings_not_searched = readings.size() - i;
      break;
    }
    Report report = search_reading(trace, readings[i], observed, options, client_ids, deadline);
    runs_ran_out = runs_ran_out || report.runs_ran_out;
    time_ran_out = time_ran_out || report.time_ran_out;
    not_allowed_on_impl = not_allowed_on_impl || report.not_allowed_on_impl;
    report.readings = readings[i];
    searches.push_back(ReadingSearch{readings[i], report.verdict, report.runs, report.model_runs,
                                     report.choice_points,
                                     report.verdict == Verdict::Allowed ? observed.events.size()
                                     : report.divergence                ? report.divergence->matched
                                                                        : 0});
    runs += report.runs;
    model_runs += report.model_runs;
    choice_points += report.choice_points;
    reused_probes += report.reused_probes;
    states_already_tried += report.states_already_tried;
    unknown = unknown || report.verdict == Verdict::Unknown;
    const auto reach = [](const Report& r) { return r.divergence ? r.divergence->matched + 1 : 0; };
    if (report.verdict == Verdict::Allowed || result.readings_searched == 0 ||
        reach(report) > reach(result))
      result = std::move(report);
    result.readings_searched = i + 1;
    if (result.verdict == Verdict::Allowed) break;
  }
  if (result.verdict != Verdict::Allowed)
    result.verdict = unknown ? Verdict::Unknown : Verdict::NotAllowed;
  // Unknown on the impl engine: the divergence reported gets its spec steps from one model replay,
  // unless the time ran out (that replay may take as long as the model's replay of the trace).
  const bool look_up = result.verdict == Verdict::Unknown && result.divergence &&
                       !result.divergence->spec_steps_looked_up;
  if (look_up && deadline.passed()) time_ran_out = true;
  if (look_up && !time_ran_out) {
    Options model_options = options;
    model_options.impl_first = false;
    Search search(trace, result.readings, observed, model_options, client_ids, SearchEngine::Model,
                  deadline);
    search.look_up_spec_steps(*result.divergence);
    runs += search.runs();
    model_runs += search.runs();
    for (ReadingSearch& s : searches)
      if (s.readings == result.readings) s.runs += search.runs(), s.model_runs += search.runs();
  }
  result.searches = std::move(searches);
  result.runs = runs;
  result.model_runs = model_runs;
  result.choice_points = choice_points;
  result.reused_probes = reused_probes;
  result.states_already_tried = states_already_tried;
  result.max_runs = options.max_runs;
  result.max_seconds = options.max_seconds;
  const bool is_unknown = result.verdict == Verdict::Unknown;
  result.runs_ran_out = is_unknown && runs_ran_out;
  result.time_ran_out = is_unknown && time_ran_out;
  result.not_allowed_on_impl = is_unknown && not_allowed_on_impl;
  result.readings_not_searched = readings_not_searched;
  return result;
}

namespace {

// The parts' search counted into the whole world's, whose verdict is the check's.
Report with_parts(Report whole, const Report& by_parts) {
  add_totals(whole, by_parts);
  whole.parts = by_parts.parts;
  if (whole.verdict == Verdict::Unknown) {
    whole.runs_ran_out = whole.runs_ran_out || by_parts.runs_ran_out;
    whole.time_ran_out = whole.time_ran_out || by_parts.time_ran_out;
  }
  return whole;
}

}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Allowed:
      return "allowed";
    case Verdict::NotAllowed:
      return "not allowed";
    case Verdict::Unknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

// check() but for the divergence's signature and explanation.
Result<Report> decide(const Trace& trace, const Log& observed, const Options& options) {
  if (observed.partial && !options.partial) {  // the log says it may lose events: --partial
    Options as_partial = options;
    as_partial.partial = true;
    return decide(trace, observed, as_partial);
  }
  for (std::size_t i = 0; i < observed.events.size(); ++i) {
    const std::string& agent = observed.events[i].agent;
    const bool known = std::any_of(trace.agents.begin(), trace.agents.end(),
                                   [&](const Agent& a) { return a.id == agent; });
    if (!known)
      return Error{"/events/" + std::to_string(i) + "/agent",
                   "agent \"" + agent + "\" is not an agent of the trace"};
  }
  try {
    const Deadline deadline(options.max_seconds);
    // I-23: decided once for the observed log, and held to by every search of it.
    const ClientIdForm client_ids = client_id_form(trace, observed);
    if (!may_split(options))
      return search_every_reading(trace, observed, options, client_ids, deadline);
    if (options.split == Split::First) {
      const std::vector<std::vector<std::string>> parts = independent_parts(trace);
      if (parts.size() < 2)
        return search_every_reading(trace, observed, options, client_ids, deadline);
      Report by_parts = search_by_parts(trace, observed, options, client_ids, deadline, parts);
      if (by_parts.verdict != Verdict::Unknown) return by_parts;
      return with_parts(search_every_reading(trace, observed, options, client_ids, deadline),
                        by_parts);
    }
    Report whole = search_every_reading(trace, observed, options, client_ids, deadline);
    // A whole search cut by the time leaves none for the parts.
    if (whole.verdict != Verdict::Unknown || deadline.passed()) return whole;
    // Only now: most checks end before they would need the parts.
    const std::vector<std::vector<std::string>> parts = independent_parts(trace);
    if (parts.size() < 2) return whole;
    Report by_parts = search_by_parts(trace, observed, options, client_ids, deadline, parts);
    if (by_parts.verdict == Verdict::Unknown) return with_parts(std::move(whole), by_parts);
    by_parts.searches = std::move(whole.searches);
    by_parts.readings_searched = whole.readings_searched;
    add_totals(by_parts, whole);
    return by_parts;
  } catch (const spec::ReplayError& e) {
    return e.error;
  }
}

}  // namespace

Result<Report> check(const Trace& trace, const Log& observed, const Options& options) {
  Result<Report> report = decide(trace, observed, options);
  if (report && report->divergence) {
    Divergence& d = *report->divergence;
    d.signature = divergence_signature(trace, d);
    Why why = divergence_why(trace, d);
    d.why = std::move(why.text);
    d.rests_on = std::move(why.rests_on);
  }
  return report;
}

}  // namespace lockstep::check
