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

}  // namespace

std::string counterexample(const std::string& property, const Trace& trace,
                           const std::string& why) {
  const std::filesystem::path file = counterexample_folder() / (property + ".trace.json");
  std::ofstream(file) << write_trace(trace);
  return why + "\ncounterexample: " + file.string() + "\nreplay: lockstep run " + file.string() +
         " --engine spec (and --engine impl)";
}

std::string counterexample(const std::string& property, const Trace& trace, const Log& observed,
                           const std::string& why) {
  const std::filesystem::path log = counterexample_folder() / (property + ".log.json");
  std::ofstream(log) << write_log(observed);
  const std::string message = counterexample(property, trace, why);
  const std::string trace_file = (log.parent_path() / (property + ".trace.json")).string();
  return message + "\nobserved log: " + log.string() + "\ncheck: lockstep check " + trace_file +
         " " + log.string();
}

}  // namespace lockstep
