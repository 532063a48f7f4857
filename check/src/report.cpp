// The three forms of a check report (check.h).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lockstep/check.h"
#include "lockstep/explain.h"
#include "lockstep/log_compare.h"

namespace lockstep::check {
namespace {

using Json = nlohmann::ordered_json;

const char* profile_name(Profile profile) {
  return profile == Profile::Intent ? "intent" : "normative";
}

std::string agents_text(const std::vector<std::string>& agents) {
  std::string out;
  for (const std::string& a : agents) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// The explanation of a verdict other than "allowed", as lines of text.
std::string explain(const Report& report) {
  std::ostringstream out;
  if (!report.divergence) return "";
  const Divergence& d = *report.divergence;
  if (!d.part.empty())
    out << "found by the search of the part of agents " << agents_text(d.part)
        << " (its schedule replays that part's trace, where the other agents' steps are empty "
           "runs)\n";
  if (d.observed) {
    out << "first event no schedule explains: agent " << d.agent << "'s event " << d.agent_index
        << " (events[" << d.log_index << "] of the observed log):\n  " << write_event(*d.observed)
        << "\n";
  } else {
    out << "first point no schedule explains: agent " << d.agent << " logged all " << d.agent_index
        << " of its observed events, and the model always logs more\n";
  }
  // A part's divergence counts the part's events (Divergence::part).
  std::size_t events = report.observed_events;
  for (const PartSearch& p : report.parts)
    if (!d.part.empty() && p.agents == d.part) events = p.observed_events;
  out << "longest prefix explained: " << d.matched << " of " << events
      << (d.part.empty() ? " events\n" : " events of the part\n");
  if (!d.instead.empty() || d.model_could_stop) {
    out << "what the model allowed there instead:\n";
    for (const Event& e : d.instead) out << "  " << write_event(e) << "\n";
    if (d.model_could_stop) out << "  (nothing more for agent " << d.agent << ")\n";
  }
  if (!d.signature.empty()) out << "signature: " << d.signature << "\n";
  if (!d.why.empty()) out << "why: " << d.why << "\n";
  if (!d.rests_on.empty()) {
    out << "the spec's rule there:\n";
    for (const std::string& id : d.rests_on) out << "  " << step_words(id) << "\n";
  }
  // The unit's steps of the spec the rule is in (all of them when no rule is known); the whole
  // list is in the JSON report, and text keeps the line short.
  const std::string spec = d.rests_on.empty() ? "" : step_spec(d.rests_on.front());
  std::vector<std::string> shown;
  for (const std::string& id : d.spec_steps)
    if ((spec.empty() || step_spec(id) == spec) &&
        std::find(d.rests_on.begin(), d.rests_on.end(), id) == d.rests_on.end())
      shown.push_back(id);
  if (!shown.empty()) {
    constexpr std::size_t kShown = 12;
    out << (spec.empty() ? std::string("spec steps of the unit that logged it instead:")
                         : "other " + spec + " steps of the unit that logged it instead:");
    for (std::size_t i = 0; i < shown.size() && i < kShown; ++i)
      out << (i ? ", " : " ") << shown[i];
    if (shown.size() > kShown) out << " (+" << shown.size() - kShown << " more)";
    out << "\n";
  } else if (!spec.empty() && !d.spec_steps.empty()) {
    const auto others = std::count_if(d.spec_steps.begin(), d.spec_steps.end(),
                                      [&](const std::string& id) { return step_spec(id) != spec; });
    if (others > 0)
      out << "other steps of the unit that logged it instead: none of " << spec << "; " << others
          << " of other specs and HTML's patches (check --json's specSteps)\n";
  } else if (d.spec_steps.empty() && !d.spec_steps_looked_up && !d.instead.empty() &&
             report.time_ran_out) {
    out << "spec steps: not looked up (the time budget ran out, and the model replay that looks "
           "them up was not begun; --model-only searches the model, which names them)\n";
  } else if (d.spec_steps.empty() && !d.spec_steps_looked_up && !d.instead.empty()) {
    out << "spec steps: not looked up (the budget ran out on the impl engine, and a model "
           "replay of the divergence's schedule did not get there; --model-only searches the "
           "model, which names them)\n";
  }
  return out.str();
}

// The parts of the world searched each on its own (Options::split), and how each ended.
std::string parts_text(const Report& report) {
  if (report.parts.empty()) return "";
  std::ostringstream out;
  out << (report.decided_by_parts ? "decided by the parts of the world, each searched on its own:\n"
                                  : "the parts of the world, each searched on its own:\n");
  bool every_part_allowed = true;
  for (const PartSearch& p : report.parts) {
    out << "  agents " << agents_text(p.agents) << ": ";
    if (!p.searched)
      out << "not searched";
    else
      out << verdict_name(p.verdict) << " (" << p.observed_events
          << (p.observed_events == 1 ? " event, " : " events, ") << p.runs
          << (p.runs == 1 ? " run)" : " runs)");
    out << "\n";
    every_part_allowed = every_part_allowed && p.searched && p.verdict == Verdict::Allowed;
  }
  if (report.verdict == Verdict::Unknown && every_part_allowed)
    out << "every part's log is allowed, but no merge of their runs replays the whole log "
           "(check/README.md, \"Parts\")\n";
  return out.str();
}

// Which readings of spec text that says two things (docs/interpretations.md I-24, I-25, I-29) the
// verdict rests on, as a line of text; empty when only the defaults were searched.
std::string reading_line(const Report& report) {
  const std::string chosen = readings_text(report.readings);
  if (report.verdict == Verdict::Allowed) {
    if (chosen.empty()) return "";
    return "under the readings {" + chosen +
           "} (docs/interpretations.md I-24, I-25, I-29); pin them with the schedule as the "
           "trace's \"readings\"\n";
  }
  if (report.readings_searched < 2) return "";
  return "searched under " + std::to_string(report.readings_searched) +
         " combinations of readings (I-24, I-25, I-29); the furthest got under " +
         (chosen.empty() ? std::string("the defaults") : "{" + chosen + "}") + "\n";
}

// Why a verdict is unknown: the replays spent, the time spent, or both (check/README.md, "The
// budget").
std::string budget_text(const Report& report) {
  std::ostringstream out;
  if (report.runs_ran_out)
    out << "the search budget ran out before every schedule was tried: " << report.max_runs
        << (report.max_runs == 1 ? " replay" : " replays")
        << " under each combination of readings on each engine (--max-runs sets it; a "
           "larger budget may decide the log)\n";
  if (!report.time_ran_out) return out.str();
  if (report.not_allowed_on_impl)
    out << "the time budget ran out after the impl engine's search had tried every schedule and "
           "found none that explains the log, before the model's search, which alone decides "
           "\"not allowed\": "
        << report.max_seconds << " s for the whole check (--max-seconds sets it)\n";
  else
    out << "the time budget ran out before every schedule was tried: " << report.max_seconds
        << " s for the whole check (--max-seconds sets it; more time may decide the log)\n";
  if (report.readings_not_searched > 0)
    out << report.readings_not_searched << " combination"
        << (report.readings_not_searched == 1 ? "" : "s")
        << " of readings not searched for want of time\n";
  return out.str();
}

// Each combination of readings searched, when there were several: what a log depends on.
std::string searches_text(const Report& report) {
  if (report.searches.size() < 2) return "";
  std::ostringstream out;
  out << "readings searched, in order:\n";
  for (const ReadingSearch& s : report.searches) {
    const std::string text = readings_text(s.readings);
    out << "  " << (text.empty() ? std::string("the defaults") : "{" + text + "}") << ": "
        << verdict_name(s.verdict);
    if (s.verdict != Verdict::Allowed)
      out << ", " << s.matched << " of " << report.observed_events << " events explained";
    out << " (" << s.runs << (s.runs == 1 ? " run)\n" : " runs)\n");
  }
  return out.str();
}

Json readings_json(const Readings& readings) {
  Json j;
  j["released-promise"] = released_promise_reading_name(readings.released_promise);
  j["stale-removal"] = stale_removal_reading_name(readings.stale_removal);
  j["closed-window-jobs"] = closed_window_jobs_reading_name(readings.closed_window_jobs);
  return j;
}

}  // namespace

std::string to_text(const Report& report, const std::string& trace_name) {
  std::ostringstream out;
  out << trace_name << ": " << verdict_name(report.verdict) << " (profile "
      << profile_name(report.profile) << ", " << report.runs << " runs (" << report.model_runs
      << " on the spec model), " << report.choice_points << " choice points)\n";
  if (report.verdict == Verdict::Allowed) {
    out << "a schedule that produces it (" << report.schedule.size() << " choices):";
    for (const std::string& c : report.schedule) out << " " << c;
    out << "\n" << reading_line(report) << searches_text(report) << parts_text(report);
  } else {
    if (report.verdict == Verdict::Unknown) out << budget_text(report);
    out << reading_line(report) << searches_text(report) << parts_text(report) << explain(report);
  }
  for (const std::string& a : report.assumptions) out << "assumed: " << a << "\n";
  return out.str();
}

std::string to_json(const Report& report, const std::string& trace_name) {
  Json j;
  j["trace"] = trace_name;
  j["verdict"] = verdict_name(report.verdict);
  j["profile"] = profile_name(report.profile);
  j["runs"] = report.runs;
  j["modelRuns"] = report.model_runs;
  j["choicePoints"] = report.choice_points;
  j["reusedProbes"] = report.reused_probes;
  j["statesAlreadyTried"] = report.states_already_tried;
  j["maxRuns"] = report.max_runs;
  if (report.max_seconds > 0) j["maxSeconds"] = report.max_seconds;
  if (report.verdict == Verdict::Unknown) {
    j["budgetSpent"] = Json::array();
    if (report.runs_ran_out) j["budgetSpent"].push_back("runs");
    if (report.time_ran_out) j["budgetSpent"].push_back("time");
    if (report.not_allowed_on_impl) j["notAllowedOnImpl"] = true;
    if (report.readings_not_searched > 0) j["readingsNotSearched"] = report.readings_not_searched;
  }
  j["observedEvents"] = report.observed_events;
  if (report.verdict == Verdict::Allowed) j["schedule"] = report.schedule;
  j["readings"] = readings_json(report.readings);
  j["readingsSearched"] = report.readings_searched;
  j["searches"] = Json::array();
  for (const ReadingSearch& s : report.searches) {
    Json one;
    one["readings"] = readings_json(s.readings);
    one["verdict"] = verdict_name(s.verdict);
    one["runs"] = s.runs;
    one["modelRuns"] = s.model_runs;
    one["choicePoints"] = s.choice_points;
    one["matched"] = s.matched;
    j["searches"].push_back(std::move(one));
  }
  if (!report.parts.empty()) {
    j["decidedByParts"] = report.decided_by_parts;
    j["parts"] = Json::array();
    for (const PartSearch& p : report.parts) {
      Json one;
      one["agents"] = p.agents;
      one["verdict"] = verdict_name(p.verdict);
      one["observedEvents"] = p.observed_events;
      one["runs"] = p.runs;
      one["modelRuns"] = p.model_runs;
      one["searched"] = p.searched;
      j["parts"].push_back(std::move(one));
    }
  }
  if (report.divergence) {
    const Divergence& d = *report.divergence;
    Json div;
    div["agent"] = d.agent;
    div["agentIndex"] = d.agent_index;
    if (d.observed) {
      div["logIndex"] = d.log_index;
      div["observed"] = Json::parse(write_event(*d.observed));
    }
    div["matched"] = d.matched;
    div["instead"] = Json::array();
    for (const Event& e : d.instead) div["instead"].push_back(Json::parse(write_event(e)));
    div["modelCouldStop"] = d.model_could_stop;
    div["specSteps"] = d.spec_steps;
    div["specStepsLookedUp"] = d.spec_steps_looked_up;
    div["schedule"] = d.schedule;
    if (!d.part.empty()) div["part"] = d.part;
    div["signature"] = d.signature;
    div["why"] = d.why;
    div["restsOn"] = d.rests_on;
    j["divergence"] = div;
  }
  j["assumptions"] = report.assumptions;
  return j.dump(2) + "\n";
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "\xEF\xBF\xBD";  // U+FFFD
        else
          out += c;
    }
  }
  return out;
}

std::string to_junit(const Report& report, const std::string& trace_name) {
  std::ostringstream out;
  const bool failed = report.verdict == Verdict::NotAllowed;
  const bool skipped = report.verdict == Verdict::Unknown;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites>\n<testsuite name=\"lockstep check\" tests=\"1\" failures=\""
      << (failed ? 1 : 0) << "\" skipped=\"" << (skipped ? 1 : 0) << "\">\n"
      << "<testcase classname=\"lockstep.check." << profile_name(report.profile) << "\" name=\""
      << xml_escape(trace_name) << "\">\n";
  if (failed)
    out << "<failure message=\"not allowed\">" << xml_escape(explain(report)) << "</failure>\n";
  if (skipped)
    out << "<skipped message=\"unknown: "
        << (!report.time_ran_out  ? "search budget spent"
            : report.runs_ran_out ? "search and time budgets spent"
                                  : "time budget spent")
        << "\">" << xml_escape(budget_text(report) + explain(report)) << "</skipped>\n";
  out << "</testcase>\n</testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace lockstep::check
