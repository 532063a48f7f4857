#pragma once

#include <cstdint>
#include <string>

namespace lockstep::cli {

struct FuzzArgs {
  double minutes = 1;
  std::uint64_t seed = 1;
  std::string out = "counterexamples";
  std::string property;  // empty: all
  int cases = 100;       // per property and seed
  int max_size = 100;
};

// Exit 0 when no property failed, 1 when counterexamples were written, 2 for bad arguments.
int fuzz_command(const FuzzArgs& args);

}  // namespace lockstep::cli
