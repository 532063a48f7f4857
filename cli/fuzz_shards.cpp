#include "fuzz_shards.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "adapter.h"
#include "campaign.h"
#include "campaign_journal.h"
#include "stop_signals.h"

extern char** environ;

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

bool parse_number(std::string_view text, std::uint64_t& value) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && !text.empty();
}

// A kept trace's folder, `entry` its summary.json entry, moved from a shard's `folder` into
// out/folder, and the entry's paths made to name it there.
void move_kept(Json& entry, const fs::path& shard, const fs::path& out, const char* folder) {
  const std::string name = fs::path(entry["trace"].get<std::string>()).parent_path().filename();
  const fs::path from = shard / folder / name, to = out / folder / name;
  std::error_code ec;
  // Moved already when the folder is not there: a merge of shards that were merged before (a
  // stopped --jobs campaign, resumed).
  if (fs::exists(from) && fs::weakly_canonical(from, ec) != fs::weakly_canonical(to, ec)) {
    fs::create_directories(out / folder, ec);
    fs::remove_all(to, ec);
    fs::rename(from, to, ec);
    if (ec) {  // another file system: copied, then removed
      fs::copy(from, to, fs::copy_options::recursive, ec);
      fs::remove_all(from, ec);
    }
  }
  entry["trace"] = (to / "trace.json").string();
  if (entry.contains("log")) entry["log"] = (to / "observed.log.json").string();
  for (const MinimalFile& f : kMinimalFiles)
    if (entry.contains(f.member)) entry[f.member] = (to / f.file).string();
}

// A merged campaign: what it is (the journal's first line), its traces by index, its summary.
struct Merged {
  Json campaign;
  std::map<std::uint64_t, TraceRecord> done;
  Json summary;
};

// The shards' journals merged into `out`; the error names the shard folder at fault.
Result<Merged> merge_shards(const fs::path& out, const std::vector<std::string>& shard_dirs) {
  if (shard_dirs.empty()) return Error{"", "no shard folders given"};
  Json campaign;
  std::uint64_t count = 0;
  std::map<std::uint64_t, std::string> shards;  // index -> its folder
  std::map<std::uint64_t, TraceRecord> done;
  std::map<std::uint64_t, fs::path> from;  // trace index -> its shard's folder
  double seconds = 0;
  int stopped_by = 0;
  for (const std::string& dir : shard_dirs) {
    const fs::path journal = fs::path(dir) / "progress.jsonl";
    std::vector<TraceRecord> records;
    auto read = CampaignJournal::read(journal, records);
    if (!read) return Error{"", journal.string() + ": " + read.error().to_string()};
    Json base = read.value();
    std::uint64_t index = 0, n = 0;
    if (!base.contains("shard") || !base["shard"].is_string() ||
        parse_shard(base["shard"].get<std::string>(), index, n))
      return Error{"", journal.string() + ": not a shard's journal (no \"shard\": \"I/N\")"};
    base.erase("shard");
    if (campaign.is_null()) {
      campaign = base;
      count = n;
    }
    if (n != count)
      return Error{"", dir + " is a shard of " + std::to_string(n) + ", " + shards.begin()->second +
                           " of " + std::to_string(count)};
    for (const auto& [key, value] : campaign.items())
      if (!base.contains(key) || base[key] != value)
        return Error{"", dir + " is a shard of another campaign: its " + key + " is " +
                             (base.contains(key) ? base[key].dump() : "none") + ", not " +
                             value.dump()};
    if (!shards.emplace(index, dir).second)
      return Error{"", dir + " and " + shards[index] + " are both shard " + std::to_string(index) +
                           "/" + std::to_string(n)};
    for (TraceRecord& r : records) {
      if (r.index % n != index)
        return Error{"", journal.string() + ": trace " + std::to_string(r.index) +
                             " is not shard " + std::to_string(index) + "/" + std::to_string(n) +
                             "'s"};
      seconds = std::max(seconds, r.at);
      from[r.index] = dir;
      done.emplace(r.index, std::move(r));
    }
    std::ifstream summary(fs::path(dir) / "summary.json");
    const Json said = Json::parse(summary, nullptr, /*allow_exceptions=*/false);
    if (said.is_object() && said.contains("stoppedBy") && said["stoppedBy"].is_string())
      stopped_by = stop_signal_named(said["stoppedBy"].get<std::string>());
  }
  std::string missing;
  for (std::uint64_t i = 0; i < count; ++i)
    if (!shards.count(i)) missing += " " + std::to_string(i) + "/" + std::to_string(count);
  if (!missing.empty()) return Error{"", "shards missing:" + missing};
  // What the unsharded campaign keeps: every trace's folder in out, and only the failures it
  // would have shrunk shrunk (ShrinkChoice: each shard shrank a superset of them).
  ShrinkChoice shrink_choice(campaign.value("shrink", 0));
  for (auto& [i, r] : done) {
    if (!r.failure.is_null()) move_kept(r.failure, from[i], out, "failures");
    if (!r.unknown.is_null()) move_kept(r.unknown, from[i], out, "unknown");
    if (!r.flaky.is_null()) move_kept(r.flaky, from[i], out, "flaky");
    const bool chosen = !r.failure.is_null() &&
                        r.failure.value("kind", std::string()) == "not allowed" &&
                        shrink_choice.meet(r.failure.value("signature", std::string()));
    if (r.shrunk && !chosen) forget_shrink(r);
  }
  campaign["shard"] = nullptr;
  auto journal = CampaignJournal::start(out / "progress.jsonl", campaign);
  if (!journal)
    return Error{"", (out / "progress.jsonl").string() + ": " + journal.error().to_string()};
  for (const auto& [i, r] : done)
    if (auto error = journal.value().append(r))
      return Error{"", (out / "progress.jsonl").string() + ": " + error->to_string()};
  Json summary = summary_of(campaign, done, seconds, stopped_by);
  std::ofstream(out / "summary.json") << summary.dump(2) << "\n";
  return Merged{std::move(campaign), std::move(done), std::move(summary)};
}

