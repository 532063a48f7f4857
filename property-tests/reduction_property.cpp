// The claims check's partial-order reduction and its cache of states rest on (check/README.md,
// "Partial-order reduction", "States already tried"): two units the reduction takes as
// independent, from where they run and what each did when it ran, commute; and the state's
// fingerprint (check/src/state_fingerprint.h) is the same after both orders of two such units,
// and differs after two orders of units the reduction tells apart. Tested on the model: at a
// drawn choice point, two units run in one order and then the other, and each run goes on the
// same way after them (the first by the canonical policy, the second by the first's choices, name
// for name). If they commute, the two states are the same but for the ages of queued work, so the
// second run can follow the first and every agent gets the same events.
#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "counterexamples.h"
#include "generators.h"
#include "independence.h"
#include "lockstep/check.h"
#include "runner/trace_runner.h"
#include "state_fingerprint.h"
#include "steered.h"
#include "unit_meter.h"
#include "world_properties.h"

namespace lockstep::properties {
namespace {

using check::Independence;
using check::UnitEffect;

// A run of the model that takes `prefix` (indexes) at its first points, then the two units of
// the pair in order, then the canonical choice at each point, or `follow`'s names if given. It
// measures what each unit did with the search's own meter and keeps the state's fingerprint as
// the search does.
struct PairRun {
  Log log;
  std::vector<std::string> tail;  // the names taken at the points after the pair
  UnitEffect first_did;           // what the pair's first unit did where it ran
  std::uint64_t state = 0;        // the fingerprint right after the pair
  bool pair_ran = false;          // the first unit ran at the drawn point, the second right after
  bool followed = true;           // every name of `follow` was offered where it was due
};

PairRun run_pair(const Trace& trace, const std::vector<std::size_t>& prefix,
                 const std::string& first, const std::string& second,
                 const std::vector<std::string>* follow, const Independence& independence) {
  PairRun out;
  spec::TraceRunner runner(trace);
  spec::World& world = runner.world();
  world.offer_early_units(true);
  world.offer_putting_off_idle(true);
  enum class Phase { Prefix, FirstChosen, FirstRunning, SecondDue, SecondRunning, Tail, Broken };
  Phase phase = Phase::Prefix;
  check::StateFingerprint fingerprint(independence);
  check::UnitMeter meter(independence, [&world](const std::string& partition) {
    return world.lock_steps_enqueued(partition);
  });
  int step_seen = -1;
  const auto pair_ended = [&] {
    out.pair_ran = true;
    out.state = fingerprint.value();
    phase = Phase::Tail;
  };
  // As each unit ends (the world calls it then), and at every point, unit and the end: the unit
  // that ran has ended, or a step began.
  const auto unit_ended = [&] {
    if (meter.running()) {
      const UnitEffect did = meter.ended();
      fingerprint.unit_ran(meter.unit(), did);
      if (phase == Phase::FirstRunning)
        out.first_did = did, phase = Phase::SecondDue;
      else if (phase == Phase::SecondRunning && meter.unit() == second)
        pair_ended();
    }
  };
  const auto between_units = [&] {
    unit_ended();
    if (world.current_step() != step_seen) {
      step_seen = world.current_step();
      fingerprint.step_began(step_seen);
    }
  };
  const auto index_of_unit = [](const ChoicePoint& point, const std::string& unit) {
    for (std::size_t i = 0; i < point.names.size(); ++i)
      if (Independence::unit_of(point.names[i]) == unit) return i;
    return point.names.size();
  };
  std::size_t met = 0;
  const auto pick = [&](const ChoicePoint& point) -> std::size_t {
    const std::size_t here = met++;
    if (phase == Phase::Prefix && here < prefix.size()) return prefix[here];
    if (phase == Phase::Prefix || phase == Phase::SecondDue) {
      const std::size_t i = index_of_unit(point, phase == Phase::Prefix ? first : second);
      if (i == point.names.size()) {
        phase = Phase::Broken;
        return point.canonical;
      }
      phase = phase == Phase::Prefix ? Phase::FirstChosen : Phase::SecondRunning;
      return i;
    }
    if (phase != Phase::Tail) return point.canonical;
    if (follow) {
      const std::size_t j = out.tail.size();
      std::size_t i = 0;
      while (i < point.names.size() && (j >= follow->size() || point.names[i] != (*follow)[j])) ++i;
      if (i == point.names.size()) {
        out.followed = false;
        phase = Phase::Broken;
        return point.canonical;
      }
      out.tail.push_back(point.names[i]);
      return i;
    }
    out.tail.push_back(point.names[point.canonical]);
    return point.canonical;
  };
  world.set_chooser([&](const ChoicePoint& point) -> std::size_t {
    between_units();
    const std::size_t picked = pick(point);
    if (Independence::unit_of(point.names[picked]).empty())
      fingerprint.everything(point.names[picked]);  // a step begins, or idle periods do or not
    return picked;
  });
  world.set_before_unit_observer([&](const std::string& unit, std::uint64_t, int) {
    between_units();
    if (phase == Phase::FirstChosen) {
      phase = Phase::FirstRunning;
    } else if (phase == Phase::SecondDue) {
      // Not offered at a point: it runs next only if it is the one unit left.
      phase = unit == second ? Phase::SecondRunning : Phase::Broken;
    }
    meter.began(unit);
  });
  world.set_unit_observer(unit_ended);
  out.log = runner.run().log;
  between_units();
  if (follow && out.tail.size() != follow->size()) out.followed = false;
  return out;
}

}  // namespace

void units_taken_as_independent_commute() {
  Trace trace = validated(*gen::world_trace());
  trace.readings = any_readings();
  trace.schedule.clear();
  const Independence independence(trace);
  // A schedule drawn point by point, and the points where two units of event loops could run.
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const Steered drawn = steered_on_the_model(
      trace,
      [seed](std::size_t k, const ChoicePoint& point) { return seeded_pick(seed, k, point); });
  struct Pair {
    std::size_t point;
    std::string a, b;
  };
  std::vector<Pair> pairs;
  for (std::size_t k = 0; k < drawn.points.size(); ++k) {
    const ChoicePoint& point = drawn.points[k];
    for (const std::string& x : point.names)
      for (const std::string& y : point.names) {
        const std::string a(Independence::unit_of(x)), b(Independence::unit_of(y));
        if (a.rfind("loop:", 0) != 0 || b.rfind("loop:", 0) != 0 || a >= b) continue;
        pairs.push_back(Pair{k, a, b});
      }
  }
  RC_CLASSIFY(pairs.empty(), "no two units of loops at one point");
  if (pairs.empty()) return;
  const Pair pair = *rc::gen::elementOf(pairs);
  std::vector<std::size_t> prefix;
  for (std::size_t k = 0; k < pair.point; ++k)
    prefix.push_back(seeded_pick(seed, k + 1, drawn.points[k]));

  const PairRun ab = run_pair(trace, prefix, pair.a, pair.b, nullptr, independence);
  const PairRun ba = run_pair(trace, prefix, pair.b, pair.a, &ab.tail, independence);
  RC_CLASSIFY(!ab.pair_ran || !ba.pair_ran, "the pair did not run back to back");
  if (!ab.pair_ran || !ba.pair_ran) return;
  const bool dependent = independence.dependent(pair.a, ab.first_did, pair.b, ba.first_did);
  RC_CLASSIFY(dependent, "taken as dependent");
  RC_CLASSIFY(!dependent && independence.dependent(pair.a, UnitEffect{}, pair.b, UnitEffect{}),
              "independent by what they did, on loops of one partition");
  std::string why;
  if (dependent && ab.state == ba.state)
    why = "the fingerprint takes two orders the reduction tells apart for one state";
  else if (dependent)
    return;
  else if (ab.state != ba.state)
    why = "the fingerprint tells two orders of commuting units apart";
  else if (!ba.followed)
    why = "the other order could not take the same units after them";
  else if (!check::same_observations(trace, ab.log, ba.log))
    why = "the two orders give an agent different events";
  if (!why.empty())
    RC_FAIL(counterexample("units-taken-as-independent-do-not-commute", trace,
                           "seed " + std::to_string(seed) + ", point " +
                               std::to_string(pair.point + 1) + ", " + pair.a + " and " + pair.b +
                               ": " + why));
}

}  // namespace lockstep::properties
