// lockstep render: a trace (and an observed log's verdict) as one self-contained HTML page, or
// the whole corpus as an index of pictures.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace lockstep::cli {

struct RenderArgs {
  std::string input;  // a trace; with --corpus, the corpus folder
  std::string log;
  std::string out;
  bool coverage = false;
  bool corpus = false;
  std::string profile = "normative";
  std::uint64_t max_runs = 100'000;  // as check's (check::Options::max_runs)
  bool ignore_steps = false;
  bool partial = false;
};

// Registers the subcommand on `app`; its options fill `args`.
CLI::App* add_render_command(CLI::App& app, RenderArgs& args);
// Exit 0 when the page (or the corpus's pages) was written, 2 for bad input. An observed log's
// verdict does not change the exit code: `check` is the command that judges.
int render_command(const RenderArgs& args);

}  // namespace lockstep::cli
