// The WebIDL pieces the specs lean on: callback functions and invoking them.
#pragma once

#include <string>

#include "promise.h"

namespace lockstep::spec {

struct LockObject;

// A callback function value: script's function and the realm it came from. Its relevant settings
// object is `environment`; `owner` is the trace id of the request or task that passed it.
struct CallbackFunction {
  Environment* environment = nullptr;
  const Callback* callback = nullptr;
  std::string owner;
};

// Runs script. The trace runner implements it; the spec algorithms only call it.
class ScriptHost {
 public:
  virtual ~ScriptHost() = default;
  // Calls a LockGrantedCallback with a Lock object or null.
  virtual Completion call_lock_granted_callback(const CallbackFunction& callback,
                                                LockObject* lock) = 0;
  // Calls a SchedulerPostTaskCallback (no arguments).
  virtual Completion call_post_task_callback(const CallbackFunction& callback) = 0;
  // Calls an IdleRequestCallback (the deadline is not modelled, I-19).
  virtual void call_idle_request_callback(const CallbackFunction& callback) = 0;
};

// webidl#invoke-a-callback-function for a callback whose return type is a promise type: an
// exception becomes a rejected promise (step 14), a value is converted with PromiseResolve.
Promise* to_promise(World& world, Environment* environment, const Completion& completion);

}  // namespace lockstep::spec
