#include "counterexamples.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lockstep/trace_io.h"

namespace lockstep {

std::string counterexample(const std::string& property, const Trace& trace,
                           const std::string& why) {
  const char* dir_env = std::getenv("LOCKSTEP_COUNTEREXAMPLES");
  const std::filesystem::path dir = dir_env && *dir_env ? dir_env : "counterexamples";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path file =
      std::filesystem::absolute(dir / (property + ".trace.json"), ec);
  std::ofstream(file) << write_trace(trace);
  return why + "\ncounterexample: " + file.string() + "\nreplay: lockstep run " + file.string() +
         " --engine spec (and --engine impl)";
}

}  // namespace lockstep
