// Replays a trace on the spec model: the trace's agents become environments on event loops, each
// top-level step a task, each body an (async) function whose actions call the modelled APIs. This
// is the host in engine262's sense: every hook the spec algorithms call into script is here.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "../platform/world.h"
#include "../scheduling/scheduling.h"
#include "../web-locks/web_locks.h"
#include "lockstep/engine.h"

namespace lockstep::spec {

class TraceRunner : public ScriptHost {
 public:
  explicit TraceRunner(const Trace& trace);
  RunResult run();

  // For the property tests' invariant checks: the world and the Web Locks state it runs on.
  World& world() { return world_; }
  const WebLocks& web_locks() const { return locks_; }
  const Scheduling& scheduling() const { return scheduling_; }
  // For `lockstep render`: the promises the trace names (request, query, newPromise ids), and a
  // call after each top-level step's own task (or terminate, unload, advanceTime), before the
  // world settles.
  const std::map<std::string, Promise*>& named_promises() const { return promises_; }
  void set_after_step_observer(std::function<void(int step)> observer) {
    after_step_ = std::move(observer);
  }

  Completion call_lock_granted_callback(const CallbackFunction& callback,
                                        LockObject* lock) override;
  Completion call_post_task_callback(const CallbackFunction& callback) override;
  void call_idle_request_callback(const CallbackFunction& callback) override;

 private:
  struct Activation;
  enum class Flow { Next, Suspend, Stop };

  void run_top_level(int index, const Action& step);
  // TRACE_FORMAT `terminate`: the agent ends (I-10), or a closed window's realm lives on (I-29).
  void terminate(Environment* environment);
  // webidl#invoke-a-callback-function for the callbacks a task invokes: the call, then clean up
  // after running script (its microtask checkpoint).
  Completion invoke_from_a_task(const CallbackFunction& callback);
  Completion call_function(Environment* environment, const std::vector<Action>* body,
                           const Callback* callback, const std::string& owner, bool is_async);
  Promise* start_async(Environment* environment, const std::vector<Action>* body,
                       const Callback* callback, const std::string& owner);
  void resume(const std::shared_ptr<Activation>& activation);
  Completion finish(Activation& activation);
  Flow perform(Environment* environment, const Action& action,
               const std::shared_ptr<Activation>& activation);
  Flow perform_scheduling(Environment* environment, const Action& action,
                          const std::shared_ptr<Activation>& activation);
  Flow suspend_on(Environment* environment, Promise* promise,
                  const std::shared_ptr<Activation>& activation);
  TaskSignal* task_signal_named(const Action& user, const std::string& id);

  Promise* promise_named(const Action& user, const std::string& id);
  AbortSignal* signal_named(const Action& user, const std::string& id);
  void observe(Promise* promise, Environment* environment, const std::string& id);
  [[noreturn]] void not_created_yet(const Action& user, const std::string& id,
                                    const std::string& what);
  const Action* definition(const std::string& id);  // the action that makes `id`, if any

  const Trace& trace_;
  World world_;
  WebLocks locks_;
  Scheduling scheduling_;
  std::map<std::string, const Action*> definitions_;  // built by definition() when first needed
  bool definitions_built_ = false;
  std::vector<int> settling_steps_;  // each step's settling step (I-26: what waits before it)
  std::map<std::string, Promise*> promises_;         // request, query, newPromise ids
  std::map<std::string, Promise*> pending_results_;  // callbacks that returned {"pending": true}
  std::map<std::string, AbortSignal*> signals_;
  std::map<std::string, AbortController*> controllers_;
  std::map<std::string, TaskController*> task_controllers_;
  std::map<std::string, int> terminated_in_step_;
  std::set<const Environment*> closed_windows_;  // closed, their realm living on (I-29)
  std::function<void(int)> after_step_;
};

}  // namespace lockstep::spec
