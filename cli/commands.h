#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lockstep/error.h"

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

// Shared by the commands: "lockstep: FILE: pointer: message" on stderr; returns exit code 2.
int bad_input(const std::string& file, const Error& error);
// Every *.trace.json under `dir`, recursively, sorted.
std::vector<std::filesystem::path> trace_files_under(const std::string& dir);

int run_command(const RunArgs& args);
// Prints on stderr the share of each spec's step index that `hit` covers (and what it misses).
// `only_spec`, when given, limits the report to that spec's index ("web-locks").
void print_coverage(const std::map<std::string, std::uint64_t>& hit, bool list_missed,
                    const std::string& only_spec = {});
int validate_command(const std::string& trace);
int corpus_command(const CorpusArgs& args);

}  // namespace lockstep::cli
