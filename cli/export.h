#pragma once

#include <string>
#include <vector>

namespace lockstep::cli {

struct ExportArgs {
  std::vector<std::string> inputs;  // trace files or folders of them
  std::string out = "wpt-export";
  bool wpt = false;
};

// Exit 0 when the tests were written (traces that cannot be exported are listed with the reason
// in REPORT.md), 2 for bad input.
int export_command(const ExportArgs& args);

}  // namespace lockstep::cli
