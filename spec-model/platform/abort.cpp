#include "abort.h"

#include <algorithm>

#include "world.h"

namespace lockstep::spec {
namespace {

// dom#run-the-abort-steps
void run_the_abort_steps(AbortSignal* signal) {
  auto algorithms = std::move(signal->abort_algorithms);  // step 1: each algorithm runs once
  signal->abort_algorithms.clear();                       // step 2: empty the list
  for (auto& [handle, algorithm] : algorithms) algorithm();
  // Step 3 fires "abort" at the signal; traces attach no listeners to it.
}

}  // namespace

AbortSignal::AlgorithmHandle AbortSignal::add(std::function<void()> algorithm) {
  if (aborted()) return 0;  // dom#abortsignal-add step 1
  AlgorithmHandle handle = next_handle_++;
  abort_algorithms.emplace_back(handle, std::move(algorithm));  // step 2
  return handle;
}

void AbortSignal::remove(AlgorithmHandle handle) {
  abort_algorithms.erase(std::remove_if(abort_algorithms.begin(), abort_algorithms.end(),
                                        [&](const auto& a) { return a.first == handle; }),
                         abort_algorithms.end());
}

void signal_abort(World&, AbortSignal* signal, Value reason) {
  if (signal->aborted()) return;  // step 1
  // Step 2: the reason, or a new "AbortError" DOMException.
  signal->abort_reason =
      reason.is_undefined() ? Value::dom_exception("AbortError", "signal is aborted without reason")
                            : std::move(reason);
  // Steps 3-4: dependents that are not aborted yet take the same reason.
  std::vector<AbortSignal*> dependent_signals_to_abort;
  for (AbortSignal* dependent : signal->dependent_signals) {
    if (dependent->aborted()) continue;
    dependent->abort_reason = signal->abort_reason;
    dependent_signals_to_abort.push_back(dependent);
  }
  run_the_abort_steps(signal);  // step 5
  for (AbortSignal* dependent : dependent_signals_to_abort)
    run_the_abort_steps(dependent);  // step 6
}

void create_a_dependent_abort_signal(AbortSignal* result_signal,
                                     const std::vector<AbortSignal*>& signals) {
  // 2. An input that is already aborted: the result is aborted with its reason, and is done.
  for (AbortSignal* signal : signals)
    if (signal->aborted()) {
      result_signal->abort_reason = signal->abort_reason;
      return;
    }
  result_signal->dependent = true;  // 3
  const auto append_unique = [](std::vector<AbortSignal*>& set, AbortSignal* item) {
    if (std::find(set.begin(), set.end(), item) == set.end()) set.push_back(item);
  };
  for (AbortSignal* signal : signals) {  // 4
    if (!signal->dependent) {            // 4.1: depend on the signal itself
      append_unique(result_signal->source_signals, signal);
      append_unique(signal->dependent_signals, result_signal);
    } else {  // 4.2: depend on its sources (flattening)
      for (AbortSignal* source_signal : signal->source_signals) {
        append_unique(result_signal->source_signals, source_signal);
        append_unique(source_signal->dependent_signals, result_signal);
      }
    }
  }
}

AbortController* new_abort_controller(World& world, Environment* environment) {
  auto* signal = world.make<AbortSignal>();  // step 1
  signal->environment = environment;
  auto* controller = world.make<AbortController>();
  controller->signal = signal;  // step 2
  return controller;
}

void abort_controller_abort(World& world, AbortController* controller, Value reason) {
  signal_abort(world, controller->signal, std::move(reason));
}

AbortSignal* abort_signal_timeout(World& world, Environment* environment,
                                  std::uint64_t milliseconds) {
  auto* signal = world.make<AbortSignal>();  // step 1
  signal->environment = environment;
  // Steps 2-3: after the timeout, queue a global task on the timer task source that aborts the
  // signal with a "TimeoutError" DOMException.
  world.run_steps_after_a_timeout(milliseconds, [&world, signal, environment] {
    world.queue_a_task(environment, kTimerTaskSource, [&world, signal] {
      signal_abort(world, signal, Value::dom_exception("TimeoutError", "signal timed out"));
    });
  });
  return signal;
}

}  // namespace lockstep::spec
