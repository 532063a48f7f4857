// What `lockstep --version` prints: the release (CMakeLists.txt's project version) and the
// versions of the formats it reads and writes (traces/README.md).
#pragma once

#include <string>

namespace lockstep::cli {

inline std::string version_text() {
  return std::string("lockstep ") + LOCKSTEP_VERSION +
         " (lockstep-trace version 1, lockstep-log version 1)";
}

}  // namespace lockstep::cli
