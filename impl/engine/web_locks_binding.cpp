#include "web_locks_binding.h"

namespace lockstep::impl {
namespace {

constexpr const char* kWebLocksSource = "web-locks";

const char* mode_name(Mode mode) {
  return mode == Mode::Exclusive ? "exclusive" : "shared";
}

Value lock_info(const std::string& name, Mode mode) {
  return Value::object_of("name", Value::string(name), "mode", Value::string(mode_name(mode)));
}

}  // namespace

LockManager* WebLocksBinding::manager_for(Env* env) {
  if (env->locks) return static_cast<LockManager*>(env->locks);
  if (env->agent->origin == "opaque") return nullptr;  // no storage key, no lock manager (I-12)
  auto& manager = managers_[{env->agent->partition, env->agent->origin}];
  if (!manager) manager = std::make_unique<LockManager>(*this);
  env->locks = manager.get();
  env->lock_agent = manager->add_agent(env->agent->id);
  return manager.get();
}

Promise* WebLocksBinding::request(Env* env, const std::string& name,
                                  const LockRequestOptions& options, const CallbackRef& callback) {
  // The checks of web-locks#dom-lockmanager-request, in its order.
  if (env->is_window && !env->fully_active)
    return rt_.promise_rejected_with(env, Value::dom_exception("InvalidStateError"));
  LockManager* manager = manager_for(env);
  if (!manager) return rt_.promise_rejected_with(env, Value::dom_exception("SecurityError"));
  const bool bad_options = (!name.empty() && name[0] == '-') ||
                           (options.steal && options.if_available) ||
                           (options.steal && options.mode != Mode::Exclusive) ||
                           (options.signal && (options.steal || options.if_available));
  if (bad_options) return rt_.promise_rejected_with(env, Value::dom_exception("NotSupportedError"));
  if (options.signal && options.signal->aborted())
    return rt_.promise_rejected_with(env, options.signal->reason);
  Promise* promise = rt_.new_promise(env);
  Request* r = &requests_.emplace(
      Request{env, manager, name, options.mode, callback, promise, options.signal, 0, {}, nullptr});
  if (r->signal)
    r->abort_handle = rt_.add_algorithm(r->signal, [this, r] {
      // web-locks#signal-to-abort-the-request: abort on the lock task queue, reject now.
      rt_.lock_task(r->env, [r] { r->manager->abort(r->ticket); });
      rt_.reject(r->promise, r->signal->reason);
    });
  const RequestFlags flags{options.if_available, options.steal};
  rt_.lock_task(env, [this, r, flags] {
    RequestResult result = r->manager->request(r->env->lock_agent, r->name, r->mode, flags, r);
    r->ticket = result.ticket;
    if (result.outcome != RequestOutcome::NotAvailable) return;
    // Not available: the callback gets null, on its event loop.
    rt_.queue_task(r->callback.env, kWebLocksSource, [this, r] {
      Completion c = host_.call_lock_granted_callback(r->callback, Value::null());
      rt_.resolve(r->promise, JsValue(to_promise(rt_, r->callback.env, c)));
    });
  });
  return promise;
}

void WebLocksBinding::granted(Ticket ticket, void* user) {
  auto* r = static_cast<Request*>(user);
  r->ticket = ticket;
  r->waiting = rt_.new_promise(r->callback.env);
  release_when_settled(r);
  rt_.queue_task(r->callback.env, kWebLocksSource, [this, r] {
    if (r->signal) {
      if (r->signal->aborted()) {  // aborted meanwhile: the lock goes back unused
        rt_.lock_task(r->env, [r] { r->manager->release(r->ticket); });
        return;
      }
      rt_.remove_algorithm(r->signal, r->abort_handle);
    }
    Completion c = host_.call_lock_granted_callback(r->callback, lock_info(r->name, r->mode));
    rt_.resolve(r->waiting, JsValue(to_promise(rt_, r->callback.env, c)));
  });
}

// web-locks#concept-lock: when the waiting promise settles, the lock is released and the released
// promise resolved with the waiting promise: after the release, by a task the lock task queue
// queues, or (the note's reading, I-24) at once, in the microtask that sees the settlement.
void WebLocksBinding::release_when_settled(Request* r) {
  const auto settled = [this, r](const Value&) {
    if (released_promise_reading_ == ReleasedPromiseReading::Note) {
      rt_.lock_task(r->env, [r] { r->manager->release(r->ticket); });
      rt_.resolve(r->promise, JsValue(r->waiting));
      return Completion{};
    }
    rt_.lock_task(r->env, [this, r] {
      r->manager->release(r->ticket);
      rt_.queue_task(r->promise->env, kWebLocksSource,
                     [this, r] { rt_.resolve(r->promise, JsValue(r->waiting)); });
    });
    return Completion{};
  };
  rt_.then(r->waiting->env, r->waiting, settled, settled, nullptr);
}

void WebLocksBinding::stolen(Ticket, void* user) {
  auto* r = static_cast<Request*>(user);
  rt_.queue_task(r->promise->env, kWebLocksSource, [this, r] {
    rt_.reject(r->promise, Value::dom_exception("AbortError", "lock was stolen"));
  });
}

Promise* WebLocksBinding::query(Env* env) {
  if (env->is_window && !env->fully_active)
    return rt_.promise_rejected_with(env, Value::dom_exception("InvalidStateError"));
  LockManager* manager = manager_for(env);
  if (!manager) return rt_.promise_rejected_with(env, Value::dom_exception("SecurityError"));
  Promise* promise = rt_.new_promise(env);
  rt_.lock_task(env, [this, manager, promise] {
    Snapshot snapshot = manager->snapshot();
    const auto list = [](const std::vector<SnapshotEntry>& entries) {
      std::vector<Value> items;
      items.reserve(entries.size());
      for (const SnapshotEntry& e : entries)
        items.push_back(Value::object_of("name", Value::string(e.name), "mode",
                                         Value::string(mode_name(e.mode)), "clientId",
                                         Value::string(e.client_id)));
      return Value::array(std::move(items));
    };
    Value info = Value::object_of("held", list(snapshot.held), "pending", list(snapshot.pending));
    rt_.queue_task(promise->env, kWebLocksSource, [this, promise, info = std::move(info)] {
      rt_.resolve(promise, JsValue(info));
    });
  });
  return promise;
}

void WebLocksBinding::terminate_remaining_locks_and_requests(Env* env) {
  rt_.lock_task(env, [env] {
    if (env->locks) static_cast<LockManager*>(env->locks)->terminate(env->lock_agent);
  });
}

}  // namespace lockstep::impl
