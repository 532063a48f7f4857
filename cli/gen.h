#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lockstep/trace.h"

namespace lockstep::gen {
struct Profile;
}

namespace lockstep::cli {

// What --without (and a target's "without") may name, comma-separated: the world's features,
// then the Web Locks API's that an implementation may lack.
std::string capabilities();

struct GenArgs {
  std::uint64_t seed = 1;
  int count = 1;
  int steps = 30;                 // at most this many top-level steps per trace
  std::string profile = "mixed";  // locks | scheduling | mixed | single-agent
  std::string without;            // comma-separated, of capabilities()
  std::string shard = "0/1";      // I/N: this process makes traces i with i % N == I
  std::string out;                // a folder for one file per trace; empty: JSON lines on stdout
  // --exhaustive: every Web Locks trace within the bound instead of random ones
  bool exhaustive = false;
  int agents = 3, names = 2, ops = 4;
  bool with_coverage = false;  // each trace lists the spec steps it exercises
};

// Exit 0 on success, 2 for bad arguments (naming the option).
int gen_command(const GenArgs& args);

// --profile and --without into a generator profile; an error names the option.
std::optional<std::string> read_gen_profile(const std::string& name, const std::string& without,
                                            gen::Profile& profile);
// Trace `seed` of the generator, of at most `steps` top-level steps (what `gen` writes).
Trace generate_trace(const gen::Profile& profile, std::uint64_t seed, int steps);

}  // namespace lockstep::cli
