#include "campaign.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>

#include "lockstep/check.h"
#include "stop_signals.h"

namespace lockstep::cli {

int fuzz_bad_input(const std::string& what) {
  std::cerr << "lockstep: fuzz " << what << "\n";
  return kCampaignBadInput;
}

std::string Tally::line(double seconds, std::uint64_t count, double rate) const {
  std::string bar, eta;
  if (count > 0) {
    const std::size_t width = 24, done = width * std::min(traces, count) / count;
    bar = "[" + std::string(done, '=') + std::string(width - done, ' ') + "] ";
    if (rate > 0 && traces < count) {
      char left[40];
      std::snprintf(left, sizeof left, ", %.0fs left", static_cast<double>(count - traces) / rate);
      eta = left;
    }
  }
  char text[280];
  std::snprintf(text, sizeof text,
                "%s%llu traces: %llu allowed, %llu not allowed, %llu adapter failures, %llu "
                "cannot express, %llu unknown, %llu flaky  %.0fs, %.2f traces/s%s",
                bar.c_str(), static_cast<unsigned long long>(traces),
                static_cast<unsigned long long>(allowed),
                static_cast<unsigned long long>(not_allowed),
                static_cast<unsigned long long>(failed), static_cast<unsigned long long>(cannot),
                static_cast<unsigned long long>(unknown), static_cast<unsigned long long>(flaky),
                seconds, rate, eta.c_str());
  return text;
}

void forget_shrink(TraceRecord& record) {
  record.shrunk = false;
  std::error_code ec;
  for (const MinimalFile& f : kMinimalFiles) {
    if (!record.failure.contains(f.member)) continue;
    std::filesystem::remove(record.failure[f.member].get<std::string>(), ec);
    record.failure.erase(f.member);
  }
  for (const char* key : {"minimalCalls", "minimalAgents", "minimalPageError"})
    record.failure.erase(key);
}

namespace {

// The failures by signature: a group per signature, most failures first (then by first trace),
// with the first seeds and an example (the one shrunk, else the first failure).
Json failure_groups(const std::map<std::uint64_t, TraceRecord>& done) {
  constexpr std::size_t kSeedsShown = 10;
  struct Group {
    std::uint64_t failures = 0, first = 0;
    Json seeds = Json::array();
    Json example;
  };
  std::map<std::string, Group> groups;
  for (const auto& [i, r] : done) {
    if (r.failure.is_null()) continue;
    const std::string signature = r.failure.value("signature", std::string("none recorded"));
    Group& g = groups[signature];
    if (g.failures++ == 0) g.first = i;
    if (g.seeds.size() < kSeedsShown) g.seeds.push_back(r.seed);
    if (g.example.is_null() || (r.shrunk && !g.example.contains("minimal"))) {
      g.example = Json{{"seed", r.seed}, {"trace", r.failure["trace"]}};
      for (const char* key : {"log", "minimal", "minimalLog", "minimalCheck", "minimalPage",
                              "minimalCalls", "minimalAgents"})
        if (r.failure.contains(key)) g.example[key] = r.failure[key];
    }
  }
  std::vector<std::pair<std::string, Group>> ordered(groups.begin(), groups.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    if (a.second.failures != b.second.failures) return a.second.failures > b.second.failures;
    return a.second.first < b.second.first;
  });
  Json out = Json::array();
  for (auto& [signature, g] : ordered)
    out.push_back(Json{{"signature", signature},
                       {"failures", g.failures},
                       {"seeds", std::move(g.seeds)},
                       {"example", std::move(g.example)}});
  return out;
}

}  // namespace

