#include "lockstep/spec_engine.h"

#include "platform/errors.h"
#include "runner/trace_runner.h"

namespace lockstep {
namespace {

class SpecEngine : public Engine {
 public:
  std::string name() const override { return "spec"; }

  RunOutcome run(const Trace& trace, const RunOptions& options) const override {
    spec::StepCounts counts;
    spec::set_step_sink(options.coverage ? &counts : nullptr);
    struct Reset {
      ~Reset() { spec::set_step_sink(nullptr); }
    } reset;
    try {
      spec::TraceRunner runner(trace);
      RunResult result = runner.run();
      result.steps_hit = std::move(counts);
      return result;
    } catch (const spec::ReplayError& e) {
      return RunFailure{RunFailure::Kind::BadInput, e.error};
    } catch (const spec::InternalError& e) {
      return RunFailure{RunFailure::Kind::Internal, Error{"", e.what()}};
    }
  }
};

}  // namespace

std::unique_ptr<Engine> make_spec_engine() {
  return std::make_unique<SpecEngine>();
}

}  // namespace lockstep
