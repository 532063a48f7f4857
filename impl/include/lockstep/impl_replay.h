// One replay on the impl engine that its caller steers, as `lockstep check` steers the spec
// model's World: a chooser decides the choice points once the trace's pins are used up (offered
// with the names, order, proposals and canonical choice the model gives them), an observer hears
// of each unit before it runs, and the log so far can be read between units. check's search runs
// on it first and has what it finds confirmed by the model (check/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/choice_point.h"
#include "lockstep/engine.h"

namespace lockstep {

namespace impl {
class Runner;
}

class ImplReplay {
 public:
  explicit ImplReplay(const Trace& trace);
  ~ImplReplay();
  ImplReplay(const ImplReplay&) = delete;
  ImplReplay& operator=(const ImplReplay&) = delete;

  void set_chooser(Chooser chooser);
  void offer_early_units(bool offer);       // points before a step (I-26)
  void offer_putting_off_idle(bool offer);  // points where only idle periods could start (I-27)
  void set_before_unit_observer(std::function<void(const std::string& unit)> observer);
  // Called as each unit ends (its microtasks run), before anything else does.
  void set_after_unit_observer(std::function<void()> observer);
  void set_logging(bool on);  // off: nothing is logged until it is on again
  const Log& event_log() const;
  int current_step() const;  // the latest top-level step begun
  // The step what is logged now is stamped with: current_step(), or before a step (I-26) the
  // step whose settling is under way.
  int stamp_step() const;
  std::vector<std::string> choices_taken() const;
  // How many steps the partition's lock task queue has been given so far, kept up to date for
  // the replay's life (null if it has no queue).
  const std::uint64_t* lock_steps_enqueued(const std::string& partition) const;

  // Once. What the chooser or the observer throws goes through, unless it derives from
  // std::exception: that, like the engine's own failures, becomes the outcome's failure.
  RunOutcome run();

 private:
  std::unique_ptr<impl::Runner> runner_;
  std::optional<RunFailure> failed_;  // constructing the runner failed
};

}  // namespace lockstep
