// What check's search needs of one replay, on either engine: the spec model's World (through its
// TraceRunner) or the impl engine (lockstep/impl_replay.h). Both offer the same choice points with
// the same names, order and canonical choice, so the search runs the same on both.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lockstep/choice_point.h"
#include "lockstep/engine.h"
#include "lockstep/trace.h"

namespace lockstep::check {

enum class SearchEngine { Model, Impl };

class ReplayWorld {
 public:
  virtual ~ReplayWorld() = default;
  // Offers the chooser every choice point, those before a step (I-26) and those where only idle
  // periods could start (I-27) included.
  virtual void steer(Chooser chooser, std::function<void(const std::string& unit)> before_unit) = 0;
  // Called as each unit ends (its microtasks run), before a step that follows begins.
  virtual void after_each_unit(std::function<void()> after_unit) = 0;
  virtual void set_logging(bool on) = 0;
  virtual const Log& event_log() = 0;
  virtual int current_step() const = 0;
  // What is logged now is stamped with: current_step(), or before a step (I-26) the step whose
  // settling is under way.
  virtual int stamp_step() const = 0;
  virtual std::vector<std::string> choices_taken() const = 0;
  // How many steps the partition's lock task queue has been given so far, kept up to date for
  // the replay's life (null if it has no queue).
  virtual const std::uint64_t* lock_steps_enqueued(const std::string& partition) const = 0;
  // The model reports a bad trace by throwing spec::ReplayError; the impl engine's failures
  // throw ImplFailed. What the chooser or the observer throws goes through (on the impl engine,
  // unless it derives from std::exception: check's Stop and BudgetSpent do not).
  virtual RunResult run() = 0;
};

// The impl engine failed where the model may not: the search goes back to the model.
struct ImplFailed {
  Error error;
};

std::unique_ptr<ReplayWorld> replay_world(SearchEngine engine, const Trace& trace);

}  // namespace lockstep::check
