#include "lockstep/impl_engine.h"

#include <stdexcept>

#include "runner.h"

namespace lockstep {
namespace {

class ImplEngine : public Engine {
 public:
  std::string name() const override { return "impl"; }

  RunOutcome run(const Trace& trace, const RunOptions&) const override {
    try {
      impl::Runner runner(trace);
      return runner.run();
    } catch (const impl::ReplayFailure& e) {
      return RunFailure{RunFailure::Kind::BadInput, e.error};
    } catch (const impl::EngineFault& e) {
      return RunFailure{RunFailure::Kind::Internal, Error{"", e.message}};
    } catch (const std::exception& e) {
      return RunFailure{RunFailure::Kind::Internal, Error{"", e.what()}};
    }
  }
};

}  // namespace

std::unique_ptr<Engine> make_impl_engine() {
  return std::make_unique<ImplEngine>();
}

}  // namespace lockstep
