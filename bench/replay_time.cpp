// Times whole-trace replay inside one process: the trace is read once, then each engine's run()
// is timed on its own (no JSON parsing, no log writing), and the two logs are compared event by
// event. bench/run.sh uses it next to the end-to-end `lockstep run` timings, whose totals also
// carry the cost of reading the trace and writing the log.
//
// Usage: lockstep_replay_time TRACE [spec|impl|both]   (prints one JSON object)
#include <chrono>
#include <iostream>
#include <string>

#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace {

struct Timed {
  double seconds = 0;
  lockstep::Log log;
  bool ok = false;
};

Timed time_run(const lockstep::Engine& engine, const lockstep::Trace& trace) {
  const auto start = std::chrono::steady_clock::now();
  lockstep::RunOutcome outcome = engine.run(trace, {});
  const auto stop = std::chrono::steady_clock::now();
  Timed timed;
  timed.seconds = std::chrono::duration<double>(stop - start).count();
  timed.ok = outcome.ok();
  if (timed.ok)
    timed.log = std::move(outcome.result().log);
  else
    std::cerr << "lockstep_replay_time: " << engine.name() << ": "
              << outcome.failure().error.to_string() << "\n";
  return timed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: lockstep_replay_time TRACE [spec|impl|both]\n";
    return 2;
  }
  const std::string which = argc == 3 ? argv[2] : "both";
  const auto read_start = std::chrono::steady_clock::now();
  auto trace = lockstep::read_trace_file(argv[1]);
  const double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  if (!trace) {
    std::cerr << "lockstep_replay_time: " << argv[1] << ": " << trace.error().to_string() << "\n";
    return 2;
  }
  std::cout << "{\"trace\": \"" << argv[1] << "\", \"steps\": " << trace->steps.size()
            << ", \"read_seconds\": " << read_seconds;
  Timed impl, spec;
  if (which != "spec") {
    impl = time_run(*lockstep::make_impl_engine(), trace.value());
    std::cout << ", \"impl_seconds\": " << impl.seconds
              << ", \"events\": " << impl.log.events.size();
  }
  if (which != "impl") {
    spec = time_run(*lockstep::make_spec_engine(), trace.value());
    std::cout << ", \"spec_seconds\": " << spec.seconds;
  }
  bool same = true;
  if (which == "both") {
    const auto diff = lockstep::first_difference(spec.log, impl.log);
    same = impl.ok && spec.ok && !diff;
    std::cout << ", \"speedup\": " << spec.seconds / impl.seconds
              << ", \"logs_identical\": " << (same ? "true" : "false");
    if (diff) std::cerr << "lockstep_replay_time: the logs differ: " << *diff << "\n";
  }
  std::cout << "}\n";
  return impl.ok || spec.ok ? (same ? 0 : 1) : 1;
}
