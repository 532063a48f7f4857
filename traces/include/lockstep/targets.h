// The targets file that `lockstep fuzz --target` reads (adapters/targets.json, adapters/README.md):
// the implementations lockstep can drive, each with its adapter command. Read by the same strict
// reader as traces and logs: unknown members, duplicate keys and wrong types are errors at their
// JSON pointer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lockstep/error.h"

namespace lockstep {

struct TargetEntry {
  std::string name;
  std::string pointer;  // "/targets/<name>", for errors about the entry
  std::string description;
  std::string command;               // with {trace}, {log} and {adapters}, not yet split
  std::optional<std::string> serve;  // the command that replays many traces, if any
  // How many traces one `serve` process takes in flight at once (requests with an "id", answered
  // in any order: adapters/README.md, "Serving many traces"); 1: one at a time, without ids.
  int serve_at_once = 1;
  std::string profile = "mixed";  // gen's profile of what the target can express
  std::string without;            // gen's --without for it
  bool partial = false;           // check reads its logs as --partial
  // How many traces it takes in flight at once per core, where its runs are isolated from each
  // other: `fuzz --target`'s default --jobs is this times the cores lockstep may run on; none
  // (a target that does not say its runs can share a machine): 1 (adapters/README.md, "Shards
  // and jobs").
  std::optional<int> jobs_per_core;
};

struct TargetsFile {
  std::string about;
  std::vector<TargetEntry> targets;  // in the file's order
  const TargetEntry* find(const std::string& name) const;
};

Result<TargetsFile> read_targets(const std::string& json_text);
Result<TargetsFile> read_targets_file(const std::string& path);  // "-": standard input

}  // namespace lockstep
