// Replays a trace on the impl runtime: agents become globals on event loops, each top-level step a
// task, each body an (async) function whose actions call navigator.locks and the scheduler. It
// reads the trace the same way as the spec model's runner (the trace format fixes what every
// action means); the lock and scheduling work is the impl cores'.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "host.h"
#include "lockstep/engine.h"
#include "scheduling_binding.h"
#include "web_locks_binding.h"

namespace lockstep::impl {

struct EngineFault {
  std::string message;
};

class Runner : public Host {
 public:
  explicit Runner(const Trace& trace);
  RunResult run();

  Completion call_lock_granted_callback(const CallbackRef& callback,
                                        const Value& lock_info) override;
  Completion call_post_task_callback(const CallbackRef& callback) override;
  void call_idle_request_callback(const CallbackRef& callback) override;

 private:
  struct Activation;
  enum class Flow { Next, Suspend, Stop };

  void run_top_level(int index, const Action& step);
  Completion call_function(Env* env, const std::vector<Action>* body, const Callback* callback,
                           const std::string& owner, bool is_async);
  Promise* start_async(Env* env, const std::vector<Action>* body, const Callback* callback,
                       const std::string& owner);
  void resume(const std::shared_ptr<Activation>& activation);
  Completion finish(Activation& activation);
  Flow perform(Env* env, const Action& action, const std::shared_ptr<Activation>& activation);
  Flow perform_scheduling(Env* env, const Action& action,
                          const std::shared_ptr<Activation>& activation);
  Flow suspend_on(Env* env, Promise* promise, const std::shared_ptr<Activation>& activation);
  void observe(Promise* promise, Env* env, const std::string& id);
  void end_agent(Env* env);
  void unload(Env* env);

  Promise* promise_named(const Action& user, const std::string& id);
  Signal* signal_named(const Action& user, const std::string& id);
  Signal* task_signal_named(const Action& user, const std::string& id);
  [[noreturn]] void not_created_yet(const Action& user, const std::string& id,
                                    const std::string& what);

  // What a trace id names, found with one hash lookup: ids are unique in a trace (the reader
  // checks), so one table built up front replaces a map per kind of object. Keys view the trace's
  // strings.
  struct Named {
    const Action* definition = nullptr;
    Promise* promise = nullptr;
    Promise* pending_result = nullptr;  // the pending promise its callback returned
    Signal* signal = nullptr;
    Signal* controller = nullptr;
    Signal* task_controller = nullptr;
  };
  Named* named(std::string_view id);

  const Trace& trace_;
  Runtime rt_;
  WebLocksBinding locks_;
  SchedulingBinding scheduling_;
  std::unordered_map<std::string_view, Named> named_;
  std::map<std::string, int> terminated_in_step_;
};

}  // namespace lockstep::impl
