// lockstep shrink: delta-debugs a trace against an external implementation. A candidate fails
// when the adapter runs it (exit 0, a readable log) and `check` finds the log not allowed with
// the divergence signature of the trace's own failure.
#include "shrink.h"

#include <fstream>
#include <iostream>
#include <variant>

#include "adapter.h"
#include "command_words.h"
#include "commands.h"
#include "lockstep/check.h"
#include "lockstep/shrink.h"
#include "lockstep/trace_io.h"
#include "target_command.h"

namespace lockstep::cli {
namespace {

constexpr int kOk = 0, kBadInput = 2;

bool write_out(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (out) return true;
  std::cerr << "lockstep: " << path << ": cannot write\n";
  return false;
}

}  // namespace

int shrink_command(const ShrinkArgs& args) {
  CommandWords command, serve;
  Placeholders fixed;
  bool partial = args.partial;
  if (!args.target.empty()) {
    auto resolved = resolve_target(args.target, args.targets);
    if (auto* why = std::get_if<std::string>(&resolved)) {
      std::cerr << "lockstep: shrink " << *why << "\n";
      return kBadInput;
    }
    ResolvedTarget& target = std::get<ResolvedTarget>(resolved);
    command = std::move(target.command);
    serve = std::move(target.serve);
    fixed = std::move(target.fixed);
    partial = partial || target.entry.partial;  // as `fuzz --target` judged its logs
  } else if (args.command.empty()) {
    std::cerr << "lockstep: shrink needs the implementation: --cmd COMMAND or --target NAME\n";
    return kBadInput;
  } else {
    auto words = command_words(args.command);  // split once: no shell ever reads it
    if (!words) {
      std::cerr << "lockstep: --cmd: " << words.error().message << "\n";
      return kBadInput;
    }
    if (!command_has_placeholders(words.value())) {
      std::cerr << "lockstep: --cmd: needs {trace} and {log} where the adapter takes the trace "
                   "file and writes the log file\n";
      return kBadInput;
    }
    command = std::move(words.value());
  }
  auto trace = read_trace_file(args.trace);
  if (!trace) return bad_input(args.trace, trace.error());
  check::Options options;
  options.profile = args.profile == "intent" ? check::Profile::Intent : check::Profile::Normative;
  options.max_runs = args.max_runs;
  options.partial = partial;  // as `check` judged the failure, so must every candidate be
  options.compare_steps = !args.ignore_steps;
  Adapter adapter(command, options, serve, fixed);
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
  const std::string signature = first->divergence ? first->divergence->signature : "";
  std::cerr << "shrinking a failure of signature: " << signature << "\n";
  check::ShrinkStats stats;
  KeepsItsFailure keeps(adapter, signature);
  Trace minimal = check::shrink(
      trace.value(), [&](const Trace& t) { return keeps(t); }, &stats);
  if (minimal.name.empty() || minimal.name == trace->name)
    minimal.name = (trace->name.empty() ? std::string("trace") : trace->name) + "-shrunk";
  const std::string json = write_trace(minimal);
  if (args.out.empty())
    std::cout << json;
  else if (!write_out(args.out, json))
    return kBadInput;
  // The minimal trace's run: the last candidate taken, else (nothing could be removed) the
  // trace's own.
  Adapter::Judged last = keeps.last() ? *keeps.last() : Adapter::Judged{ran.log, first.value()};
  if (!args.log_out.empty() && !write_out(args.log_out, write_log(last.log))) return kBadInput;
  std::cerr << "shrunk in " << stats.tests << " adapter runs: steps " << stats.steps_before
            << " -> " << stats.steps_after << ", calls " << stats.calls_before << " -> "
            << stats.calls_after << ", agents " << stats.agents_before << " -> "
            << stats.agents_after << "; " << keeps.other_failures()
            << " candidates failed otherwise and were not taken\n";
  std::cerr << check::to_text(last.report, minimal.name);
  return kOk;
}

}  // namespace lockstep::cli
