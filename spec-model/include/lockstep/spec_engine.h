// The literal spec model as an Engine (engine name "spec").
#pragma once

#include <memory>
#include <vector>

#include "lockstep/engine.h"

namespace lockstep {

std::unique_ptr<Engine> make_spec_engine();

// The step indexes compiled into the binary: the contents of spec-model/*/steps.json.
const char* web_locks_step_index_json();
const char* scheduling_step_index_json();
inline std::vector<const char*> step_index_jsons() {
  return {web_locks_step_index_json(), scheduling_step_index_json()};
}

}  // namespace lockstep
