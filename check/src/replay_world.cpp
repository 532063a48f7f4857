#include "replay_world.h"

#include "lockstep/impl_replay.h"
#include "runner/trace_runner.h"

namespace lockstep::check {
namespace {

class ModelWorld : public ReplayWorld {
 public:
  explicit ModelWorld(const Trace& trace) : runner_(trace), world_(runner_.world()) {}
  void steer(Chooser chooser, std::function<void(const std::string&)> before_unit) override {
    world_.offer_early_units(true);
    world_.offer_putting_off_idle(true);
    world_.set_chooser(std::move(chooser));
    world_.set_before_unit_observer([observer = std::move(before_unit)](const std::string& unit,
                                                                        std::uint64_t,
                                                                        int) { observer(unit); });
  }
  void after_each_unit(std::function<void()> after_unit) override {
    world_.set_unit_observer(std::move(after_unit));
  }
  void set_logging(bool on) override { world_.set_logging(on); }
  const Log& event_log() override { return world_.event_log(); }
  int current_step() const override { return world_.current_step(); }
  int stamp_step() const override { return world_.stamp_step(); }
  std::vector<std::string> choices_taken() const override { return world_.choices_taken(); }
  const std::uint64_t* lock_steps_enqueued(const std::string& partition) const override {
    return world_.lock_steps_enqueued(partition);
  }
  RunResult run() override { return runner_.run(); }

 private:
  spec::TraceRunner runner_;
  spec::World& world_;
};

class ImplWorld : public ReplayWorld {
 public:
  explicit ImplWorld(const Trace& trace) : replay_(trace) {}
  void steer(Chooser chooser, std::function<void(const std::string&)> before_unit) override {
    replay_.offer_early_units(true);
    replay_.offer_putting_off_idle(true);
    replay_.set_chooser(std::move(chooser));
    replay_.set_before_unit_observer(std::move(before_unit));
  }
  void after_each_unit(std::function<void()> after_unit) override {
    replay_.set_after_unit_observer(std::move(after_unit));
  }
  void set_logging(bool on) override { replay_.set_logging(on); }
  const Log& event_log() override { return replay_.event_log(); }
  int current_step() const override { return replay_.current_step(); }
  int stamp_step() const override { return replay_.stamp_step(); }
  std::vector<std::string> choices_taken() const override { return replay_.choices_taken(); }
  const std::uint64_t* lock_steps_enqueued(const std::string& partition) const override {
    return replay_.lock_steps_enqueued(partition);
  }
  RunResult run() override {
    RunOutcome outcome = replay_.run();
    if (!outcome.ok()) throw ImplFailed{outcome.failure().error};
    return std::move(outcome.result());
  }

 private:
  ImplReplay replay_;
};

}  // namespace

std::unique_ptr<ReplayWorld> replay_world(SearchEngine engine, const Trace& trace) {
  if (engine == SearchEngine::Impl) return std::make_unique<ImplWorld>(trace);
  return std::make_unique<ModelWorld>(trace);
}

}  // namespace lockstep::check