// The exit a merged campaign gives.
int exit_of(const Json& summary) {
  if (summary["stoppedBy"].is_string())
    return 128 + stop_signal_named(summary["stoppedBy"].get<std::string>());
  return summary["failures"].empty() ? kCampaignClean : kCampaignFailures;
}

std::string number(double d) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", d);
  return text;
}

}  // namespace

std::optional<std::string> parse_shard(const std::string& text, std::uint64_t& index,
                                       std::uint64_t& count) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || !parse_number(std::string_view(text).substr(0, slash), index) ||
      !parse_number(std::string_view(text).substr(slash + 1), count) || count < 1 || index >= count)
    return "expected I/N with 0 <= I < N, got \"" + text + "\"";
  return std::nullopt;
}

int fuzz_merge_command(const std::string& out, const std::vector<std::string>& shard_dirs) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return fuzz_bad_input("merge: --out: cannot make " + out + ": " + ec.message());
  auto merged = merge_shards(out, shard_dirs);
  if (!merged) return fuzz_bad_input("merge: " + merged.error().to_string());
  std::cerr << "merged " << shard_dirs.size() << " shards: " << merged.value().summary["traces"]
            << " traces; results in " << out << "/summary.json\n";
  return exit_of(merged.value().summary);
}

fs::path shard_folder(const std::string& out, std::uint64_t index, std::uint64_t count) {
  return fs::path(out) / "shards" / (std::to_string(index) + "-of-" + std::to_string(count));
}

std::optional<std::uint64_t> shards_run_in(const std::string& out) {
  std::error_code ec;
  for (const auto& shard : fs::directory_iterator(fs::path(out) / "shards", ec)) {
    const std::string name = shard.path().filename().string();
    const auto of = name.find("-of-");
    std::uint64_t count = 0;
    if (of != std::string::npos && parse_number(std::string_view(name).substr(of + 4), count))
      return count;
  }
  return std::nullopt;
}

