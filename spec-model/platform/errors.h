// Failures that stop a replay. A ReplayError is the trace's fault (exit 2, with the place in the
// trace); an InternalError is lockstep's (exit 1), e.g. a spec assertion that did not hold.
#pragma once

#include <stdexcept>
#include <string>

#include "lockstep/error.h"

namespace lockstep::spec {

struct ReplayError {
  Error error;
};

struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A spec "Assert:" step. It never fails if the model is right.
inline void spec_assert(bool condition, const char* what) {
  if (!condition) throw InternalError(std::string("spec assertion failed: ") + what);
}

}  // namespace lockstep::spec
