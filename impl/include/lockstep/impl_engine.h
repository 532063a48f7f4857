// The impl engine: traces replayed on impl/'s cores (LockManager, TaskScheduler) and its own
// runtime. It has no spec step index, so RunOptions::coverage counts nothing.
#pragma once

#include <memory>

#include "lockstep/engine.h"

namespace lockstep {

std::unique_ptr<Engine> make_impl_engine();

}  // namespace lockstep
