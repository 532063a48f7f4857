// Assembles a report page: the page template with its style and script, and the data they draw.
#include <algorithm>
#include <map>

#include "lockstep/render.h"
#include "lockstep/spec_engine.h"
#include "lockstep/step_index.h"
#include "lockstep/trace_io.h"
#include "timeline.h"

namespace lockstep {
const char* render_page_html();
const char* render_page_css();
const char* render_page_js();
}  // namespace lockstep

namespace lockstep::render {
namespace {

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// JSON inside <script>: "</" would end the element early, so it is written "<\/".
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
  }
  return out;
}

// Fills the template's @NAME@ holes in one pass, so nothing the data says is read as a hole.
std::string fill(const std::string& title, const Json& data) {
  const std::map<std::string, std::string> holes{{"@TITLE@", html_escape(title)},
                                                 {"@STYLE@", render_page_css()},
                                                 {"@SCRIPT@", render_page_js()},
                                                 {"@DATA@", script_safe(data.dump())}};
  const std::string page = render_page_html();
  std::string out;
  std::size_t at = 0;
  while (at < page.size()) {
    const std::size_t open = page.find('@', at);
    const std::size_t close = open == std::string::npos ? open : page.find('@', open + 1);
    if (close == std::string::npos) break;
    auto hole = holes.find(page.substr(open, close - open + 1));
    if (hole == holes.end()) {
      out += page.substr(at, open + 1 - at);
      at = open + 1;
      continue;
    }
    out += page.substr(at, open - at) + hole->second;
    at = close + 1;
  }
  return out + page.substr(at);
}

std::vector<StepIndex> step_indexes() {
  std::vector<StepIndex> indexes;
  for (const char* json : step_index_jsons()) {
    auto index = read_step_index(json);
    if (!index) throw std::runtime_error("step index: " + index.error().message);
    indexes.push_back(std::move(index.value()));
  }
  return indexes;
}

// Where each step id's algorithm is in its spec, and its few words, for the ids asked.
Json spec_steps(const std::vector<StepIndex>& indexes, const std::vector<std::string>& ids) {
  Json out = Json::object();
  for (const std::string& id : ids) {
    const std::string anchor = id.substr(0, id.find(' '));
    for (const StepIndex& index : indexes) {
      const StepIndex::Step* step = index.find(id);
      if (!step) continue;
      for (const StepIndex::Algorithm& algorithm : index.algorithms)
        if (algorithm.anchor == anchor)
          out[id] = Json{{"url", index.url + "#" + anchor},
                         {"title", algorithm.title},
                         {"words", step->words}};
    }
  }
  return out;
}

Json coverage(const std::vector<StepIndex>& indexes, const Json& hits) {
  Json specs = Json::array();
  for (const StepIndex& index : indexes) {
    std::size_t total = 0, covered = 0;
    Json algorithms = Json::array();
    for (const StepIndex::Algorithm& algorithm : index.algorithms) {
      Json steps = Json::array();
      for (const StepIndex::Step& step : algorithm.steps) {
        const std::string id = algorithm.anchor + " " + step.number;
        const std::uint64_t n = hits.contains(id) ? hits[id].get<std::uint64_t>() : 0;
        ++total;
        covered += n > 0;
        steps.push_back(Json{{"number", step.number}, {"words", step.words}, {"hits", n}});
      }
      algorithms.push_back(
          Json{{"anchor", algorithm.anchor}, {"title", algorithm.title}, {"steps", steps}});
    }
    specs.push_back(Json{{"spec", index.spec},
                         {"url", index.url},
                         {"total", total},
                         {"covered", covered},
                         {"algorithms", algorithms}});
  }
  return specs;
}

// The trace as the page shows it: name, description, agents, top-level steps.
Json trace_json(const Trace& trace) {
  const Json whole = Json::parse(write_trace(trace));
  Json out{{"name", trace.name}, {"description", trace.description}};
  out["agents"] = whole.value("agents", Json::array());
  out["steps"] = whole.value("steps", Json::array());
  return out;
}

}  // namespace

Result<std::string> render_page(const Trace& trace, const Options& options) {
  const std::vector<StepIndex> indexes = step_indexes();
  Json data{{"kind", "report"},
            {"title", options.title.empty() ? trace.name : options.title},
            {"trace", trace_json(trace)}};
  Trace shown = trace;
  std::vector<std::string> referenced;
  if (options.observed) {
    auto report = check::check(trace, *options.observed, options.check);
    if (!report) return report.error();
    const check::Report& r = report.value();
    Log observed = *options.observed;
    // A divergence one part's search found replays that part's trace (check::part_trace): the
    // page draws that trace and the part's observed events, beside the whole report.
    if (r.divergence && !r.divergence->part.empty()) {
      shown = check::part_trace(trace, r.divergence->part);
      data["trace"] = trace_json(shown);
      const std::vector<std::string>& part = r.divergence->part;
      std::erase_if(observed.events, [&](const Event& e) {
        return std::find(part.begin(), part.end(), e.agent) == part.end();
      });
    }
    shown.schedule = r.verdict == check::Verdict::Allowed ? r.schedule
                     : r.divergence                       ? r.divergence->schedule
                                                          : std::vector<std::string>{};
    shown.schedule_pointer = "(the schedule check found)";
    // Under the readings (I-24, I-25) that schedule was found under, which may not be the trace's.
    shown.readings = r.readings;
    data["check"] = Json::parse(check::to_json(r, trace.name));
    data["observed"] = Json{{"events", Json::parse(write_log(observed))["events"]}};
    if (r.divergence) {
      referenced = r.divergence->spec_steps;
      referenced.insert(referenced.end(), r.divergence->rests_on.begin(),
                        r.divergence->rests_on.end());
    }
  }
  auto timeline = collect_timeline(shown);
  if (!timeline) return timeline.error();
  data["timeline"] = timeline->json;
  data["specSteps"] = spec_steps(indexes, referenced);
  if (options.coverage) data["coverage"] = coverage(indexes, timeline->json["steps"]);
  data["timeline"].erase("steps");
  return fill(data["title"].get<std::string>(), data);
}

Result<std::string> render_index(const std::vector<IndexEntry>& entries, const std::string& title) {
  Json list = Json::array();
  for (const IndexEntry& entry : entries) {
    auto timeline = collect_timeline(entry.trace);
    if (!timeline) return timeline.error();
    timeline->json.erase("steps");
    Json card{{"name", entry.trace.name},
              {"href", entry.href},
              {"trace", trace_json(entry.trace)},
              {"timeline", timeline->json}};
    card["trace"].erase("steps");
    if (entry.expected) {
      auto report = check::check(entry.trace, *entry.expected, check::Options{});
      if (!report) return report.error();
      card["verdict"] = check::verdict_name(report->verdict);
    }
    list.push_back(std::move(card));
  }
  return fill(title, Json{{"kind", "index"}, {"title", title}, {"entries", list}});
}

}  // namespace lockstep::render
