// What the bindings call into script through: the trace runner implements it (engine262's host
// hooks, in one place).
#pragma once

#include <string_view>

#include "runtime.h"

namespace lockstep::impl {

struct CompiledAction;  // the runner's form of an action, with its references resolved

// A callback function value: the trace's callback, the realm it came from, and the trace id of
// the request or task that passed it (a view of the trace, which outlives the replay).
struct CallbackRef {
  Env* env = nullptr;
  const Callback* callback = nullptr;
  std::string_view owner;
  const CompiledAction* owner_action = nullptr;  // the request or task that passed it
};

class Host {
 public:
  virtual ~Host() = default;
  // lock_info: {name, mode} of the Lock object, or null.
  virtual Completion call_lock_granted_callback(const CallbackRef& callback,
                                                const Value& lock_info) = 0;
  virtual Completion call_post_task_callback(const CallbackRef& callback) = 0;
  virtual void call_idle_request_callback(const CallbackRef& callback) = 0;
};

// webidl#invoke-a-callback-function for a promise return type: a throw becomes a rejected
// promise, a value goes through PromiseResolve (I-22).
inline Promise* to_promise(Runtime& rt, Env* env, const Completion& c) {
  return c.thrown ? rt.promise_rejected_with(env, c.value.data) : rt.promise_resolve(env, c.value);
}

}  // namespace lockstep::impl
