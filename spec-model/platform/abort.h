// DOM's AbortController and AbortSignal (https://dom.spec.whatwg.org/#aborting-ongoing-activities):
// abort reason, abort algorithms, dependent signals, AbortSignal.timeout on the virtual clock.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "environment.h"
#include "lockstep/value.h"

namespace lockstep::spec {

class World;

class AbortSignal {
 public:
  using AlgorithmHandle = int;

  Environment* environment = nullptr;
  Value abort_reason;  // undefined while not aborted
  std::vector<std::pair<AlgorithmHandle, std::function<void()>>> abort_algorithms;
  bool dependent = false;
  std::vector<AbortSignal*> source_signals;
  std::vector<AbortSignal*> dependent_signals;
  std::string trace_id;

  virtual ~AbortSignal() = default;

  // dom#abortsignal-aborted
  bool aborted() const { return !abort_reason.is_undefined(); }
  // dom#abortsignal-add: nothing is added to an aborted signal (returns 0).
  AlgorithmHandle add(std::function<void()> algorithm);
  // dom#abortsignal-remove
  void remove(AlgorithmHandle handle);

 private:
  AlgorithmHandle next_handle_ = 1;
};

struct AbortController {
  AbortSignal* signal = nullptr;
};

// dom#abortsignal-signal-abort; an undefined reason becomes an "AbortError" DOMException.
void signal_abort(World& world, AbortSignal* signal, Value reason);
// dom#dom-abortcontroller-abortcontroller
AbortController* new_abort_controller(World& world, Environment* environment);
// dom#dom-abortcontroller-abort
void abort_controller_abort(World& world, AbortController* controller, Value reason);
// dom#create-a-dependent-abort-signal, steps 2-5, for a result signal the caller made (step 1
// makes an object of the requested interface, e.g. a TaskSignal).
void create_a_dependent_abort_signal(AbortSignal* result_signal,
                                     const std::vector<AbortSignal*>& signals);
// dom#dom-abortsignal-timeout
AbortSignal* abort_signal_timeout(World& world, Environment* environment,
                                  std::uint64_t milliseconds);

}  // namespace lockstep::spec
