#pragma once

#include <cstdint>
#include <string>

namespace lockstep::cli {

struct CheckArgs {
  std::string trace;
  std::string observed;
  std::string profile = "normative";  // normative | intent
  std::string format = "text";        // text | json
  std::string junit;                  // also write a JUnit XML report here
  std::uint64_t max_runs = 100'000;   // check::Options::max_runs
  double max_seconds = 0;             // 0: no time limit
  bool ignore_steps = false;
  bool partial = false;
  bool model_only = false;
  bool every_interleaving = false;
  std::string split = "when-unknown";  // when-unknown | first | never (check::Options::split)
};

// Exit 0 allowed, 1 not allowed, 3 unknown (budget spent), 2 bad input.
int check_command(const CheckArgs& args);

}  // namespace lockstep::cli
