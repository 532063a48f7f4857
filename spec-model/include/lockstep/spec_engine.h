// The literal spec model as an Engine (engine name "spec").
#pragma once

#include <memory>

#include "lockstep/engine.h"

namespace lockstep {

std::unique_ptr<Engine> make_spec_engine();

// The step index compiled into the binary: the contents of spec-model/*/steps.json.
const char* web_locks_step_index_json();

}  // namespace lockstep
