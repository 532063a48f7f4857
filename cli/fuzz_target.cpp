#include "fuzz_target.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
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

namespace {

// What the target's entry says of --jobs: its jobsPerCore and how many traces its server takes
// at once (1 when it serves one at a time, has no server, or --no-serve asks for none).
struct TargetJobs {
  std::optional<int> per_core;
  int at_once = 1;
};

TargetJobs target_jobs(const FuzzTargetArgs& args) {
  auto registry = read_targets_file(find_targets(args.targets).string());
  const TargetEntry* target = registry ? registry->find(args.target) : nullptr;
  if (!target) return {};
  return {target->jobs_per_core, args.no_serve ? 1 : target->serve_at_once};
}

}  // namespace

JobsPlan plan_jobs(const FuzzTargetArgs& args) {
  const TargetJobs target = target_jobs(args);
  std::uint64_t jobs = static_cast<std::uint64_t>(std::max(0, args.jobs));
  if (jobs == 0 && args.resume && args.shard_count == 1) {
    // A campaign resumed goes on as it ran: in the shards it has (OUT/shards/I-of-N), or in one.
    jobs = std::clamp<std::uint64_t>(shards_run_in(args.out).value_or(1), 1, 64) *
           static_cast<std::uint64_t>(target.at_once);
  } else if (jobs == 0) {
    cpu_set_t cpus;
    const int cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    jobs = static_cast<std::uint64_t>(std::max(1, cores)) * target.per_core.value_or(0);
    if (args.count > 0) jobs = std::min(jobs, args.count);
    // A shard runs in one process: what its server takes at once, at most.
    if (args.shard_count > 1) jobs = std::min<std::uint64_t>(jobs, target.at_once);
  }
  jobs = std::clamp<std::uint64_t>(jobs, 1, 64);
  const auto at_once = static_cast<std::uint64_t>(target.at_once);
  JobsPlan plan;
  plan.jobs = static_cast<int>(jobs);
  plan.shards = static_cast<int>((jobs + at_once - 1) / at_once);
  plan.in_flight = static_cast<int>(std::min(jobs, at_once));
  return plan;
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
  Adapter adapter(target.command, options, serve, target.fixed,
                  serve.empty() ? 1 : std::clamp(args.in_flight, 1, target.entry.serve_at_once));
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

  // A trace of the campaign while it is in flight: its first run and check's report on it, and
  // its re-runs' outcomes. A failure is run again, settling longer, up to --reruns times: an
  // allowed re-run says the first run's events were stamped late (adapters/README.md, "Flaky
  // failures"), not that the implementation departs. `waiting` is the ticket of the run it
  // waits for, none once it is judged.
  struct InFlight {
    std::uint64_t index = 0;
    Trace trace;
    std::optional<Adapter::Ticket> waiting;
    std::optional<AdapterRun> ran;
    std::optional<check::Report> report;
    std::string outcome;
    Json reruns = Json::array();
    bool stopped = false;  // a stop request ended one of its runs: it is dropped
  };
  // What the run answering item's ticket comes to: its verdict, and a re-run when it is due.
  const auto take_run = [&](InFlight& item, AdapterRun ran) {
    item.waiting.reset();
    if (ran.kind == AdapterRun::Kind::Stopped) {
      item.stopped = true;
      return;
    }
    if (!item.ran) {
      item.outcome = outcome_of(item.trace, ran, options, item.report);
      item.ran = std::move(ran);
    } else {
      std::optional<check::Report> unused;
      item.reruns.push_back(outcome_of(item.trace, ran, options, unused));
      if (item.reruns.back() == "allowed") item.outcome = "flaky";
    }
    if (is_failure(item.outcome) && item.reruns.size() < static_cast<std::size_t>(args.reruns))
      item.waiting = adapter.submit(item.trace, kRerunSettleScale);
  };

  // A judged trace kept and its record made; nothing when a stop request ended one of its
  // adapter runs or its shrinking (it is then not counted, and a resumed campaign runs it again).
  const auto keep_trace = [&](InFlight& item) -> std::optional<TraceRecord> {
    if (item.stopped) return std::nullopt;
    const Trace& trace = item.trace;
    AdapterRun& ran = *item.ran;
    std::optional<check::Report>& report = item.report;
    const Json& reruns = item.reruns;
    TraceRecord record;
    record.index = item.index;
    record.seed = args.seed + item.index;
    record.outcome = item.outcome;
    if (record.outcome == "cannot express") record.reason = reason_of(ran.message);
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

  // Traces in flight, in trace order. Their runs and re-runs are judged as they come in, in
  // whatever order, and each trace is kept (and shrunk) in trace order once judged, so that what
  // a campaign keeps and shrinks (ShrinkChoice) is the same whatever finished first. Up to
  // at_once runs are on the adapter at a time, and at most kWindow times that many traces wait
  // here behind an earlier, slower one.
  constexpr std::size_t kWindow = 64;
  const std::size_t at_once = static_cast<std::size_t>(adapter.at_once());
  std::deque<InFlight> window;
  std::uint64_t next = 0;
  const auto next_trace = [&]() -> std::optional<std::uint64_t> {
    while ((args.count == 0 || next < args.count) &&
           (done.count(next) || next % args.shard_count != args.shard_index))
      ++next;
    if (args.count > 0 && next >= args.count) return std::nullopt;
    if (stop_requested() || spent + elapsed() >= args.minutes * 60) return std::nullopt;
    return next++;
  };
  std::optional<std::string> journal_error;
  while (!stop_requested()) {
    while (adapter.in_flight() < at_once &&
           window.size() < (at_once == 1 ? 1 : kWindow * at_once)) {
      const std::optional<std::uint64_t> i = next_trace();
      if (!i) break;
      InFlight& item = window.emplace_back();
      item.index = *i;
      item.trace = generate_trace(profile, args.seed + *i, args.steps);
      item.waiting = adapter.submit(item.trace);
    }
    if (window.empty()) break;
    while (window.front().waiting) {
      auto [ticket, ran] = adapter.answer();
      for (InFlight& item : window)
        if (item.waiting == ticket) take_run(item, std::move(ran));
    }
    InFlight first = std::move(window.front());
    window.pop_front();
    std::optional<TraceRecord> record = keep_trace(first);
    if (!record) break;
    if (auto error = journal.value().append(*record)) {
      journal_error = journal_file.string() + ": " + error->to_string();
      break;
    }
    tally.count(*record);
    ++ran_here;
    done.emplace(first.index, std::move(*record));
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
