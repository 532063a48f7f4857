#include "counterexamples.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lockstep/trace_io.h"

namespace lockstep {

namespace {

std::filesystem::path counterexample_folder() {
  const char* dir_env = std::getenv("LOCKSTEP_COUNTEREXAMPLES");
  const std::filesystem::path dir = dir_env && *dir_env ? dir_env : "counterexamples";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return std::filesystem::absolute(dir, ec);
}

// Writes `trace` to `trace_file` and returns `why` with the file and the command that replays it.
std::string kept_trace(const std::filesystem::path& trace_file, const Trace& trace,
                       const std::string& why) {
  std::ofstream(trace_file) << write_trace(trace);
  return why + "\ncounterexample: " + trace_file.string() + "\nreplay: lockstep run " +
         trace_file.string() + " --engine spec (and --engine impl)";
}

}  // namespace

std::string counterexample(const std::string& property, const Trace& trace,
                           const std::string& why) {
  return kept_trace(counterexample_folder() / (property + ".trace.json"), trace, why);
}

std::string counterexample(const std::string& property, const Trace& trace, const Log& observed,
                           const std::string& why) {
  const std::filesystem::path dir = counterexample_folder();
  const std::filesystem::path trace_file = dir / (property + ".trace.json");
  const std::filesystem::path log_file = dir / (property + ".log.json");
  std::ofstream(log_file) << write_log(observed);
  return kept_trace(trace_file, trace, why) + "\nobserved log: " + log_file.string() +
         "\ncheck: lockstep check " + trace_file.string() + " " + log_file.string();
}

}  // namespace lockstep
