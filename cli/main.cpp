// lockstep: runs, validates and checks traces against the spec model.
// Exit codes: 0 success, 1 internal error or a log that differs from what was expected,
// 2 bad input (with the file and JSON pointer of the problem).
#include <CLI/CLI.hpp>
#include <iostream>
#include <limits>

#include "check.h"
#include "commands.h"
#include "export.h"
#include "fuzz.h"
#include "fuzz_shards.h"
#include "fuzz_target.h"
#include "gen.h"
#include "misspelt.h"
#include "render.h"
#include "shrink.h"
#include "version.h"

namespace {

// A time budget in seconds: 0 (no limit) or more. CLI11's NonNegativeNumber lets NaN through,
// which would silently mean no limit.
const CLI::Validator kSeconds(
    [](std::string& input) -> std::string {
      double seconds = -1;
      if (!CLI::detail::lexical_cast(input, seconds) || !(seconds >= 0))
        return "must be a number of seconds, 0 for no limit: " + input;
      return {};
    },
    "SECONDS");

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "lockstep: an executable model of the Web Locks API and Prioritized Task Scheduling"};
  app.require_subcommand(1);
  app.set_version_flag("--version", lockstep::cli::version_text());
  app.set_help_all_flag("--help-all", "Help for every command");

  lockstep::cli::RunArgs run;
  auto* run_cmd =
      app.add_subcommand("run", "Replay a trace and write its event log (lockstep-log JSON)");
  run_cmd->add_option("trace", run.trace, "The trace file (lockstep-trace JSON)")->required();
  run_cmd->add_option("--engine", run.engine, "Which engine replays it")
      ->check(CLI::IsMember({"spec", "impl"}));
  run_cmd->add_option("-o,--output", run.output, "Write the log here instead of stdout");
  run_cmd->add_flag("--coverage", run.coverage,
                    "Report on stderr which spec steps the run exercised");
  run_cmd->add_option("--expect", run.expect,
                      "Compare the log with this expected log; exit 1 if they differ");
  run_cmd->add_flag("--choices", run.choices,
                    "Print on stderr the choice taken at every choice point");

  std::string validate_trace;
  auto* validate_cmd = app.add_subcommand("validate", "Check a trace without running it");
  validate_cmd->add_option("trace", validate_trace, "The trace file")->required();

  lockstep::cli::CorpusArgs corpus;
  auto* corpus_cmd = app.add_subcommand(
      "corpus",
      "Replay every *.trace.json under a folder and compare with its *.log.json (the main job)");
  corpus_cmd->add_option("dir", corpus.dir, "The corpus folder")->capture_default_str();
  corpus_cmd->add_option("--engine", corpus.engine, "Which engine replays it")
      ->check(CLI::IsMember({"spec", "impl"}));
  corpus_cmd->add_flag("--coverage", corpus.coverage,
                       "Report the spec steps the whole corpus exercised");
  corpus_cmd->add_flag("-v,--verbose", corpus.verbose, "A line for every trace, not only failures");

  lockstep::cli::FuzzArgs fuzz;
  auto* fuzz_cmd = app.add_subcommand(
      "fuzz", "Run the property suite on generated traces for a while; keep every counterexample");
  fuzz_cmd
      ->add_option("--minutes", fuzz.minutes,
                   "How long to run (--target with --count: no time limit unless given)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  fuzz_cmd->add_option("--seed", fuzz.seed, "The first seed (each round takes the next)")
      ->capture_default_str();
  fuzz_cmd->add_option("--out", fuzz.out, "Where counterexamples go (trace + .txt per failure)")
      ->capture_default_str();
  fuzz_cmd->add_option("--property", fuzz.property, "Only this property (default: all)");
  fuzz_cmd->add_option("--cases", fuzz.cases, "Cases per property and seed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  fuzz_cmd->add_option("--max-size", fuzz.max_size, "RapidCheck's largest size")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  // --target: a real implementation instead of the property suite (fuzz_target.h).
  lockstep::cli::FuzzTargetArgs fuzz_target;
  fuzz_cmd->add_option("--target", fuzz_target.target,
                       "Fuzz a real implementation through its adapter (adapters/targets.json): "
                       "gen -> adapter -> check -> shrink");
  fuzz_cmd->add_option("--targets", fuzz_target.targets,
                       "--target: the registry of targets (default adapters/targets.json)");
  fuzz_cmd->add_option("--count", fuzz_target.count, "--target: at most this many traces")
      ->capture_default_str();
  fuzz_cmd->add_option("--steps", fuzz_target.steps, "--target: top-level steps per trace, at most")
      ->capture_default_str();
  fuzz_cmd
      ->add_option("--shrink", fuzz_target.shrink,
                   "--target: shrink the first failure of each signature, for this many signatures")
      ->capture_default_str();
  fuzz_cmd
      ->add_option("--max-runs", fuzz_target.max_runs,
                   "--target: check's budget per trace, replays before the verdict is unknown "
                   "(such traces are kept under unknown/ to be checked again with more)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  fuzz_cmd
      ->add_option("--max-seconds", fuzz_target.max_seconds,
                   "--target: check's time per trace (and per shrink candidate), wall-clock "
                   "seconds before the verdict is unknown (0, the default: no limit)")
      ->check(kSeconds);
  fuzz_cmd
      ->add_option("--reruns", fuzz_target.reruns,
                   "--target: run a failure again this many times, settling 4x longer, before "
                   "keeping it; one an allowed run does not repeat is kept as flaky, apart")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  fuzz_cmd->add_option("--junit", fuzz_target.junit,
                       "--target: also write a JUnit report, a test case per trace");
  fuzz_cmd->add_flag("--json", fuzz_target.json, "--target: also print summary.json on stdout");
  std::string fuzz_shard;
  fuzz_cmd->add_option("--shard", fuzz_shard,
                       "--target: I/N, only the traces i with i % N == I (`fuzz merge` joins the "
                       "N shards' folders into the unsharded campaign's)");
  fuzz_cmd
      ->add_option("--jobs", fuzz_target.jobs,
                   "--target: traces in flight at once: on one adapter server where the target's "
                   "takes several (serveAtOnce in targets.json), else as that many shards side "
                   "by side (in OUT/shards) merged into OUT (default: the target's jobsPerCore "
                   "times the cores; 1 for a target without it)")
      ->check(CLI::Range(1, 64));
  std::string merge_out;
  std::vector<std::string> merge_shards;
  auto* merge_cmd = fuzz_cmd->add_subcommand(
      "merge",
      "Join the folders of the N shards of a `fuzz --target` campaign (--shard I/N) "
      "into the folder and summary.json the unsharded campaign has");
  merge_cmd->add_option("--out", merge_out, "The campaign's folder to make")->required();
  merge_cmd->add_option("shards", merge_shards, "The shards' folders")->required();
  fuzz_cmd->add_flag("--resume", fuzz_target.resume,
                     "--target: finish the campaign that a signal stopped in --out (its "
                     "progress.jsonl), given the same options");
  fuzz_cmd->add_flag("--no-serve", fuzz_target.no_serve,
                     "--target: start the adapter once per trace even where the target can serve "
                     "many traces from one process (targets.json \"serve\")");

  lockstep::cli::GenArgs gen;
  auto* gen_cmd = app.add_subcommand(
      "gen", "Generate random traces (the property tests' generator): files or JSON lines");
  gen_cmd->add_option("--seed", gen.seed, "Seed of the first trace (trace i uses seed + i)")
      ->capture_default_str();
  gen_cmd->add_option("--count", gen.count, "How many traces")->capture_default_str();
  gen_cmd->add_option("--steps", gen.steps, "At most this many top-level steps per trace")
      ->capture_default_str();
  gen_cmd->add_option("--profile", gen.profile, "locks, scheduling, mixed or single-agent")
      ->capture_default_str();
  gen_cmd->add_option("--without", gen.without,
                      "What the target lacks, comma-separated: " + lockstep::cli::capabilities());
  gen_cmd->add_option("--shard", gen.shard, "I/N: make only the traces i with i % N == I")
      ->capture_default_str();
  gen_cmd->add_option("--out", gen.out,
                      "A folder for one .trace.json per trace (default: JSON lines on stdout)");

  gen_cmd->add_flag("--exhaustive", gen.exhaustive,
                    "Every Web Locks trace within --agents, --names and --ops (up to renaming) "
                    "instead of random ones; prints the spec steps they cover");
  gen_cmd->add_option("--agents", gen.agents, "--exhaustive: at most this many agents")
      ->capture_default_str();
  gen_cmd->add_option("--names", gen.names, "--exhaustive: at most this many resource names")
      ->capture_default_str();
  gen_cmd->add_option("--ops", gen.ops, "--exhaustive: at most this many steps")
      ->capture_default_str();
  gen_cmd->add_flag("--with-coverage", gen.with_coverage,
                    "--exhaustive: each trace lists the spec steps it exercises (`exercises`)");

  lockstep::cli::CheckArgs check;
  auto* check_cmd = app.add_subcommand(
      "check",
      "Decide whether the specs allow an observed log of a trace (exit 0 allowed, 1 not allowed, "
      "3 unknown, 2 bad input)");
  check_cmd->add_option("trace", check.trace, "The trace file")->required();
  check_cmd->add_option("observed", check.observed, "The observed log (lockstep-log JSON)")
      ->required();
  check_cmd
      ->add_option("--profile", check.profile,
                   "normative: every order the specs allow; intent: also the orders they "
                   "recommend (the suggested event-loop strategy)")
      ->check(CLI::IsMember({"normative", "intent"}))
      ->capture_default_str();
  check_cmd->add_option("--format", check.format, "How the verdict is printed on stdout")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  check_cmd->add_flag(
      "--json", [&check](std::int64_t) { check.format = "json"; }, "Same as --format json");
  check_cmd->add_option("--junit", check.junit, "Also write a JUnit XML report to this file");
  check_cmd
      ->add_option("--max-runs", check.max_runs,
                   "Replays before the verdict is unknown (for each engine's search)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  check_cmd
      ->add_option("--max-seconds", check.max_seconds,
                   "Wall-clock seconds for the whole check before the verdict is unknown (0, the "
                   "default: no limit; with one, the verdict may depend on the machine)")
      ->check(kSeconds);
  check_cmd->add_flag("--ignore-steps", check.ignore_steps,
                      "Compare events without their step numbers");
  check_cmd->add_flag("--partial", check.partial,
                      "Accept an agent's events stopping early when the trace terminates or "
                      "unloads it (the report lists what was assumed unobservable)");
  check_cmd->add_flag("--model-only", check.model_only,
                      "Search on the spec model only (by default the search runs on the impl "
                      "engine first, and the model replays a schedule it finds to confirm it; "
                      "a search that runs out of budget there is unknown without the model)");
  check_cmd
      ->add_option("--split", check.split,
                   "Search the parts of the world that share no partition and no event loop "
                   "each on its own: when-unknown (after the whole world's search ends unknown), "
                   "first (before it), or never")
      ->check(CLI::IsMember({"when-unknown", "first", "never"}))
      ->capture_default_str();
  check_cmd->add_flag("--every-interleaving", check.every_interleaving,
                      "Search every order of units that commute too (by default a schedule that "
                      "differs from one searched only by such an order is skipped, and so is a "
                      "state already searched from another path)");

  lockstep::cli::ShrinkArgs shrink;
  auto* shrink_cmd = app.add_subcommand(
      "shrink",
      "Delta-debug a trace on which an implementation fails `check` down to a minimal one");
  shrink_cmd->add_option("trace", shrink.trace, "The failing trace")->required();
  auto* shrink_by_cmd =
      shrink_cmd->add_option("--cmd", shrink.command,
                             "The adapter: its program and arguments, split into words at blanks, "
                             "with '...', \"...\" and \\ as a shell's but no shell (no $, `, "
                             "globs, ;, |, >); {trace} is the trace file it replays, {log} the log "
                             "file it writes, each within its word (adapters/README.md)");
  auto* shrink_by_target = shrink_cmd->add_option(
      "--target", shrink.target,
      "Or a target of the targets file: its command (its serve command, where it has one) and "
      "whether check reads its logs as partial");
  shrink_by_cmd->excludes(shrink_by_target);
  shrink_cmd->add_option("--targets", shrink.targets,
                         "--target's registry (default: adapters/targets.json)");
  shrink_cmd->add_option("-o,--out", shrink.out, "Write the minimal trace here (default: stdout)");
  shrink_cmd->add_option("--log-out", shrink.log_out,
                         "Write the adapter's log of the minimal trace here");
  shrink_cmd->add_option("--profile", shrink.profile, "check's profile")
      ->check(CLI::IsMember({"normative", "intent"}))
      ->capture_default_str();
  shrink_cmd->add_option("--max-runs", shrink.max_runs, "check's budget per candidate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  shrink_cmd->add_flag("--partial", shrink.partial,
                       "check --partial for every candidate (a target that may lose the last "
                       "events of an agent the trace terminates or unloads)");
  shrink_cmd->add_flag("--ignore-steps", shrink.ignore_steps,
                       "check --ignore-steps for every candidate");

  lockstep::cli::ExportArgs export_args;
  auto* export_cmd = app.add_subcommand(
      "export", "Write traces as web-platform-tests style testharness.js pages (--wpt)");
  export_cmd->add_option("traces", export_args.inputs, "Trace files or folders of them")
      ->required();
  export_cmd->add_flag("--wpt", export_args.wpt, "testharness.js pages, one per trace");
  export_cmd->add_option("-o,--out", export_args.out, "The folder to write")->capture_default_str();

  lockstep::cli::RenderArgs render;
  auto* render_cmd = lockstep::cli::add_render_command(app, render);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A command or an option lockstep lacks: the nearest it has (what CLI11 would say instead,
    // "A subcommand is required", says nothing of the word given).
    if (e.get_exit_code() != 0)
      if (auto slip = lockstep::cli::misspelling(app, argc, argv)) {
        std::cerr << "lockstep: " << *slip << "\nRun with --help for the commands and options.\n";
        return 2;
      }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*run_cmd) return lockstep::cli::run_command(run);
    if (*validate_cmd) return lockstep::cli::validate_command(validate_trace);
    if (*corpus_cmd) return lockstep::cli::corpus_command(corpus);
    if (*merge_cmd) return lockstep::cli::fuzz_merge_command(merge_out, merge_shards);
    if (*fuzz_cmd && !fuzz_target.target.empty()) {
      if (!fuzz_shard.empty()) {
        if (auto why = lockstep::cli::parse_shard(fuzz_shard, fuzz_target.shard_index,
                                                  fuzz_target.shard_count)) {
          std::cerr << "lockstep: fuzz --shard: " << *why << "\n";
          return 2;
        }
      }
      // With --count alone the count is the budget: a campaign of N traces is not cut short by
      // the default minute (the property suite's budget).
      const bool count_only = fuzz_target.count > 0 && fuzz_cmd->count("--minutes") == 0;
      fuzz_target.minutes = count_only ? std::numeric_limits<double>::infinity() : fuzz.minutes;
      fuzz_target.seed = fuzz.seed;
      if (fuzz_cmd->count("--out") > 0) fuzz_target.out = fuzz.out;
      const lockstep::cli::JobsPlan plan = lockstep::cli::plan_jobs(fuzz_target);
      if (fuzz_target.shard_count > 1 && plan.shards > 1) {
        std::cerr << "lockstep: fuzz --shard: --jobs " << fuzz_target.jobs << " would need "
                  << plan.shards << " processes, and a shard is one: give --jobs at most what "
                  << "the target's server takes at once (serveAtOnce in its targets file)\n";
        return 2;
      }
      fuzz_target.jobs = plan.jobs;
      if (plan.shards > 1) return lockstep::cli::fuzz_jobs_command(fuzz_target, plan);
      fuzz_target.in_flight = plan.in_flight;
      return lockstep::cli::fuzz_target_command(fuzz_target);
    }
    if (*fuzz_cmd) return lockstep::cli::fuzz_command(fuzz);
    if (*gen_cmd) return lockstep::cli::gen_command(gen);
    if (*check_cmd) return lockstep::cli::check_command(check);
    if (*shrink_cmd) return lockstep::cli::shrink_command(shrink);
    if (*export_cmd) return lockstep::cli::export_command(export_args);
    if (*render_cmd) return lockstep::cli::render_command(render);
  } catch (const std::exception& e) {
    std::cerr << "lockstep: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
