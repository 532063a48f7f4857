#include "lockstep/step_index.h"

#include <cstdio>

#include "json_value.h"

namespace lockstep {

namespace {

// steps.json is the project's own file, not user input: a plain DOM parse.
Result<detail::Json> parse_json(const std::string& text, std::size_t) {
  try {
    return detail::Json::parse(text);
  } catch (const detail::Json::parse_error& e) {
    return Error{"", std::string("malformed JSON: ") + e.what()};
  }
}

}  // namespace

std::vector<std::string> StepIndex::ids() const {
  std::vector<std::string> out;
  for (const Algorithm& a : algorithms)
    for (const Step& s : a.steps) out.push_back(a.anchor + " " + s.number);
  return out;
}

const StepIndex::Step* StepIndex::find(const std::string& id) const {
  for (const Algorithm& a : algorithms)
    for (const Step& s : a.steps)
      if (a.anchor + " " + s.number == id) return &s;
  return nullptr;
}

Result<StepIndex> read_step_index(const std::string& text) {
  auto parsed = parse_json(text, 16);
  if (!parsed) return parsed.error();
  const detail::Json& doc = parsed.value();
  try {
    StepIndex index;
    index.spec = doc.at("spec").get<std::string>();
    index.url = doc.value("url", "");
    index.source = doc.value("source", "");
    const auto& algorithms = doc.at("algorithms");
    for (std::size_t i = 0; i < algorithms.size(); ++i) {
      const auto& a = algorithms[i];
      StepIndex::Algorithm alg;
      alg.anchor = a.at("anchor").get<std::string>();
      alg.title = a.value("title", "");
      alg.locate = a.value("locate", "");
      alg.prose = a.value("prose", false);
      for (auto it = a.at("steps").begin(); it != a.at("steps").end(); ++it) {
        StepIndex::Step step{it.key(), {}, {}};
        if (it->is_string()) {
          step.words = it->get<std::string>();
        } else {
          step.words = it->value("words", "");
          step.unreached = it->value("unreached", "");
        }
        alg.steps.push_back(step);
      }
      index.algorithms.push_back(std::move(alg));
    }
    return index;
  } catch (const std::exception& e) {
    return Error{"", std::string("malformed step index: ") + e.what()};
  }
}

std::string CoverageReport::summary() const {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f",
                total ? 100.0 * static_cast<double>(covered) / static_cast<double>(total) : 100.0);
  return spec + ": " + std::to_string(covered) + "/" + std::to_string(total) + " steps (" + pct +
         "%)";
}

CoverageReport coverage_report(const StepIndex& index,
                               const std::map<std::string, std::uint64_t>& hit) {
  CoverageReport report;
  report.spec = index.spec;
  for (const auto& a : index.algorithms)
    for (const auto& s : a.steps) {
      std::string id = a.anchor + " " + s.number;
      ++report.total;
      if (hit.count(id)) {
        ++report.covered;
      } else {
        report.missed.push_back(id + ": " + s.words +
                                (s.unreached.empty() ? "" : " (" + s.unreached + ")"));
      }
    }
  for (const auto& [id, count] : hit)
    if (!index.find(id)) report.unknown.push_back(id);
  return report;
}

}  // namespace lockstep
