#include "fuzz_target.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "adapter.h"
#include "campaign.h"
#include "campaign_journal.h"
#include "command_words.h"
#include "fuzz_shards.h"
#include "gen.h"
#include "generators.h"
#include "lockstep/check.h"
#include "lockstep/render.h"
#include "lockstep/shrink.h"
#include "lockstep/signature.h"
#include "lockstep/targets.h"
#include "lockstep/trace_io.h"
#include "stop_signals.h"
#include "target_command.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

bool is_failure(const std::string& outcome) {
  return outcome == "not allowed" || outcome == "adapter failed";
}

// What one adapter run of `trace` comes to; `report` is check's when it judged the log. A log
// that check cannot read against its trace (it names an agent or a step the trace lacks) is the
// adapter's defect: `ran` then says so.
std::string outcome_of(const Trace& trace, AdapterRun& ran, const check::Options& options,
                       std::optional<check::Report>& report) {
  if (ran.kind == AdapterRun::Kind::CannotExpress) return "cannot express";
  if (ran.kind != AdapterRun::Kind::Logged) return "adapter failed";
  auto checked = check::check(trace, ran.log, options);
  if (!checked) {
    ran.exit_code = 0;
    ran.message = "check cannot read the log against the trace: " + checked.error().to_string();
    return "adapter failed";
  }
  report = checked.value();
  return check::verdict_name(report->verdict);
}

// A kept trace's adapter.txt and entry members, for a run check did not judge.
void adapter_said(const fs::path& dir, Json& entry, const AdapterRun& ran) {
  write_text(dir / "adapter.txt",
             "exit " + std::to_string(ran.exit_code) + ": " + ran.message + "\n");
  entry["kind"] = "adapter failed";
  entry["exit"] = ran.exit_code;
  entry["message"] = ran.message;
}

// The signature of a failure check did not judge (lockstep/signature.h judges the others).
std::string failure_signature(const AdapterRun& ran) {
  if (ran.kind == AdapterRun::Kind::Logged) return "adapter failed: its log does not fit the trace";
  return "adapter failed: exit " + std::to_string(ran.exit_code);
}

// A shrunk failure's minimal trace, the adapter's log of it, check's report on that log and the
// page that draws both (kMinimalFiles), in `dir` and named in `entry`.
void keep_minimal(const fs::path& dir, Json& entry, const Trace& minimal,
                  const Adapter::Judged& run, const check::Options& options) {
  write_text(dir / "minimal.trace.json", write_trace(minimal));
  write_text(dir / "minimal.log.json", write_log(run.log));
  write_text(dir / "minimal.check.txt", check::to_text(run.report, minimal.name));
  render::Options page;
  page.title = minimal.name + " (shrunk)";
  page.observed = &run.log;
  page.check = options;
  auto html = render::render_page(minimal, page);
  if (html) write_text(dir / "minimal.html", html.value());
  for (const MinimalFile& f : kMinimalFiles)
    if (fs::exists(dir / f.file)) entry[f.member] = (dir / f.file).string();
  if (!html) entry["minimalPageError"] = html.error().to_string();
}

}  // namespace

int default_jobs(const FuzzTargetArgs& args) {
  if (args.shard_count > 1) return 1;
  // A campaign resumed goes on as it ran: in the shards it has (OUT/shards/I-of-N), or in one.
  if (args.resume)
    return static_cast<int>(std::clamp<std::uint64_t>(shards_run_in(args.out).value_or(1), 1, 64));
  auto registry = read_targets_file(find_targets(args.targets).string());
  const TargetEntry* target = registry ? registry->find(args.target) : nullptr;
  if (!target || !target->jobs_per_core) return 1;
  cpu_set_t cpus;
  const int cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  std::uint64_t jobs = static_cast<std::uint64_t>(std::max(1, cores)) * *target->jobs_per_core;
  if (args.count > 0) jobs = std::min(jobs, args.count);
  return static_cast<int>(std::clamp<std::uint64_t>(jobs, 1, 64));
}

