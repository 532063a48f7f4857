#include "campaign.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <vector>

#include "stop_signals.h"

namespace lockstep::cli {

int fuzz_bad_input(const std::string& what) {
  std::cerr << "lockstep: fuzz " << what << "\n";
  return kCampaignBadInput;
}

Tally Tally::of_summary(const Json& summary) {
  Tally t;
  const auto count = [&](const char* key) { return summary.value(key, std::uint64_t{0}); };
  t.traces = count("traces");
  t.allowed = count("allowed");
  t.not_allowed = count("notAllowed");
  t.failed = count("adapterFailures");
  t.cannot = count("cannotExpress");
  t.unknown = count("unknown");
  t.flaky = count("flaky");
  return t;
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
              {"failures", failures},
              {"unknowns", unknowns},
              {"flakes", flakes}};
}

}  // namespace lockstep::cli
