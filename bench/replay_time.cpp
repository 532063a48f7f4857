// Times whole-trace replay inside one process: the trace is read once, then each engine's run()
// is timed on its own (no JSON parsing, no log writing), and the two logs are compared event by
// event. bench/run.sh uses it next to the end-to-end `lockstep run` timings, whose totals also
// carry the cost of reading the trace and writing the log.
//
// Usage: lockstep_replay_time TRACE [spec|impl|both] [--runs N]   (prints one JSON object)
// With --runs N each engine replays the trace N times and the median time is reported (the
// machine is shared and small, so one run can be off by 20 %); the spec engine, at about 10 s a
// run, is replayed min(N, 3) times. Beside the wall-clock medians it reports the medians of the
// thread's CPU time ("*_cpu_seconds"): on a machine whose cores other work is using, that leaves
// out the time the replay spent descheduled, though not what it lost to shared caches.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Timed {
  double seconds = 0;      // the median over the runs
  double cpu_seconds = 0;  // the median of the thread's CPU time over the runs
  lockstep::Log log;
  bool ok = false;
};

Timed time_runs(const lockstep::Engine& engine, const lockstep::Trace& trace, int runs) {
  Timed timed;
  std::vector<double> seconds, cpu_seconds;
  for (int i = 0; i < runs; ++i) {
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    lockstep::RunOutcome outcome = engine.run(trace, {});
    const auto stop = std::chrono::steady_clock::now();
    cpu_seconds.push_back(thread_cpu_seconds() - cpu_start);
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
    timed.ok = outcome.ok();
    if (!timed.ok) {
      std::cerr << "lockstep_replay_time: " << engine.name() << ": "
                << outcome.failure().error.to_string() << "\n";
      return timed;
    }
    timed.log = std::move(outcome.result().log);
  }
  timed.seconds = median(seconds);
  timed.cpu_seconds = median(cpu_seconds);
  return timed;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int runs = 1;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--runs" && i + 1 < args.size()) {
      runs = std::atoi(args[i + 1].c_str());
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  if (args.empty() || args.size() > 2 || runs < 1 ||
      (args.size() == 2 && args[1] != "spec" && args[1] != "impl" && args[1] != "both")) {
    std::cerr << "usage: lockstep_replay_time TRACE [spec|impl|both] [--runs N]\n";
    return 2;
  }
  const std::string which = args.size() == 2 ? args[1] : "both";
  const auto read_start = std::chrono::steady_clock::now();
  auto trace = lockstep::read_trace_file(args[0]);
  const double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  if (!trace) {
    std::cerr << "lockstep_replay_time: " << args[0] << ": " << trace.error().to_string() << "\n";
    return 2;
  }
  std::cout << "{\"trace\": \"" << args[0] << "\", \"steps\": " << trace->steps.size()
            << ", \"read_seconds\": " << read_seconds << ", \"runs\": " << runs;
  Timed impl, spec;
  if (which != "spec") {
    impl = time_runs(*lockstep::make_impl_engine(), trace.value(), runs);
    std::cout << ", \"impl_seconds\": " << impl.seconds
              << ", \"impl_cpu_seconds\": " << impl.cpu_seconds
              << ", \"events\": " << impl.log.events.size();
  }
  if (which != "impl") {
    spec = time_runs(*lockstep::make_spec_engine(), trace.value(), std::min(runs, 3));
    std::cout << ", \"spec_seconds\": " << spec.seconds
              << ", \"spec_cpu_seconds\": " << spec.cpu_seconds;
  }
  bool same = true;
  if (which == "both") {
    const auto diff = lockstep::first_difference(spec.log, impl.log);
    same = impl.ok && spec.ok && !diff;
    std::cout << ", \"speedup\": " << spec.seconds / impl.seconds
              << ", \"cpu_speedup\": " << spec.cpu_seconds / impl.cpu_seconds
              << ", \"logs_identical\": " << (same ? "true" : "false");
    if (diff) std::cerr << "lockstep_replay_time: the logs differ: " << *diff << "\n";
  }
  std::cout << "}\n";
  return impl.ok || spec.ok ? (same ? 0 : 1) : 1;
}
