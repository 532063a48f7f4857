// The seam every engine implements: replay a trace, produce its log. The spec model is one
// engine; impl/ will be another. The CLI and the tests only talk to this interface.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lockstep/error.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep {

struct RunOptions {
  bool coverage = false;  // count the spec steps the run executes
};

struct RunResult {
  Log log;
  std::map<std::string, std::uint64_t> steps_hit;  // spec step id -> times executed (coverage)
  std::vector<std::string> choices;                // the choice taken at every choice point
};

// What can go wrong in a run: the trace's fault (BadInput: exit 2) or the engine's (Internal: exit
// 1).
struct RunFailure {
  enum class Kind { BadInput, Internal } kind = Kind::BadInput;
  Error error;
};

class RunOutcome {
 public:
  RunOutcome(RunResult r) : ok_(true), result_(std::move(r)) {}
  RunOutcome(RunFailure f) : ok_(false), failure_(std::move(f)) {}
  bool ok() const { return ok_; }
  const RunResult& result() const { return result_; }
  RunResult& result() { return result_; }
  const RunFailure& failure() const { return failure_; }

 private:
  bool ok_;
  RunResult result_;
  RunFailure failure_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  virtual RunOutcome run(const Trace& trace, const RunOptions& options) const = 0;
};

}  // namespace lockstep