int fuzz_target_command(const FuzzTargetArgs& args) {
  auto resolved = resolve_target(args.target, args.targets);
  if (auto* why = std::get_if<std::string>(&resolved)) return fuzz_bad_input(*why);
  const ResolvedTarget& target = std::get<ResolvedTarget>(resolved);
  const CommandWords serve = args.no_serve ? CommandWords{} : target.serve;
  gen::Profile profile;
  if (auto error = read_gen_profile(target.entry.profile, target.entry.without, profile))
    return fuzz_bad_input("--targets " + target.targets_file.string() + ": " +
                          Error{target.entry.pointer, *error}.to_string());
  if (args.steps < 1) return fuzz_bad_input("--steps: must be at least 1");
  check::Options options;
  options.partial = target.entry.partial;
  options.max_runs = args.max_runs;
  options.max_seconds = args.max_seconds;

  std::error_code ec;
  // A campaign to resume must be there already; a new one makes its folder.
  if (!args.resume) fs::create_directories(fs::path(args.out) / "failures", ec);
  if (ec) return fuzz_bad_input("--out: cannot make " + args.out + ": " + ec.message());
  // The commands as given, {adapters} filled in, for a reader (what ran is each one's words).
  const auto shown = [&](const std::string& words) { return target.shown(words); };
  // What a resumed campaign must share with the stopped one for the two to be one campaign.
  const Json campaign{{"target", args.target},
                      {"command", shown(target.entry.command)},
                      {"served", serve.empty() ? Json(nullptr) : Json(shown(*target.entry.serve))},
                      {"firstSeed", args.seed},
                      {"count", args.count},
                      {"minutes", std::isfinite(args.minutes) ? Json(args.minutes) : Json(nullptr)},
                      {"steps", args.steps},
                      {"shrink", args.shrink},
                      {"maxRuns", args.max_runs},
                      {"maxSeconds", args.max_seconds > 0 ? Json(args.max_seconds) : Json(nullptr)},
                      {"reruns", args.reruns},
                      {"shard", args.shard_count > 1 ? Json(std::to_string(args.shard_index) + "/" +
                                                            std::to_string(args.shard_count))
                                                     : Json(nullptr)}};
  const fs::path journal_file = fs::path(args.out) / "progress.jsonl";
  std::vector<TraceRecord> records;
  auto journal = args.resume ? CampaignJournal::resume(journal_file, campaign, records)
                             : CampaignJournal::start(journal_file, campaign);
  if (!journal)
    return fuzz_bad_input(std::string(args.resume ? "--resume" : "--out") + ": " +
                          journal_file.string() + ": " + journal.error().to_string());

  Tally tally;
  std::map<std::uint64_t, TraceRecord> done;  // by trace index: summary.json lists them so
  ShrinkChoice shrink_choice(static_cast<std::uint64_t>(std::max(0, args.shrink)));
  double spent = 0;  // seconds of the campaign's earlier runs
  for (TraceRecord& r : records) {
    tally.count(r);
    spent = std::max(spent, r.at);
    done.emplace(r.index, std::move(r));
  }
  // A resumed campaign has met its records' signatures already, in trace order.
  for (const auto& [i, r] : done)
    if (!r.failure.is_null() && r.failure.value("kind", std::string()) == "not allowed")
      shrink_choice.meet(r.failure.value("signature", std::string()));
  const StopSignals stop_signals;
  Adapter adapter(target.command, options, serve, target.fixed);
  const bool tty = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::uint64_t ran_here = 0;
  const auto progress = [&] {
    const double rate = elapsed() > 0 ? static_cast<double>(ran_here) / elapsed() : 0;
    // This shard's share of --count: the i < count with i % shard_count == shard_index.
    const std::uint64_t expected =
        args.count > args.shard_index
            ? (args.count - args.shard_index + args.shard_count - 1) / args.shard_count
            : 0;
    return tally.line(spent + elapsed(), expected, rate);
  };

  // Trace i, run, judged and kept; nothing when a stop request ended one of its adapter runs
  // (it is then not counted, and a resumed campaign runs it again).
  const auto run_trace = [&](std::uint64_t i) -> std::optional<TraceRecord> {
    TraceRecord record;
    record.index = i;
    record.seed = args.seed + i;
    const Trace trace = generate_trace(profile, record.seed, args.steps);
    AdapterRun ran = adapter.run(trace);
    if (ran.kind == AdapterRun::Kind::Stopped) return std::nullopt;
    std::optional<check::Report> report;
    record.outcome = outcome_of(trace, ran, options, report);
    if (record.outcome == "cannot express") record.reason = reason_of(ran.message);
    // A failure run again, settling longer: an allowed run says the first one's events were
    // stamped late (adapters/README.md, "Flaky failures"), not that the implementation departs.
    Json reruns = Json::array();
    if (is_failure(record.outcome)) {
      for (int k = 0; k < args.reruns; ++k) {
        AdapterRun again = adapter.run(trace, kRerunSettleScale);
        if (again.kind == AdapterRun::Kind::Stopped) return std::nullopt;
        std::optional<check::Report> unused;
        reruns.push_back(outcome_of(trace, again, options, unused));
        if (reruns.back() == "allowed") {
          record.outcome = "flaky";
          break;
        }
      }
    }
    // Kept in folder/<trace>: the trace and, when check judged the log, the log and check's
    // explanation; the entry summary.json lists it by.
    fs::path dir;
    const auto keep = [&](const char* folder) {
      dir = fs::path(args.out) / folder / trace.name;
      fs::create_directories(dir, ec);
      write_text(dir / "trace.json", write_trace(trace));
      Json entry{{"seed", record.seed}, {"trace", (dir / "trace.json").string()}};
      if (report) {
        write_text(dir / "observed.log.json", write_log(ran.log));
        write_text(dir / "check.txt", check::to_text(*report, trace.name));
        entry["kind"] = check::verdict_name(report->verdict);
        entry["log"] = (dir / "observed.log.json").string();
      }
      return entry;
    };
    if (record.outcome == "unknown") record.unknown = keep("unknown");
    if (record.outcome == "flaky") {
      record.flaky = keep("flaky");
      record.flaky["reruns"] = reruns;
      if (!report) adapter_said(dir, record.flaky, ran);
    }
    if (is_failure(record.outcome)) {
      // Kept: the trace, what the adapter did, and check's explanation; the first of each
      // signature shrunk (ShrinkChoice), with the minimal trace's log, report and page.
      Json entry = keep("failures");
      if (args.reruns > 0) entry["reruns"] = reruns;
      if (!report) adapter_said(dir, entry, ran);
      entry["signature"] =
          report && report->divergence ? report->divergence->signature : failure_signature(ran);
      if (report && shrink_choice.meet(entry["signature"].get<std::string>())) {
        check::ShrinkStats stats;
        KeepsItsFailure keeps(adapter, entry["signature"].get<std::string>());
        const Trace minimal = check::shrink(
            trace, [&](const Trace& t) { return keeps(t); }, &stats);
        if (stop_requested()) {  // its candidates' runs were cut short: not a shrink
          fs::remove_all(dir, ec);
          return std::nullopt;
        }
        keep_minimal(dir, entry, minimal,
                     keeps.last() ? *keeps.last() : Adapter::Judged{ran.log, *report}, options);
        entry["minimalCalls"] = stats.calls_after;
        entry["minimalAgents"] = stats.agents_after;
        record.shrunk = true;
      }
      record.failure = entry;
    }
    record.at = spent + elapsed();
    return record;
  };

  std::optional<std::string> journal_error;
  for (std::uint64_t i = 0; args.count == 0 || i < args.count; ++i) {
    if (done.count(i) || i % args.shard_count != args.shard_index) continue;
    if (stop_requested() || spent + elapsed() >= args.minutes * 60) break;
    std::optional<TraceRecord> record = run_trace(i);
    if (!record) break;
    if (auto error = journal.value().append(*record)) {
      journal_error = journal_file.string() + ": " + error->to_string();
      break;
    }
    tally.count(*record);
    ++ran_here;
    done.emplace(i, std::move(*record));
    if (tty)
      std::cerr << "\r" << progress() << std::flush;
    else if (tally.traces % 10 == 0)
      std::cerr << progress() << "\n";
  }
  std::cerr << (tty ? "\r" : "") << progress() << "\n";
  const int stopped_by = stop_signal();
  const Json summary = summary_of(campaign, done, spent + elapsed(), stopped_by);
  write_text(fs::path(args.out) / "summary.json", summary.dump(2) + "\n");
  std::cerr << "results in " << args.out << "/summary.json\n";
  if (journal_error) return fuzz_bad_input("--out: " + *journal_error);
  if (auto error = write_reports(args.junit, args.json, summary, campaign, done))
    return fuzz_bad_input(*error);
  if (stopped_by) {
    std::cerr << "lockstep: fuzz stopped by " << stop_signal_name(stopped_by) << " after "
              << tally.traces << " traces; --resume --out " << args.out
              << " with the same options finishes the campaign\n";
    return 128 + stopped_by;
  }
  return summary["failures"].empty() ? kCampaignClean : kCampaignFailures;
}

}  // namespace lockstep::cli
