// Both engines steered by one chooser, as check's search steers them, and how they differ: shared
// by the property EnginesOfferTheSameChoicePointsWhenSteered and tests/engines_agree_test.cpp.
// Needs the spec model's sources on the include path (its TraceRunner).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/choice_point.h"
#include "lockstep/impl_replay.h"
#include "lockstep/log_compare.h"
#include "runner/trace_runner.h"

namespace lockstep {

// Steered by a chooser (as check's search steers them, every kind of point offered): the choice
// points an engine met, the log and the choices taken, or the engine's failure.
struct Steered {
  std::vector<ChoicePoint> points;
  Log log;
  std::vector<std::string> choices;
  std::optional<RunFailure> failed;
};

// The alternative to take at the k-th point met (from 1).
using ChoicePicker = std::function<std::size_t(std::size_t k, const ChoicePoint& point)>;

// Drawn from `seed` and k alone, so both engines get the same decisions; most steps begin at once.
inline std::size_t seeded_pick(std::uint64_t seed, std::size_t k, const ChoicePoint& point) {
  std::uint64_t h = (seed + 1) * 0x9e3779b97f4a7c15u ^ (k * 0xbf58476d1ce4e5b9u);
  h ^= h >> 31;
  if (point.before_step && h % 3 != 0) return 0;
  return static_cast<std::size_t>(h % point.names.size());
}

inline Steered steered_on_the_model(const Trace& trace, const ChoicePicker& pick) {
  Steered out;
  spec::TraceRunner runner(trace);
  runner.world().offer_early_units(true);
  runner.world().offer_putting_off_idle(true);
  runner.world().set_chooser([&](const ChoicePoint& point) {
    out.points.push_back(point);
    return pick(out.points.size(), point);
  });
  out.log = runner.run().log;
  out.choices = runner.world().choices_taken();
  return out;
}

inline Steered steered_on_impl(const Trace& trace, const ChoicePicker& pick) {
  Steered out;
  ImplReplay replay(trace);
  replay.offer_early_units(true);
  replay.offer_putting_off_idle(true);
  replay.set_chooser([&](const ChoicePoint& point) {
    out.points.push_back(point);
    return pick(out.points.size(), point);
  });
  RunOutcome outcome = replay.run();
  if (outcome.ok())
    out.log = std::move(outcome.result().log);
  else
    out.failed = outcome.failure();
  out.choices = replay.choices_taken();
  return out;
}

inline std::string describe(const ChoicePoint& p) {
  std::string out = p.before_step ? "before a step:" : p.idle_only ? "idle only:" : "units:";
  for (std::size_t i = 0; i < p.names.size(); ++i)
    out += " " + p.names[i] + (i == p.canonical ? " (canonical)" : "") +
           (std::count(p.proposals.begin(), p.proposals.end(), i) ? " (proposed)" : "");
  return out;
}

// Empty when the impl engine offered the model's choice points one by one (names in order,
// proposals, canonical choice, kind) and logged and chose the same; otherwise what differs.
inline std::string steered_disagreement(const Steered& model, const Steered& impl) {
  if (impl.failed) return "impl failed: " + impl.failed->error.to_string();
  for (std::size_t k = 0; k < std::min(model.points.size(), impl.points.size()); ++k) {
    const ChoicePoint &m = model.points[k], &i = impl.points[k];
    if (m.names != i.names || m.proposals != i.proposals || m.canonical != i.canonical ||
        m.before_step != i.before_step || m.idle_only != i.idle_only)
      return "choice point " + std::to_string(k) + "\nmodel: " + describe(m) +
             "\nimpl:  " + describe(i);
  }
  if (model.points.size() != impl.points.size())
    return "the model met " + std::to_string(model.points.size()) + " choice points, impl " +
           std::to_string(impl.points.size());
  if (auto diff = first_difference(model.log, impl.log)) return *diff;
  if (model.choices != impl.choices) return "the choices taken differ";
  return {};
}

}  // namespace lockstep
