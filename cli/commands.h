#pragma once

#include <string>

namespace lockstep::cli {

struct RunArgs {
  std::string trace;
  std::string engine = "spec";
  std::string output;
  std::string expect;
  bool coverage = false;
  bool choices = false;
};

struct CorpusArgs {
  std::string dir = "traces/corpus";
  std::string engine = "spec";
  bool coverage = false;
  bool verbose = false;
};

int run_command(const RunArgs& args);
int validate_command(const std::string& trace);
int corpus_command(const CorpusArgs& args);

}  // namespace lockstep::cli
