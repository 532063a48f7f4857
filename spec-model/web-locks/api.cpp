// https://w3c.github.io/web-locks/#api: what script calls, and the termination hooks.
#include "web_locks.h"

namespace lockstep::spec {

std::string LockObject::name() const {
  SPEC_STEP("dom-lock-name 1");  // the associated lock's name
  return lock->name;
}

LockMode LockObject::mode() const {
  SPEC_STEP("dom-lock-mode 1");  // the associated lock's mode
  return lock->mode;
}

// https://w3c.github.io/web-locks/#dom-lockmanager-request
Promise* WebLocks::request(Environment* environment, const std::string& name,
                           std::optional<LockOptions> options, const CallbackFunction& callback) {
  // 1. The two-argument overload uses the dictionary's defaults.
  SPEC_STEP("dom-lockmanager-request 1");
  if (!options) options = LockOptions{};
  // 2. This LockManager's relevant settings object (each environment has its own LockManager).
  SPEC_STEP("dom-lockmanager-request 2");
  // 3. A document that is not fully active cannot request (workers have no document, I-9).
  SPEC_STEP("dom-lockmanager-request 3");
  if (environment->is_window && !environment->document_fully_active)
    return promise_rejected_with(world_, environment, Value::dom_exception("InvalidStateError"));
  // 4. No lock manager: SecurityError.
  SPEC_STEP("dom-lockmanager-request 4");
  LockManager* manager = obtain_a_lock_manager(environment);
  if (!manager)
    return promise_rejected_with(world_, environment, Value::dom_exception("SecurityError"));
  // 5. Names starting with '-' are reserved.
  SPEC_STEP("dom-lockmanager-request 5");
  if (!name.empty() && name[0] == '-')
    return promise_rejected_with(world_, environment, Value::dom_exception("NotSupportedError"));
  // 6-8. Option combinations that make no sense.
  SPEC_STEP("dom-lockmanager-request 6");
  if (options->steal && options->if_available)
    return promise_rejected_with(world_, environment, Value::dom_exception("NotSupportedError"));
  SPEC_STEP("dom-lockmanager-request 7");
  if (options->steal && options->mode != LockMode::Exclusive)
    return promise_rejected_with(world_, environment, Value::dom_exception("NotSupportedError"));
  SPEC_STEP("dom-lockmanager-request 8");
  if (options->signal && (options->steal || options->if_available))
    return promise_rejected_with(world_, environment, Value::dom_exception("NotSupportedError"));
  // 9. An already aborted signal rejects with its reason.
  SPEC_STEP("dom-lockmanager-request 9");
  if (options->signal && options->signal->aborted())
    return promise_rejected_with(world_, environment, options->signal->abort_reason);
  SPEC_STEP("dom-lockmanager-request 10");
  Promise* promise = new_promise(world_, environment);
  // 11. The current agent is the one running this script: the environment (I-5).
  SPEC_STEP("dom-lockmanager-request 11");
  request_a_lock(promise, environment, environment->id, manager, callback, name, options->mode,
                 options->if_available, options->steal, options->signal);
  SPEC_STEP("dom-lockmanager-request 12");
  return promise;
}

// https://w3c.github.io/web-locks/#dom-lockmanager-query
Promise* WebLocks::query(Environment* environment) {
  SPEC_STEP("dom-lockmanager-query 1");
  SPEC_STEP("dom-lockmanager-query 2");
  if (environment->is_window && !environment->document_fully_active)
    return promise_rejected_with(world_, environment, Value::dom_exception("InvalidStateError"));
  SPEC_STEP("dom-lockmanager-query 3");
  LockManager* manager = obtain_a_lock_manager(environment);
  if (!manager)
    return promise_rejected_with(world_, environment, Value::dom_exception("SecurityError"));
  SPEC_STEP("dom-lockmanager-query 4");
  Promise* promise = new_promise(world_, environment);
  SPEC_STEP("dom-lockmanager-query 5");
  enqueue_on_lock_task_queue(lock_task_queue(environment), [this, manager, promise] {
    snapshot_the_lock_state(manager, promise);
  });
  SPEC_STEP("dom-lockmanager-query 6");
  return promise;
}

// https://w3c.github.io/web-locks/#termination-of-locks
void WebLocks::unloading_document_cleanup_steps(Environment* environment) {
  SPEC_STEP("termination-of-locks unload");
  terminate_remaining_locks_and_requests(environment);
}

void WebLocks::agent_terminates(Environment* environment) {
  SPEC_STEP("termination-of-locks terminate");
  terminate_remaining_locks_and_requests(environment);
}

}  // namespace lockstep::spec
