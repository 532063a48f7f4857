// The search of a world split into its independent parts (split.h, check/README.md "Parts").
#include "split.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "independence.h"
#include "lockstep/choice_point.h"
#include "platform/errors.h"
#include "replay_world.h"
#include "search.h"

namespace lockstep::check {
namespace {

struct LeftThePartsRuns {};  // ends a merged replay that ran a unit no part's run has next

// One part's events of the observed log, and where each is in the whole log.
struct PartLog {
  Log log;
  std::vector<std::size_t> world_index;
};

PartLog part_log(const Log& observed, const std::vector<std::string>& agents) {
  const std::set<std::string> members(agents.begin(), agents.end());
  PartLog part;
  for (std::size_t i = 0; i < observed.events.size(); ++i)
    if (members.count(observed.events[i].agent)) {
      part.log.events.push_back(observed.events[i]);
      part.world_index.push_back(i);
    }
  return part;
}

// When a unit runs: the top-level step begun last, and the step its events are stamped with. The
// two tell a unit run in a step's settling from one run before the next step (I-26), which has
// the same step begun last but the stamp of the settling under way.
struct Moment {
  int step = 0;
  int stamp = 0;
  friend bool operator==(const Moment&, const Moment&) = default;
};

Moment now(const ReplayWorld& world) {
  return Moment{world.current_step(), world.stamp_step()};
}

// A unit that ran in a part's run, and when.
struct UnitRun {
  Moment at;
  std::string unit;
};

// Which part runs a unit, by its name ("locks:<partition>", "loop:<L>/<source>").
class UnitOwners {
 public:
  UnitOwners(const Trace& trace, const std::vector<std::vector<std::string>>& parts) {
    for (std::size_t p = 0; p < parts.size(); ++p)
      for (const std::string& id : parts[p]) {
        const Agent& agent = *trace.agent(id);
        partitions_[agent.partition] = p;
        loops_[agent.event_loop] = p;
      }
  }
  std::optional<std::size_t> of(const std::string& unit) const {
    const UnitName name = parse_unit_name(unit);
    const auto& owners = name.lock_queue ? partitions_ : loops_;
    const auto it = owners.find(name.where);
    return it == owners.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }

 private:
  // std::less<>: looked up by views into unit names
  std::map<std::string, std::size_t, std::less<>> partitions_, loops_;
};

bool is_idle_period(const std::string& unit) {
  return parse_unit_name(unit).source == "idle";
}

// The units a part's allowed run ran, in order: its trace replayed under its schedule and
// readings on the impl engine (which replays every schedule as the model does). None if the
// impl engine fails.
std::optional<std::vector<UnitRun>> units_run(const Trace& part, const Report& allowed) {
  Trace pinned = part;
  pinned.schedule = allowed.schedule;
  pinned.readings = allowed.readings;
  std::vector<UnitRun> runs;
  try {
    const std::unique_ptr<ReplayWorld> world = replay_world(SearchEngine::Impl, pinned);
    ReplayWorld& w = *world;
    // After the pins, the canonical policy, as a pinned schedule means.
    w.steer([](const ChoicePoint& point) { return point.canonical; },
            [&](const std::string& unit) {
              runs.push_back({now(w), unit});
            });
    w.run();
  } catch (const ImplFailed&) {
    return std::nullopt;
  }
  return runs;
}

// Replays the world taking, at each point, the next unit of some part's run that is due (it ran at
// the world's Moment); a step begins when no part has a unit due before it, idle periods start
// while a part's run has one due next. The parts run independently, so every part's units come in
// its own order, at its own points; a unit run that is not the next of its part's run ends the
// replay.
class Merge {
 public:
  Merge(std::vector<std::vector<UnitRun>> runs, const UnitOwners& owners)
      : runs_(std::move(runs)), next_(runs_.size(), 0), owners_(owners) {}

