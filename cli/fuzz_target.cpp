#include "fuzz_target.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "adapter.h"
#include "command_words.h"
#include "gen.h"
#include "generators.h"
#include "lockstep/check.h"
#include "lockstep/shrink.h"
#include "lockstep/targets.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
constexpr int kClean = 0, kFailures = 1, kBadInput = 2;

int bad(const std::string& what) {
  std::cerr << "lockstep: fuzz " << what << "\n";
  return kBadInput;
}

// The registry: the path given, else adapters/targets.json here, else beside the binary
// (build/lockstep -> adapters/targets.json of the same checkout).
fs::path find_targets(const std::string& given) {
  if (!given.empty()) return given;
  if (fs::exists("adapters/targets.json")) return "adapters/targets.json";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path())
      if (fs::exists(dir / "adapters/targets.json")) return dir / "adapters/targets.json";
  }
  return "adapters/targets.json";
}

// What a fuzz run counts, and how it shows them on one line.
struct Tally {
  std::uint64_t traces = 0, allowed = 0, not_allowed = 0, failed = 0, cannot = 0, unknown = 0;
  std::string line(double seconds, std::uint64_t count) const {
    std::string bar;
    if (count > 0) {
      const std::size_t width = 24, done = width * traces / count;
      bar = "[" + std::string(done, '=') + std::string(width - done, ' ') + "] ";
    }
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s%llu traces: %llu allowed, %llu not allowed, %llu adapter failures, %llu "
                  "cannot express, %llu unknown  %.0fs",
                  bar.c_str(), static_cast<unsigned long long>(traces),
                  static_cast<unsigned long long>(allowed),
                  static_cast<unsigned long long>(not_allowed),
                  static_cast<unsigned long long>(failed), static_cast<unsigned long long>(cannot),
                  static_cast<unsigned long long>(unknown), seconds);
    return text;
  }
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

