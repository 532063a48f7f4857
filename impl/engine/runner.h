// Replays a trace on the impl runtime: agents become globals on event loops, each top-level step a
// task, each body an (async) function whose actions call navigator.locks and the scheduler. It
// reads the trace the same way as the spec model's runner (the trace format fixes what every
// action means); the lock and scheduling work is the impl cores'.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host.h"
#include "lockstep/engine.h"
#include "lockstep/string_index.h"
#include "scheduling_binding.h"
#include "short_id.h"
#include "web_locks_binding.h"

namespace lockstep::impl {

// What a trace id names, as the replay makes it.
struct Named {
  const Action* definition = nullptr;
  // From the definition, which is far back in the trace by the time a step uses the id: the id
  // and op kept here save a cache miss per reference compiled and per settle (short_id.h).
  ShortId id;
  Op op = Op::Mark;
  Promise* promise = nullptr;
  Promise* pending_result = nullptr;  // the pending promise its callback returned
  Signal* signal = nullptr;
  Signal* controller = nullptr;
  Signal* task_controller = nullptr;
};

// An action with the trace ids it makes and uses resolved to their records once, before the
// replay, so that no step looks an id up by its text. The actions of one body are contiguous, so an
// activation finds its current action's record at `body + pc`.
struct CompiledAction {
  Named* id = nullptr;             // what the action makes
  Named* ref = nullptr;            // target, signal or controller: an op uses at most one
  Named* option_signal = nullptr;  // request's and postTask's signal, TaskSignal.any's priority
  std::vector<Named*> signals;     // TaskSignal.any's
  const CompiledAction* body = nullptr;           // run, setTimeout, then, ... bodies
  const CompiledAction* callback_body = nullptr;  // request, postTask, requestIdleCallback
  // Where those start in the runner's list while it still grows (0: none; the top level is 0).
  std::size_t body_at = 0, callback_body_at = 0;
};

class Runner : public Host {
 public:
  explicit Runner(const Trace& trace);
  RunResult run();
  Runtime& runtime() { return rt_; }  // to steer a replay (lockstep/impl_replay.h)

  Completion call_lock_granted_callback(const CallbackRef& callback,
                                        const Value& lock_info) override;
  Completion call_post_task_callback(const CallbackRef& callback) override;
  void call_idle_request_callback(const CallbackRef& callback) override;

 private:
  struct Activation;
  enum class Flow { Next, Suspend, Stop };

  // A function's code: its actions and their compiled records.
  struct Code {
    const std::vector<Action>* body;
    const CompiledAction* compiled;
  };
  // `settles`: given for the top level only, which also records each step's agent and flag.
  std::size_t compile(const std::vector<Action>& body, std::vector<bool>* settles = nullptr);
  Named* resolve(std::string_view id, std::size_t action, int slot);
  void run_top_level(int index, const Action& step);
  Completion call_function(Env* env, Code code, const Callback* callback, const CallbackRef* owner,
                           bool is_async);
  Completion call_callback(const CallbackRef& callback);
  Promise* start_async(Env* env, Code code, const Callback* callback, const CallbackRef* owner);
  void resume(const std::shared_ptr<Activation>& activation);
  Completion finish(Activation& activation);
  Flow perform(Env* env, const Action& action, const CompiledAction& c,
               const std::shared_ptr<Activation>& activation);
  Flow perform_scheduling(Env* env, const Action& action, const CompiledAction& c,
                          const std::shared_ptr<Activation>& activation);
  Flow suspend_on(Env* env, Promise* promise, const std::shared_ptr<Activation>& activation);
  void observe(Promise* promise, Env* env, const ShortId& id);
  void end_agent(Env* env);
  void unload(Env* env);

  // `n` is the record of `id` (null when no action makes it).
  Promise* promise_named(const Action& user, std::string_view id, const Named* n);
  Signal* signal_named(const Action& user, std::string_view id, const Named* n);
  Signal* task_signal_named(const Action& user, std::string_view id, const Named* n);
  [[noreturn]] void not_created_yet(const Action& user, std::string_view id,
                                    const std::string& what, const Named* n);
  Named* named(std::string_view id);  // while compiling

  const Trace& trace_;
  Runtime rt_;
  WebLocksBinding locks_;
  SchedulingBinding scheduling_;
  // Ids are unique in a trace (the reader checks): one record per id, found by its text only
  // while compiling, which makes them in one walk over the trace (its actions are large and far
  // apart in memory, so each walk costs cache misses).
  StablePool<Named> names_;
  std::vector<Named*> by_ordinal_;
  StringIndex named_;  // id -> index in by_ordinal_
  // References compile() met before the action that makes the id: resolved after the walk.
  struct LateReference {
    std::size_t action;
    int slot;  // -2: ref, -1: option_signal, i >= 0: signals[i]
    std::string_view id;
  };
  std::vector<LateReference> late_;
  std::vector<CompiledAction> compiled_;  // the top-level steps first
  std::vector<Env*> step_envs_;           // each top-level step's agent (null for advanceTime)
  std::vector<int> settling_steps_;       // each step's settling step (I-26)
};

}  // namespace lockstep::impl
