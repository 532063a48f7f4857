#include "lockstep/impl_engine.h"

#include <stdexcept>

#include "lockstep/impl_replay.h"
#include "runner.h"

namespace lockstep {
namespace {

// The engine's own exceptions, and any std::exception, as an outcome; anything else (a chooser's
// way of ending a replay early) goes through.
template <class F>
RunOutcome outcome_of(F&& run) {
  try {
    return run();
  } catch (const impl::ReplayFailure& e) {
    return RunFailure{RunFailure::Kind::BadInput, e.error};
  } catch (const impl::EngineFault& e) {
    return RunFailure{RunFailure::Kind::Internal, Error{"", e.message}};
  } catch (const std::exception& e) {
    return RunFailure{RunFailure::Kind::Internal, Error{"", e.what()}};
  }
}

class ImplEngine : public Engine {
 public:
  std::string name() const override { return "impl"; }

  RunOutcome run(const Trace& trace, const RunOptions&) const override {
    return outcome_of([&]() -> RunOutcome {
      impl::Runner runner(trace);
      return runner.run();
    });
  }
};

}  // namespace

std::unique_ptr<Engine> make_impl_engine() {
  return std::make_unique<ImplEngine>();
}

ImplReplay::ImplReplay(const Trace& trace) {
  RunOutcome made = outcome_of([&]() -> RunOutcome {
    runner_ = std::make_unique<impl::Runner>(trace);
    return RunResult{};
  });
  if (!made.ok()) failed_ = made.failure();
}

ImplReplay::~ImplReplay() = default;

void ImplReplay::set_chooser(Chooser chooser) {
  if (runner_) runner_->runtime().set_chooser(std::move(chooser));
}

void ImplReplay::offer_early_units(bool offer) {
  if (runner_) runner_->runtime().offer_early_units(offer);
}

void ImplReplay::offer_putting_off_idle(bool offer) {
  if (runner_) runner_->runtime().offer_putting_off_idle(offer);
}

void ImplReplay::set_before_unit_observer(std::function<void(const std::string&)> observer) {
  if (runner_) runner_->runtime().set_before_unit_observer(std::move(observer));
}

void ImplReplay::set_after_unit_observer(std::function<void()> observer) {
  if (runner_) runner_->runtime().set_after_unit_observer(std::move(observer));
}

void ImplReplay::set_logging(bool on) {
  if (runner_) runner_->runtime().set_logging(on);
}

const Log& ImplReplay::event_log() const {
  static const Log kNone;
  return runner_ ? runner_->runtime().event_log() : kNone;
}

int ImplReplay::current_step() const {
  return runner_ ? runner_->runtime().current_step() : 0;
}

int ImplReplay::stamp_step() const {
  return runner_ ? runner_->runtime().stamp_step() : 0;
}

std::vector<std::string> ImplReplay::choices_taken() const {
  return runner_ ? runner_->runtime().take_choices() : std::vector<std::string>{};
}

const std::uint64_t* ImplReplay::lock_steps_enqueued(const std::string& partition) const {
  return runner_ ? runner_->runtime().lock_steps_enqueued(partition) : nullptr;
}

RunOutcome ImplReplay::run() {
  if (failed_) return *failed_;
  return outcome_of([&]() -> RunOutcome { return runner_->run(); });
}

}  // namespace lockstep