int fuzz_target_command(const FuzzTargetArgs& args) {
  const fs::path targets_file = find_targets(args.targets);
  auto registry = read_targets_file(targets_file.string());
  if (!registry)
    return bad("--targets " + targets_file.string() + ": " + registry.error().to_string());
  const TargetEntry* found = registry->find(args.target);
  if (!found) {
    std::string known;
    for (const TargetEntry& t : registry->targets) known += " " + t.name;
    return bad("--target: no target \"" + args.target + "\" in " + targets_file.string() +
               " (known:" + known + ")");
  }
  const TargetEntry& target = *found;
  // "--targets FILE: targets.node.command (/targets/node/command): why"
  const auto refuse = [&](const std::string& member, const std::string& why) {
    return bad("--targets " + targets_file.string() + ": " +
               Error{target.pointer + (member.empty() ? "" : "/" + member), why}.to_string());
  };
  // Split once; {adapters} is filled within its word as {trace} and {log} are, so a folder with
  // a space or a `$(...)` in its name stays one argument.
  auto command = command_words(target.command);
  if (!command) return refuse("command", command.error().message);
  if (!command_has_placeholders(command.value()))
    return refuse("command", "needs {trace} and {log}");
  const Placeholders fixed{{"{adapters}", fs::absolute(targets_file).parent_path().string()}};
  // A command that replays many traces in one process (a browser kept open): adapters/README.md.
  CommandWords serve;
  if (target.serve) {
    if (target.serve->empty()) return refuse("serve", "expected the serving command");
    auto words = command_words(*target.serve);
    if (!words) return refuse("serve", words.error().message);
    if (has_placeholder(words.value(), "{trace}") || has_placeholder(words.value(), "{log}"))
      return refuse("serve", "takes its traces on stdin, not {trace} and {log}");
    serve = std::move(words.value());
  }
  if (args.no_serve) serve.clear();
  gen::Profile profile;
  if (auto error = read_gen_profile(target.profile, target.without, profile))
    return refuse("", *error);
  if (args.steps < 1) return bad("--steps: must be at least 1");
  check::Options options;
  options.partial = target.partial;
  options.max_runs = args.max_runs;
  options.max_seconds = args.max_seconds;

  std::error_code ec;
  fs::create_directories(fs::path(args.out) / "failures", ec);
  if (ec) return bad("--out: cannot make " + args.out + ": " + ec.message());
  Adapter adapter(command.value(), options, serve, fixed);
  Tally tally;
  Json failures = Json::array();
  Json unknowns = Json::array();  // undecided within the budget: kept to be checked again
  int shrunk = 0;
  const bool tty = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (std::uint64_t i = 0; args.count == 0 || i < args.count; ++i) {
    if (elapsed() >= args.minutes * 60) break;
    const std::uint64_t seed = args.seed + i;
    const Trace trace = generate_trace(profile, seed, args.steps);
    ++tally.traces;
    const AdapterRun ran = adapter.run(trace);
    std::optional<check::Report> report;
    if (ran.kind == AdapterRun::Kind::CannotExpress) {
      ++tally.cannot;
    } else if (ran.kind == AdapterRun::Kind::Failed) {
      ++tally.failed;
    } else {
      auto checked = check::check(trace, ran.log, options);
      if (!checked) {  // the adapter logged an agent the trace lacks: the adapter's defect
        ++tally.failed;
      } else {
        report = checked.value();
        if (report->verdict == check::Verdict::Allowed) ++tally.allowed;
        if (report->verdict == check::Verdict::Unknown) ++tally.unknown;
        if (report->verdict == check::Verdict::NotAllowed) ++tally.not_allowed;
      }
    }
    // Kept in folder/<trace>: the trace and, when check judged the log, the log and check's
    // explanation; the entry summary.json lists it by.
    const auto keep = [&](const char* folder) {
      const fs::path dir = fs::path(args.out) / folder / trace.name;
      fs::create_directories(dir, ec);
      write_text(dir / "trace.json", write_trace(trace));
      Json entry{{"seed", seed}, {"trace", (dir / "trace.json").string()}};
      if (report) {
        write_text(dir / "observed.log.json", write_log(ran.log));
        write_text(dir / "check.txt", check::to_text(*report, trace.name));
        entry["kind"] = check::verdict_name(report->verdict);
        entry["log"] = (dir / "observed.log.json").string();
      }
      return std::make_pair(dir, entry);
    };
    if (report && report->verdict == check::Verdict::Unknown)
      unknowns.push_back(keep("unknown").second);
    const bool failure = ran.kind == AdapterRun::Kind::Failed ||
                         (report && report->verdict == check::Verdict::NotAllowed);
    if (failure) {
      // Kept: the trace, what the adapter did, and check's explanation; the first few shrunk.
      auto [dir, entry] = keep("failures");
      if (!report) {
        write_text(dir / "adapter.txt",
                   "exit " + std::to_string(ran.exit_code) + ": " + ran.message + "\n");
        entry["kind"] = "adapter failed";
        entry["exit"] = ran.exit_code;
        entry["message"] = ran.message;
      }
      if (report && shrunk < args.shrink) {
        ++shrunk;
        check::ShrinkStats stats;
        const Trace minimal = check::shrink(
            trace, [&](const Trace& t) { return adapter.fails(t); }, &stats);
        write_text(dir / "minimal.trace.json", write_trace(minimal));
        entry["minimal"] = (dir / "minimal.trace.json").string();
        entry["minimalCalls"] = stats.calls_after;
        entry["minimalAgents"] = stats.agents_after;
      }
      failures.push_back(entry);
    }
    if (tty)
      std::cerr << "\r" << tally.line(elapsed(), args.count) << std::flush;
    else if (tally.traces % 10 == 0)
      std::cerr << tally.line(elapsed(), args.count) << "\n";
  }
  std::cerr << (tty ? "\r" : "") << tally.line(elapsed(), args.count) << "\n";
  // The commands as given, {adapters} filled in, for a reader (what ran is each one's words).
  const auto shown = [&](const std::string& words) { return fill_placeholders(words, fixed); };
  const Json summary{{"target", args.target},
                     {"command", shown(target.command)},
                     {"served", serve.empty() ? Json(nullptr) : Json(shown(*target.serve))},
                     {"firstSeed", args.seed},
                     {"traces", tally.traces},
                     {"steps", args.steps},
                     {"seconds", elapsed()},
                     {"allowed", tally.allowed},
                     {"notAllowed", tally.not_allowed},
                     {"adapterFailures", tally.failed},
                     {"cannotExpress", tally.cannot},
                     {"unknown", tally.unknown},
                     {"maxRuns", args.max_runs},
                     {"maxSeconds", args.max_seconds > 0 ? Json(args.max_seconds) : Json(nullptr)},
                     {"failures", failures},
                     {"unknowns", unknowns}};
  write_text(fs::path(args.out) / "summary.json", summary.dump(2) + "\n");
  std::cerr << "results in " << args.out << "/summary.json\n";
  return failures.empty() ? kClean : kFailures;
}

}  // namespace lockstep::cli
