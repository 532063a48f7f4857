// A `fuzz --target` campaign split into shards. `--shard I/N` runs only the traces i with
// i % N == I (fuzz_target.h), in a folder of its own; `fuzz merge --out DIR SHARD...` makes of
// the N shards' folders the folder the unsharded campaign has (the kept traces moved into DIR,
// summary.json and progress.jsonl as the unsharded campaign writes them); `--jobs N` runs the
// shards plan_jobs gives side by side as processes of this binary, in OUT/shards/I-of-N, and
// merges them into OUT.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace lockstep::cli {

// "I/N" with 0 <= I < N as index and count; the error says what is wrong with `text`.
std::optional<std::string> parse_shard(const std::string& text, std::uint64_t& index,
                                       std::uint64_t& count);

// Exit 0 when the merged campaign kept no failure, 1 when it did, 2 when the folders are not the
// N shards of one campaign, 128 + a signal's number when a shard was stopped by it.
int fuzz_merge_command(const std::string& out, const std::vector<std::string>& shard_dirs);

// Where --jobs runs shard `index` of `count`: OUT/shards/I-of-N.
std::filesystem::path shard_folder(const std::string& out, std::uint64_t index,
                                   std::uint64_t count);
// How many shards the --jobs campaign in `out` ran in (its shard folders); none for none.
std::optional<std::uint64_t> shards_run_in(const std::string& out);

// `plan.shards` shards at once, with `args.jobs` traces in flight among them (plan_jobs);
// exits as fuzz_target_command does.
int fuzz_jobs_command(const FuzzTargetArgs& args, const JobsPlan& plan);

}  // namespace lockstep::cli