  std::size_t choose(const ChoicePoint& point, Moment at) const {
    if (point.idle_only) {
      for (std::size_t p = 0; p < runs_.size(); ++p)
        if (const UnitRun* u = due(p, at); u && is_idle_period(u->unit)) return 0;  // "idle"
      return 1;                                                                     // "settled"
    }
    for (std::size_t p = 0; p < runs_.size(); ++p) {
      const UnitRun* u = due(p, at);
      if (!u) continue;
      const std::string wanted = point.before_step ? std::string(pins::kEarly) + u->unit : u->unit;
      for (std::size_t i = 0; i < point.names.size(); ++i)
        if (point.names[i] == wanted) return i;
    }
    return point.before_step ? 0 : point.canonical;  // "step"; or a unit ran() refuses
  }

  void ran(const std::string& unit, Moment at) {
    const std::optional<std::size_t> p = owners_.of(unit);
    const UnitRun* u = p ? due(*p, at) : nullptr;
    if (!u || u->unit != unit) throw LeftThePartsRuns{};
    ++next_[*p];
  }

 private:
  const UnitRun* due(std::size_t p, Moment at) const {
    if (next_[p] >= runs_[p].size() || !(runs_[p][next_[p]].at == at)) return nullptr;
    return &runs_[p][next_[p]];
  }

