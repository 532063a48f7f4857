// lockstep shrink: delta-debugs a trace against an external implementation. A candidate fails
// when the adapter runs it (exit 0, a readable log) and `check` finds the log not allowed.
#include "shrink.h"

#include <stdlib.h>  // mkdtemp

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "lockstep/check.h"
#include "lockstep/shrink.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

constexpr int kOk = 0, kBadInput = 2;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string substitute(std::string command, const std::string& key, const std::string& value) {
  for (std::size_t at = command.find(key); at != std::string::npos;
       at = command.find(key, at + value.size()))
    command.replace(at, key.size(), value);
  return command;
}

class Adapter {
 public:
  Adapter(const ShrinkArgs& args) : args_(args) {
    // A fresh folder of its own (mkdtemp), so that shrinks running side by side never share one.
    std::string pattern =
        (std::filesystem::temp_directory_path() / "lockstep-shrink-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("cannot make a temporary folder under " +
                               std::filesystem::temp_directory_path().string());
    dir_ = pattern;
    options_.profile =
        args.profile == "intent" ? check::Profile::Intent : check::Profile::Normative;
    options_.max_runs = args.max_runs;
  }
  ~Adapter() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // The check report of the adapter's log for this trace; none when the adapter failed.
  std::optional<check::Report> judge(const Trace& trace) {
    const auto trace_file = dir_ / "candidate.trace.json";
    const auto log_file = dir_ / "candidate.log.json";
    std::filesystem::remove(log_file);
    std::ofstream(trace_file) << write_trace(trace);
    std::string command = substitute(args_.command, "{trace}", shell_quote(trace_file.string()));
    command = substitute(command, "{log}", shell_quote(log_file.string()));
    if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) return std::nullopt;
    auto log = read_log_file(log_file.string());
    if (!log) return std::nullopt;
    auto report = check::check(trace, log.value(), options_);
    if (!report) return std::nullopt;
    return report.value();
  }

  bool fails(const Trace& trace) {
    auto report = judge(trace);
    return report && report->verdict == check::Verdict::NotAllowed;
  }

 private:
  const ShrinkArgs& args_;
  std::filesystem::path dir_;
  check::Options options_;
};

}  // namespace

int shrink_command(const ShrinkArgs& args) {
  if (args.command.find("{trace}") == std::string::npos ||
      args.command.find("{log}") == std::string::npos) {
    std::cerr << "lockstep: --cmd: needs {trace} and {log} where the adapter takes the trace "
                 "file and writes the log file\n";
    return kBadInput;
  }
  auto trace = read_trace_file(args.trace);
  if (!trace) return bad_input(args.trace, trace.error());
  Adapter adapter(args);
  const auto first = adapter.judge(trace.value());
  if (!first) {
    std::cerr << "lockstep: " << args.trace << ": the adapter failed on it (non-zero exit or no "
              << "readable log), so there is no check failure to shrink\n";
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