int fuzz_jobs_command(const FuzzTargetArgs& args, const JobsPlan& plan) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fuzz_bad_input("--jobs: cannot find this program: " + ec.message());
  const std::uint64_t n = static_cast<std::uint64_t>(plan.shards);
  // The jobs spread over the shards, the first ones taking one more where they do not divide.
  const std::uint64_t jobs = std::max<std::uint64_t>(static_cast<std::uint64_t>(plan.jobs), n);
  const auto in_flight = [&](std::uint64_t i) { return jobs / n + (i < jobs % n ? 1 : 0); };
  std::vector<std::string> dirs;
  std::vector<pid_t> children;
  for (std::uint64_t i = 0; i < n; ++i) {
    const fs::path dir = shard_folder(args.out, i, n);
    fs::create_directories(dir, ec);
    if (ec) return fuzz_bad_input("--out: cannot make " + dir.string() + ": " + ec.message());
    dirs.push_back(dir.string());
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    std::vector<std::string> words = {self.string(),   "fuzz",
                                      "--target",      args.target,
                                      "--seed",        std::to_string(args.seed),
                                      "--steps",       std::to_string(args.steps),
                                      "--shrink",      std::to_string(args.shrink),
                                      "--max-runs",    std::to_string(args.max_runs),
                                      "--max-seconds", number(args.max_seconds),
                                      "--reruns",      std::to_string(args.reruns),
                                      "--shard",       std::to_string(i) + "/" + std::to_string(n),
                                      "--jobs",        std::to_string(in_flight(i)),
                                      "--out",         dirs[i]};
    if (!args.targets.empty()) words.insert(words.end(), {"--targets", args.targets});
    if (args.count > 0) words.insert(words.end(), {"--count", std::to_string(args.count)});
    if (std::isfinite(args.minutes)) words.insert(words.end(), {"--minutes", number(args.minutes)});
    if (args.no_serve) words.push_back("--no-serve");
    if (args.resume) words.push_back("--resume");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    // Each shard's progress and messages go to its folder; this process shows the whole.
    const std::string err = (fs::path(dirs[i]) / "stderr.txt").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
      for (pid_t c : children) kill(c, SIGTERM);
      for (pid_t c : children) waitpid(c, nullptr, 0);
      return fuzz_bad_input("--jobs: cannot start " + self.string() + ": " + std::strerror(error));
    }
    children.push_back(pid);
  }
  // The shards stop on a signal as a campaign does: one sent to this process is passed on (a
  // Ctrl-C reaches them all from the terminal already).
  const StopSignals stop_signals;
  bool passed_on = false;
  const bool tty = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> codes(n, -1);
  std::size_t running = n;
  auto last_shown = start;
  while (running > 0) {
    for (std::uint64_t i = 0; i < n; ++i) {
      if (codes[i] >= 0) continue;
      int status = 0;
      if (waitpid(children[i], &status, WNOHANG) == children[i]) {
        codes[i] = exit_code_of(status);
        --running;
      }
    }
    if (stop_requested() && !passed_on) {
      for (std::uint64_t i = 0; i < n; ++i)
        if (codes[i] < 0) kill(children[i], stop_signal());
      passed_on = true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (running > 0 && now - last_shown > std::chrono::seconds(tty ? 1 : 30)) {
      std::size_t traces = 0;
      for (const std::string& dir : dirs) {
        std::ifstream journal(fs::path(dir) / "progress.jsonl");
        const auto lines = static_cast<std::size_t>(std::count(
            std::istreambuf_iterator<char>(journal), std::istreambuf_iterator<char>(), '\n'));
        traces += lines > 0 ? lines - 1 : 0;  // all but the campaign's line
      }
      const double seconds = std::chrono::duration<double>(now - start).count();
      std::cerr << (tty ? "\r" : "") << traces << " traces in " << n << " shards, "
                << static_cast<long>(seconds) << "s" << (tty ? "" : "\n") << std::flush;
      last_shown = now;
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (tty) std::cerr << "\n";
  for (std::uint64_t i = 0; i < n; ++i)
    if (codes[i] == kCampaignBadInput) {
      std::ifstream said(fs::path(dirs[i]) / "stderr.txt");
      std::cerr << said.rdbuf();
      return kCampaignBadInput;
    }
  auto merged = merge_shards(args.out, dirs);
  if (!merged) return fuzz_bad_input("--jobs: merging the shards: " + merged.error().to_string());
  const auto& [campaign, done, summary] = merged.value();
  const double seconds = summary.value("seconds", 0.0);
  Tally tally;
  for (const auto& [i, r] : done) tally.count(r);
  std::cerr << tally.line(seconds, 0, seconds > 0 ? static_cast<double>(tally.traces) / seconds : 0)
            << ", in " << n << " shards\nresults in " << args.out << "/summary.json\n";
  if (auto error = write_reports(args.junit, args.json, summary, campaign, done))
    return fuzz_bad_input(*error);
  if (stop_requested() || summary["stoppedBy"].is_string()) {
    const int signal = stop_requested() ? stop_signal() : exit_of(summary) - 128;
    std::cerr << "lockstep: fuzz stopped by " << stop_signal_name(signal) << "; --resume --out "
              << args.out << " with the same options finishes the campaign\n";
    return 128 + signal;
  }
  return exit_of(summary);
}

}  // namespace lockstep::cli
