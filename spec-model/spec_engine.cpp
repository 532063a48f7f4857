#include "lockstep/spec_engine.h"

#include "platform/errors.h"
#include "runner/trace_runner.h"

namespace lockstep {
namespace {

class SpecEngine : public Engine {
 public:
  std::string name() const override { return "spec"; }

  RunOutcome run(const Trace& trace, const RunOptions& options) const override {
    // The scheduling model is the next piece of work; until it lands, say so at the first op.
    const Action* scheduling = nullptr;
    for_each_action(trace.steps, [&](const Action& a) {
      if (!scheduling && op_is_scheduling(a.op)) scheduling = &a;
    });
    if (scheduling)
      return RunFailure{RunFailure::Kind::BadInput,
                        Error{scheduling->pointer + "/op",
                              std::string("\"") + op_name(scheduling->op) +
                                  "\" is Prioritized Task Scheduling, which this build of the spec model does "
                                  "not run yet (the trace is valid; see README, \"Status\")"}};
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

std::unique_ptr<Engine> make_spec_engine() { return std::make_unique<SpecEngine>(); }

}  // namespace lockstep
