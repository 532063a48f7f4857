// lockstep shrink: delta-debugs a trace against an external implementation. A candidate fails
// when the adapter runs it (exit 0, a readable log) and `check` finds the log not allowed.
#include "shrink.h"

#include <fstream>
#include <iostream>

#include "adapter.h"
#include "command_words.h"
#include "commands.h"
#include "lockstep/check.h"
#include "lockstep/shrink.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

constexpr int kOk = 0, kBadInput = 2;

}  // namespace

int shrink_command(const ShrinkArgs& args) {
  auto command = command_words(args.command);  // split once: no shell ever reads it
  if (!command) {
    std::cerr << "lockstep: --cmd: " << command.error().message << "\n";
    return kBadInput;
  }
  if (!command_has_placeholders(command.value())) {
    std::cerr << "lockstep: --cmd: needs {trace} and {log} where the adapter takes the trace "
                 "file and writes the log file\n";
    return kBadInput;
  }
  auto trace = read_trace_file(args.trace);
  if (!trace) return bad_input(args.trace, trace.error());
  check::Options options;
  options.profile = args.profile == "intent" ? check::Profile::Intent : check::Profile::Normative;
  options.max_runs = args.max_runs;
  options.partial = args.partial;  // as `check` judged the failure, so must every candidate be
  options.compare_steps = !args.ignore_steps;
  Adapter adapter(command.value(), options);
  // Run once by hand rather than through judge(), to say why when there is nothing to shrink.
  const AdapterRun ran = adapter.run(trace.value());
  if (ran.kind != AdapterRun::Kind::Logged) {
    // What it said (its stderr, "cannot express: why", "could not start PROGRAM: why"), else how
    // it ended.
    const std::string why =
        !ran.message.empty() ? ran.message : "exit " + std::to_string(ran.exit_code);
    std::cerr << "lockstep: " << args.trace << ": the adapter "
              << (ran.kind == AdapterRun::Kind::CannotExpress ? "cannot express it"
                                                              : "failed on it")
              << ", so there is no check failure to shrink: " << why << "\n";
    return kBadInput;
  }
  const auto first = check::check(trace.value(), ran.log, options);
  if (!first) {
    std::cerr << "lockstep: " << args.trace
              << ": the adapter's log does not fit the trace: " << first.error().to_string()
              << "\n";
    return kBadInput;
  }
  if (first->verdict != check::Verdict::NotAllowed) {
    std::cerr << "lockstep: " << args.trace << ": the adapter's log is "
              << check::verdict_name(first->verdict) << ", so there is no failure to shrink\n";
    return kBadInput;
  }
  check::ShrinkStats stats;
  Trace minimal = check::shrink(
      trace.value(), [&](const Trace& t) { return adapter.fails(t); }, &stats);
  if (minimal.name.empty() || minimal.name == trace->name)
    minimal.name = (trace->name.empty() ? std::string("trace") : trace->name) + "-shrunk";
  const std::string json = write_trace(minimal);
  if (args.out.empty()) {
    std::cout << json;
  } else {
    std::ofstream out(args.out);
    out << json;
    if (!out) {
      std::cerr << "lockstep: " << args.out << ": cannot write\n";
      return kBadInput;
    }
  }
  std::cerr << "shrunk in " << stats.tests << " adapter runs: steps " << stats.steps_before
            << " -> " << stats.steps_after << ", calls " << stats.calls_before << " -> "
            << stats.calls_after << ", agents " << stats.agents_before << " -> "
            << stats.agents_after << "\n";
  if (auto report = adapter.judge(minimal)) std::cerr << check::to_text(*report, minimal.name);
  return kOk;
}

}  // namespace lockstep::cli
