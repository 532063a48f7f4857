#pragma once

#include <cstdint>
#include <string>

namespace lockstep::cli {

struct ShrinkArgs {
  std::string trace;
  std::string command;  // the adapter: {trace} and {log} are replaced by file paths
  std::string target;   // or a target of the targets file (target_command.h)
  std::string targets;  // its registry; empty: find_targets' default
  std::string out;      // where the minimal trace goes; empty: stdout
  std::string log_out;  // where the adapter's log of it goes; empty: nowhere
  std::string profile = "normative";
  // check's budget per candidate: below check's default, as a shrink checks many candidates and
  // one left unknown only keeps a larger trace (check/README.md, "The budget")
  std::uint64_t max_runs = 20'000;
  bool partial = false;       // check --partial: the target may lose an ended agent's events
  bool ignore_steps = false;  // check --ignore-steps
};

// Exit 0 with the minimal trace written, 2 when the input does not fail to begin with, neither
// --cmd nor --target is given, the command lacks {trace} or {log}, or the target is not one of
// the targets file. A candidate is taken only when it fails as the trace does: a log not allowed
// whose divergence has the trace's signature (KeepsItsFailure, adapter.h).
int shrink_command(const ShrinkArgs& args);

}  // namespace lockstep::cli
