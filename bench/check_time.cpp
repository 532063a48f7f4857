// Times `lockstep check` on logs of generated lock-and-task traces: K window agents on one origin
// (K = 1 is the issue's single-agent case), N steps of requests (exclusive, shared, ifAvailable)
// whose callbacks return at once, postTask at the three priorities, queries, and every third step
// left unsettled so that lock task queue steps and tasks of several loops interleave at choice
// points. The observed logs are the spec model's own: its canonical log (found by check's first
// replay) and the log of a seeded random schedule (which needs the search); the verdict must be
// "allowed". The times are check's alone (the trace and logs are built first). Each log is checked
// twice: as check does by default (on the impl engine first, whose answer the model confirms) and
// with the model alone (Options::impl_first off, `check --model-only`).
//
// Usage: lockstep_check_time [--steps N] [--agents K] [--skip-random]   (prints one JSON object)
// --skip-random leaves out the random schedule's log, whose search is quadratic in N.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lockstep/check.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "runner/trace_runner.h"

namespace {

std::string make_trace(int steps, int agents) {
  static constexpr const char* kPriorities[3] = {"user-blocking", "user-visible", "background"};
  std::ostringstream out;
  out << R"({"format": "lockstep-trace", "version": 1, "name": "check-)" << steps << "-" << agents
      << R"(", "agents": [)";
  for (int a = 0; a < agents; ++a)
    out << (a ? ", " : "") << R"({"id": "A)" << a
        << R"(", "kind": "window", "origin": "https://app.test"})";
  out << R"(], "steps": [)";
  for (int i = 0; i < steps; ++i) {
    const std::string agent = "A" + std::to_string(i % agents);
    const std::string settle = i % 3 == 2 ? R"(, "settle": false)" : "";
    out << (i ? ",\n" : "\n");
    switch (i % 5) {
      case 0:
      case 1:
        out << R"({"agent": ")" << agent << R"(", "op": "request", "id": "r)" << i
            << R"(", "name": "n)" << i % 7 << R"(", "options": {"mode": ")"
            << (i % 2 ? "shared" : "exclusive") << R"("}, "callback": {"result": {"return": )" << i
            << "}}" << settle << "}";
        break;
      case 2:
        out << R"({"agent": ")" << agent << R"(", "op": "request", "id": "r)" << i
            << R"(", "name": "n)" << i % 7
            << R"(", "options": {"ifAvailable": true}, "callback": {"result": {"return": 0}})"
            << settle << "}";
        break;
      case 3:
        out << R"({"agent": ")" << agent << R"(", "op": "postTask", "id": "t)" << i
            << R"(", "options": {"priority": ")" << kPriorities[i % 3]
            << R"("}, "callback": {"result": {"return": 1}})" << settle << "}";
        break;
      default:
        out << R"({"agent": ")" << agent << R"(", "op": "query", "id": "q)" << i << "\"" << settle
            << "}";
    }
  }
  out << "\n]}\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 1000, agents = 1;
  bool skip_random = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--skip-random") skip_random = true;
    if (arg == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    if (arg == "--agents" && i + 1 < argc) agents = std::atoi(argv[++i]);
  }
  if (steps < 1 || agents < 1) {
    std::cerr << "usage: lockstep_check_time [--steps N] [--agents K] [--skip-random]\n";
    return 2;
  }
  auto trace = lockstep::read_trace(make_trace(steps, agents));
  if (!trace) {
    std::cerr << "lockstep_check_time: " << trace.error().to_string() << "\n";
    return 1;
  }
  auto outcome = lockstep::make_spec_engine()->run(trace.value(), {});
  if (!outcome.ok()) return 1;
  lockstep::Log random_log;
  if (!skip_random) {
    lockstep::spec::TraceRunner runner(trace.value());
    std::mt19937_64 random(42);
    runner.world().set_chooser([&](const lockstep::spec::World::ChoicePoint& point) {
      return static_cast<std::size_t>(random() % point.names.size());
    });
    random_log = runner.run().log;
  }
  std::cout << "{\"steps\": " << steps << ", \"agents\": " << agents
            << ", \"events\": " << outcome.result().log.events.size();
  bool allowed = true;
  lockstep::check::Options model_only;
  model_only.impl_first = false;
  struct Case {
    const char* what;
    const lockstep::Log* log;
    lockstep::check::Options options;
  };
  std::vector<Case> cases{{"canonical", &outcome.result().log, {}},
                          {"canonical_model_only", &outcome.result().log, model_only}};
  if (!skip_random) {
    cases.push_back({"random_schedule", &random_log, {}});
    cases.push_back({"random_schedule_model_only", &random_log, model_only});
  }
  for (const auto& [what, log, options] : cases) {
    const auto start = std::chrono::steady_clock::now();
    auto report = lockstep::check::check(trace.value(), *log, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report) return 1;
    allowed = allowed && report->verdict == lockstep::check::Verdict::Allowed;
    std::cout << ", \"" << what << "\": {\"verdict\": \""
              << lockstep::check::verdict_name(report->verdict) << "\", \"runs\": " << report->runs
              << ", \"model_runs\": " << report->model_runs
              << ", \"choice_points\": " << report->choice_points << ", \"seconds\": " << seconds
              << "}";
  }
  std::cout << "}\n";
  return allowed ? 0 : 1;
}