  std::vector<std::vector<UnitRun>> runs_;
  std::vector<std::size_t> next_;
  const UnitOwners& owners_;
};

// One combination of readings for the whole world that each part's agrees with where it matters
// to the part (Trace::which_readings_matter). None if two parts need different ones.
std::optional<Readings> merged_readings(const Trace& trace, const std::vector<Trace>& traces,
                                        const std::vector<Report>& reports) {
  Readings merged = trace.readings;
  ReadingsThatMatter decided;  // which readings a part has decided so far
  // The part's reading, where it matters to the part; false if an earlier part decided another.
  const auto take = [](bool matters, auto own, auto& reading, bool& was_decided) {
    if (!matters) return true;
    if (was_decided && reading != own) return false;
    reading = own;
    was_decided = true;
    return true;
  };
  for (std::size_t p = 0; p < traces.size(); ++p) {
    const ReadingsThatMatter matter = traces[p].which_readings_matter();
    const Readings& own = reports[p].readings;
    if (!take(matter.released_promise, own.released_promise, merged.released_promise,
              decided.released_promise) ||
        !take(matter.stale_removal, own.stale_removal, merged.stale_removal,
              decided.stale_removal) ||
        !take(matter.closed_window_jobs, own.closed_window_jobs, merged.closed_window_jobs,
              decided.closed_window_jobs))
      return std::nullopt;
  }
  return merged;
}

// The schedule of the world under `readings` that runs each part's allowed run, if the model
// replays the observed log under it (the impl engine finds it, the model confirms it), its
// clientIds read in `client_ids`' form.
std::optional<std::vector<std::string>> merged_schedule(
    const Trace& trace, const Readings& readings, const Log& observed, const Options& options,
    ClientIdForm client_ids, const std::vector<std::vector<std::string>>& parts,
    std::vector<std::vector<UnitRun>> runs, Report& out) {
  Trace world_trace = trace;
  world_trace.readings = readings;
  world_trace.schedule.clear();
  const UnitOwners owners(trace, parts);
  Merge merge(std::move(runs), owners);
  std::vector<std::string> schedule;
  ++out.runs;
  try {
    const std::unique_ptr<ReplayWorld> world = replay_world(SearchEngine::Impl, world_trace);
    ReplayWorld& w = *world;
    w.steer([&](const ChoicePoint& point) { return merge.choose(point, now(w)); },
            [&](const std::string& unit) { merge.ran(unit, now(w)); });
    const RunResult result = w.run();
    if (!same_observations(world_trace, result.log, observed, options.compare_steps, client_ids))
      return std::nullopt;
    schedule = schedule_of_choices(w.choices_taken());
  } catch (const LeftThePartsRuns&) {
    return std::nullopt;
  } catch (const ImplFailed&) {
    return std::nullopt;
  }
  // The model's verdict: its replay of the schedule must log what was observed.
  world_trace.schedule = schedule;
  ++out.runs;
  ++out.model_runs;
  try {
    const RunResult confirmed = replay_world(SearchEngine::Model, world_trace)->run();
    if (!same_observations(world_trace, confirmed.log, observed, options.compare_steps, client_ids))
      return std::nullopt;
  } catch (const spec::ReplayError&) {
    return std::nullopt;
  }
  return schedule;
}

}  // namespace

void add_totals(Report& to, const Report& from) {
  to.runs += from.runs;
  to.model_runs += from.model_runs;
  to.choice_points += from.choice_points;
  to.reused_probes += from.reused_probes;
  to.states_already_tried += from.states_already_tried;
}

bool may_split(const Options& options) {
  return options.split != Split::Never && options.profile == Profile::Normative && !options.partial;
}

Report search_by_parts(const Trace& trace, const Log& observed, const Options& options,
                       ClientIdForm client_ids, const Deadline& deadline,
                       const std::vector<std::vector<std::string>>& parts) {
  Report out;
  out.profile = options.profile;
  out.observed_events = observed.events.size();
  out.max_runs = options.max_runs;
  out.max_seconds = options.max_seconds;
  out.readings = trace.readings;
  std::vector<PartLog> logs;
  for (const std::vector<std::string>& agents : parts) {
    logs.push_back(part_log(observed, agents));
    out.parts.push_back(PartSearch{
        .agents = agents, .observed_events = logs.back().log.events.size(), .searched = false});
  }
  std::vector<Trace> traces;
  std::vector<Report> reports;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::vector<std::string>& agents = parts[i];
    if (deadline.passed()) {  // the parts left are not searched
      out.time_ran_out = true;
      break;
    }
    Trace part = part_trace(trace, agents);
    const PartLog& log = logs[i];
    Report report = search_every_reading(part, log.log, options, client_ids, deadline);
    PartSearch& searched = out.parts[i];
    searched.searched = true;
    searched.verdict = report.verdict;
    searched.runs = report.runs;
    searched.model_runs = report.model_runs;
    add_totals(out, report);
    out.runs_ran_out = out.runs_ran_out || report.runs_ran_out;
    out.time_ran_out = out.time_ran_out || report.time_ran_out;
    if (report.verdict == Verdict::NotAllowed) {
      // The part's divergence is the world's, its index in the part's log mapped to the whole's.
      out.verdict = Verdict::NotAllowed;
      out.decided_by_parts = true;
      out.runs_ran_out = out.time_ran_out = false;
      out.divergence = report.divergence;
      if (out.divergence) {
        if (out.divergence->observed)  // else log_index means nothing (Divergence)
          out.divergence->log_index = log.world_index.at(out.divergence->log_index);
        out.divergence->part = agents;
      }
      out.readings = report.readings;
      out.assumptions = report.assumptions;
      return out;
    }
    if (report.verdict == Verdict::Allowed) {
      traces.push_back(std::move(part));
      reports.push_back(std::move(report));
    }
  }
  if (reports.size() < parts.size()) return out;  // unknown: some part is
  const std::optional<Readings> readings = merged_readings(trace, traces, reports);
  if (!readings) return out;
  std::vector<std::vector<UnitRun>> runs;
  for (std::size_t p = 0; p < traces.size(); ++p) {
    ++out.runs;
    std::optional<std::vector<UnitRun>> run = units_run(traces[p], reports[p]);
    if (!run) return out;
    runs.push_back(std::move(*run));
  }
  std::optional<std::vector<std::string>> schedule =
      merged_schedule(trace, *readings, observed, options, client_ids, parts, std::move(runs), out);
  if (!schedule) return out;
  out.verdict = Verdict::Allowed;
  out.decided_by_parts = true;
  out.runs_ran_out = out.time_ran_out = false;
  out.schedule = std::move(*schedule);
  out.readings = *readings;
  for (const Report& report : reports)
    for (const std::string& assumption : report.assumptions)
      if (std::find(out.assumptions.begin(), out.assumptions.end(), assumption) ==
          out.assumptions.end())
        out.assumptions.push_back(assumption);
  return out;
}

}  // namespace lockstep::check
