// lockstep fuzz --target NAME: generated traces run on a real implementation through its adapter
// (adapters/targets.json), each log judged by check, failures shrunk and kept.
#pragma once

#include <cstdint>
#include <string>

namespace lockstep::cli {

struct FuzzTargetArgs {
  std::string target;
  std::string targets;      // the registry; empty: adapters/targets.json here, or beside the binary
  double minutes = 1;       // time budget
  std::uint64_t count = 0;  // at most this many traces (0: until the time budget is spent)
  std::uint64_t seed = 1;   // trace i uses seed + i, as `lockstep gen` does
  int steps = 12;           // at most this many top-level steps per trace
  int shrink = 3;           // signatures whose first failure is shrunk (ShrinkChoice, campaign.h)
  bool no_serve = false;    // the per-trace command even where the target has a serve command
  // A failure is run again this many times, settling kRerunSettleScale times longer, before it
  // is kept: one that an allowed run does not repeat is kept as "flaky", not as a failure.
  int reruns = 2;
  std::uint64_t max_runs = 2'000;  // check's budget per trace: replays before it says unknown
  // and its time per trace and per shrink candidate (check::Options::max_seconds); 0: none
  double max_seconds = 0;
  std::string out = "fuzz-results";
  std::string junit;  // a JUnit report of the campaign, a test case per trace (junit_of)
  bool json = false;  // summary.json on stdout too
  // Go on with the campaign stopped in `out` (its progress.jsonl), given the same options.
  bool resume = false;
  // Only the traces i with i % shard_count == shard_index (--shard I/N; fuzz_shards.h).
  std::uint64_t shard_index = 0, shard_count = 1;
  // Traces in flight at once (plan_jobs); 0, the default: the target's jobsPerCore times the
  // cores.
  int jobs = 0;
  // Traces in flight at once on this process's adapter server (plan_jobs' in_flight): at most
  // the target's serveAtOnce.
  int in_flight = 1;
};

// How a campaign's --jobs run: `shards` processes side by side (fuzz_shards.h), each with up to
// `in_flight` traces on its adapter's server at once. A target whose server takes T traces at
// once (serveAtOnce in targets.json) runs N jobs in ceil(N / T) processes; any other runs them in
// N processes, one trace each.
struct JobsPlan {
  int jobs = 1;  // traces in flight in all
  int shards = 1;
  int in_flight = 1;  // at most, in each shard
};

// The plan for `args.jobs`, or for its default when 0: the target's jobsPerCore times the cores
// this process may run on, at most 64 and at most --count (1 for a target without jobsPerCore,
// or whose registry or entry cannot be read: fuzz_target_command then says why); a shard's
// default is at most what its server takes at once. With --resume and no --jobs: as many
// shards as the stopped campaign ran in (OUT/shards), 1 for none.
JobsPlan plan_jobs(const FuzzTargetArgs& args);

// How much longer a failure's re-runs settle (LOCKSTEP_SETTLE_SCALE, adapters/README.md).
constexpr double kRerunSettleScale = 4;

// Exit 0 when no trace the target ran was judged not allowed and the adapter never failed (traces
// check could not decide within its budget are kept under unknown/ and counted, as those are, and
// so are flaky ones under flaky/), 1
// when failures were kept, 2 bad input, 128 + the signal's number when SIGINT or SIGTERM stopped
// it (summary.json then says what was done, and --resume finishes it).
int fuzz_target_command(const FuzzTargetArgs& args);

}  // namespace lockstep::cli