Json summary_of(const Json& campaign, const std::map<std::uint64_t, TraceRecord>& done,
                double seconds, int stopped_by) {
  Tally tally;
  Json failures = Json::array();
  Json unknowns = Json::array();  // undecided within the budget: kept to be checked again
  Json flakes = Json::array();    // failed once, not again: kept apart from the failures
  std::map<std::string, std::uint64_t> reasons;  // what the target cannot express, and how often
  for (const auto& [i, r] : done) {
    tally.count(r);
    if (r.outcome == "cannot express") ++reasons[r.reason];
    if (!r.failure.is_null()) failures.push_back(r.failure);
    if (!r.unknown.is_null()) unknowns.push_back(r.unknown);
    if (!r.flaky.is_null()) flakes.push_back(r.flaky);
  }
  // Most traces first, then by name: what to express next is at the top.
  std::vector<std::pair<std::string, std::uint64_t>> by_count(reasons.begin(), reasons.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  Json cannot_express_reasons = Json::object();
  for (const auto& [reason, n] : by_count) cannot_express_reasons[reason] = n;
  return Json{{"target", campaign["target"]},
              {"command", campaign["command"]},
              {"served", campaign["served"]},
              {"firstSeed", campaign["firstSeed"]},
              {"traces", tally.traces},
              {"steps", campaign["steps"]},
              {"seconds", seconds},
              {"allowed", tally.allowed},
              {"notAllowed", tally.not_allowed},
              {"adapterFailures", tally.failed},
              {"cannotExpress", tally.cannot},
              {"cannotExpressReasons", cannot_express_reasons},
              {"unknown", tally.unknown},
              {"flaky", tally.flaky},
              {"maxRuns", campaign["maxRuns"]},
              {"reruns", campaign["reruns"]},
              {"maxSeconds", campaign["maxSeconds"]},
              {"stoppedBy", stopped_by ? Json(stop_signal_name(stopped_by)) : Json(nullptr)},
              {"failureGroups", failure_groups(done)},
              {"failures", failures},
              {"unknowns", unknowns},
              {"flakes", flakes}};
}

namespace {

// What a kept trace's folder says of it: check's explanation (check.txt), else what the
// adapter did (adapter.txt).
std::string kept_text(const Json& entry) {
  const auto dir = std::filesystem::path(entry.value("trace", std::string())).parent_path();
  std::string text;
  for (const char* file : {"check.txt", "adapter.txt"}) {
    std::ifstream in(dir / file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!text.empty()) break;
  }
  return text + "kept in " + dir.string() + "\n";
}

}  // namespace

std::string junit_of(const Json& campaign, const std::map<std::uint64_t, TraceRecord>& done,
                     double seconds) {
  using check::xml_escape;
  Tally tally;
  for (const auto& [i, r] : done) tally.count(r);
  const std::string target = campaign.value("target", std::string());
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  char head[200];
  std::snprintf(head, sizeof head,
                "\" tests=\"%llu\" failures=\"%llu\" skipped=\"%llu\" time=\"%.3f\">\n",
                static_cast<unsigned long long>(tally.traces),
                static_cast<unsigned long long>(tally.not_allowed + tally.failed),
                static_cast<unsigned long long>(tally.cannot + tally.unknown), seconds);
  out += "<testsuite name=\"lockstep fuzz " + xml_escape(target) + head;
  for (const auto& [i, r] : done) {
    out += "<testcase classname=\"lockstep.fuzz." + xml_escape(target) + "\" name=\"seed " +
           std::to_string(r.seed) + "\">";
    if (!r.failure.is_null())
      out += "\n<failure message=\"" + xml_escape(r.outcome) + "\">" +
             xml_escape(kept_text(r.failure)) + "</failure>\n";
    else if (r.outcome == "cannot express")
      out += "\n<skipped message=\"cannot express: " + xml_escape(r.reason) + "\"/>\n";
    else if (r.outcome == "unknown")
      out += "\n<skipped message=\"unknown: check's budget was spent\">" +
             xml_escape(kept_text(r.unknown)) + "</skipped>\n";
    else if (!r.flaky.is_null())
      out += "\n<system-out>flaky: failed, then " +
             xml_escape(r.flaky.value("reruns", Json()).dump()) + " settling longer\n" +
             xml_escape(kept_text(r.flaky)) + "</system-out>\n";
    out += "</testcase>\n";
  }
  return out + "</testsuite>\n</testsuites>\n";
}

std::optional<std::string> write_reports(const std::string& junit_file, bool json,
                                         const Json& summary, const Json& campaign,
                                         const std::map<std::uint64_t, TraceRecord>& done) {
  if (json) std::cout << summary.dump(2) << "\n" << std::flush;
  if (junit_file.empty()) return std::nullopt;
  std::ofstream junit(junit_file);
  junit << junit_of(campaign, done, summary.value("seconds", 0.0));
  junit.close();
  if (!junit) return "--junit " + junit_file + ": cannot write it";
  return std::nullopt;
}

}  // namespace lockstep::cli
