// What the fuzz targets share: the entry point's declaration, bytes as text, and how a target
// reports a finding. A finding aborts, so that libFuzzer keeps the input as a crash and the replay
// driver's test fails; exceptions are never caught, as one escaping is a finding too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lockstep/engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace lockstep::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property the target asserts failed on this input: say which, then abort.
[[noreturn]] inline void finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "fuzz target %s: %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

// A run that failed by the engine's fault (RunFailure::Kind::Internal) is a finding whatever the
// trace: only BadInput failures are the trace's.
inline void require_no_internal_failure(const char* target, const char* engine,
                                        const RunOutcome& outcome) {
  if (!outcome.ok() && outcome.failure().kind == RunFailure::Kind::Internal)
    finding(target, std::string("internal error on the ") + engine +
                        " engine: " + outcome.failure().error.to_string());
}

}  // namespace lockstep::fuzz
