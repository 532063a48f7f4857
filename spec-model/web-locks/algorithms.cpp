// https://w3c.github.io/web-locks/#concepts and #algorithms, step by step.
#include <algorithm>

#include "../platform/errors.h"
#include "web_locks.h"

namespace lockstep::spec {

void WebLocks::enqueue_on_lock_task_queue(ParallelQueue& queue, Steps steps) {
  world_.enqueue_steps(queue, [this, steps = std::move(steps)] {
    on_lock_task_queue_ = true;
    steps();
    on_lock_task_queue_ = false;
  });
}

void WebLocks::resolve_from_lock_task_queue(Promise* promise, JsValue value) {
  world_.queue_a_task(promise->environment, kWebLocksTaskSource,
                      [this, promise, value] { promise->own.resolve(world_, value); });
}

void WebLocks::reject_from_lock_task_queue(Promise* promise, Value reason) {
  world_.queue_a_task(promise->environment, kWebLocksTaskSource,
                      [this, promise, reason] { promise->own.reject(world_, reason); });
}

// https://w3c.github.io/web-locks/#obtain-a-lock-manager
LockManager* WebLocks::obtain_a_lock_manager(Environment* environment) {
  // 1. Look up the local storage bottle map for "web-locks"; its storage key decides it (I-12).
  SPEC_STEP("obtain-a-lock-manager 1");
  std::optional<StorageKey> map = obtain_a_storage_key(*environment);
  // 2. No bottle map (opaque origin): failure.
  SPEC_STEP("obtain-a-lock-manager 2");
  if (!map) return nullptr;
  // 3. The map's bottle.
  SPEC_STEP("obtain-a-lock-manager 3");
  std::unique_ptr<LockManager>& bottle = bottles_[*map];
  if (!bottle) {
    bottle = std::make_unique<LockManager>();
    bottle->partition = map->partition;
  }
  // 4. The bottle's lock manager.
  SPEC_STEP("obtain-a-lock-manager 4");
  return bottle.get();
}

// https://w3c.github.io/web-locks/#get-the-lock-request-queue
LockRequestQueue& WebLocks::get_the_lock_request_queue(LockManager& manager,
                                                       const std::string& name) {
  auto& queue_map = manager.lock_request_queue_map;
  auto it = std::find_if(queue_map.begin(), queue_map.end(),
                         [&](const auto& e) { return e.first == name; });
  // 1. A name seen for the first time gets an empty queue.
  SPEC_STEP("get-the-lock-request-queue 1");
  if (it == queue_map.end()) {
    queue_map.emplace_back(name, std::make_unique<LockRequestQueue>());
    it = std::prev(queue_map.end());
  }
  // 2. The name's queue.
  SPEC_STEP("get-the-lock-request-queue 2");
  return *it->second;
}

// https://w3c.github.io/web-locks/#grantable
bool WebLocks::grantable(LockRequest* request) {
  SPEC_STEP("grantable 1");
  LockManager* manager = request->manager;
  SPEC_STEP("grantable 2");
  auto& queue_map = *manager;
  SPEC_STEP("grantable 3");
  const std::string& name = request->name;
  SPEC_STEP("grantable 4");
  LockRequestQueue& queue = get_the_lock_request_queue(queue_map, name);
  SPEC_STEP("grantable 5");
  const std::vector<Lock*>& held = manager->held_lock_set;
  SPEC_STEP("grantable 6");
  LockMode mode = request->mode;
  // 7. Someone else at the front of a non-empty queue: not grantable.
  SPEC_STEP("grantable 7");
  if (!queue.empty() && queue.front() != request) return false;
  // 8. Exclusive: nothing of that name may be held.
  SPEC_STEP("grantable 8");
  if (mode == LockMode::Exclusive)
    return std::none_of(held.begin(), held.end(), [&](const Lock* l) { return l->name == name; });
  // 9. Shared: no exclusive lock of that name may be held.
  SPEC_STEP("grantable 9");
  return std::none_of(held.begin(), held.end(), [&](const Lock* l) {
    return l->mode == LockMode::Exclusive && l->name == name;
  });
}

// https://w3c.github.io/web-locks/#concept-lock ("when a lock's waiting promise settles")
// Runs in the microtask that sees the waiting promise settle (I-7).
void WebLocks::waiting_promise_settles(Lock* lock) {
  if (released_promise_reading_ == ReleasedPromiseReading::Note) {
    // I-24, the note's reading: the lock task queue's steps only release the lock (step 1), and
    // step 2 happens here, on the agent, before any task can run.
    enqueue_on_lock_task_queue(lock_task_queue(lock->manager), [this, lock] {
      SPEC_STEP("concept-lock 1");
      release_the_lock(lock);
    });
    SPEC_STEP("concept-lock 2");
    lock->released_promise->own.resolve(world_, JsValue(lock->waiting_promise));
    return;
  }
  // I-24, the steps' reading (the default): both steps on the lock task queue.
  enqueue_on_lock_task_queue(lock_task_queue(lock->manager), [this, lock] {
    // 1. Release the lock.
    SPEC_STEP("concept-lock 1");
    release_the_lock(lock);
    // 2. Resolve the released promise with the waiting promise (I-6).
    SPEC_STEP("concept-lock 2");
    resolve_from_lock_task_queue(lock->released_promise, JsValue(lock->waiting_promise));
  });
}

// https://w3c.github.io/web-locks/#terminate-remaining-locks-and-requests
void WebLocks::terminate_remaining_locks_and_requests(Environment* agent) {
  enqueue_on_lock_task_queue(lock_task_queue(agent), [this, agent] {
    // 1. Every request of the agent still queued, in queue map order, front to back.
    SPEC_STEP("terminate-remaining-locks-and-requests 1");
    std::vector<LockRequest*> requests;
    for (auto& [key, manager] : bottles_)
      for (auto& [name, queue] : manager->lock_request_queue_map)
        for (LockRequest* request : *queue)
          if (request->agent == agent) requests.push_back(request);
    for (LockRequest* request : requests) {
      // 1.1. Abort it.
      SPEC_STEP("terminate-remaining-locks-and-requests 1.1");
      abort_the_request(request);
    }
    // 2. Every lock the agent holds, in held set order.
    SPEC_STEP("terminate-remaining-locks-and-requests 2");
    std::vector<Lock*> locks;
    for (auto& [key, manager] : bottles_)
      for (Lock* lock : manager->held_lock_set)
        if (lock->agent == agent) locks.push_back(lock);
    for (Lock* lock : locks) {
      // 2.1. Release it.
      SPEC_STEP("terminate-remaining-locks-and-requests 2.1");
      release_the_lock(lock);
    }
  });
}

// https://w3c.github.io/web-locks/#algorithm-request-lock
LockRequest* WebLocks::request_a_lock(Promise* promise, Environment* agent,
                                      const std::string& client_id, LockManager* manager,
                                      const CallbackFunction& callback, const std::string& name,
                                      LockMode mode, bool if_available, bool steal,
                                      AbortSignal* signal) {
  // 1. The lock request.
  SPEC_STEP("algorithm-request-lock 1");
  auto* request = world_.make<LockRequest>(
      LockRequest{agent, client_id, manager, name, mode, callback, promise, signal, 0});
  // 2. With a signal, aborting it runs "signal to abort the request".
  SPEC_STEP("algorithm-request-lock 2");
  if (signal)
    request->abort_algorithm =
        signal->add([this, request, signal] { signal_to_abort_the_request(request, signal); });
  // 3. The rest runs on the lock task queue.
  SPEC_STEP("algorithm-request-lock 3");
  enqueue_on_lock_task_queue(lock_task_queue(agent), [this, request, manager, name, steal,
                                                      if_available, callback, promise] {
    SPEC_STEP("algorithm-request-lock 3.1");
    LockManager& queue_map = *manager;
    SPEC_STEP("algorithm-request-lock 3.2");
    LockRequestQueue& queue = get_the_lock_request_queue(queue_map, name);
    SPEC_STEP("algorithm-request-lock 3.3");
    std::vector<Lock*>& held = manager->held_lock_set;
    // 3.4. Steal: every held lock of the name is dropped and its released promise rejected.
    SPEC_STEP("algorithm-request-lock 3.4");
    if (steal) {
      SPEC_STEP("algorithm-request-lock 3.4.1");
      const std::vector<Lock*> snapshot = held;  // I-8: iterate a copy while removing
      for (Lock* lock : snapshot) {
        SPEC_STEP("algorithm-request-lock 3.4.1.1");
        if (lock->name == name) {
          SPEC_STEP("algorithm-request-lock 3.4.1.1.1");
          held.erase(std::find(held.begin(), held.end(), lock));
          SPEC_STEP("algorithm-request-lock 3.4.1.1.2");
          reject_from_lock_task_queue(lock->released_promise,
                                      Value::dom_exception("AbortError", "lock was stolen"));
        }
      }
      // 3.4.2. The stealer goes first.
      SPEC_STEP("algorithm-request-lock 3.4.2");
      queue.push_front(request);
    } else {
      SPEC_STEP("algorithm-request-lock 3.5");
      // 3.5.1. ifAvailable and not grantable now: the callback gets null on its event loop.
      SPEC_STEP("algorithm-request-lock 3.5.1");
      if (if_available && !grantable(request)) {
        world_.queue_a_task(callback.environment, kWebLocksTaskSource, [this, callback, promise] {
          SPEC_STEP("algorithm-request-lock 3.5.1.1");
          Completion r = host_.call_lock_granted_callback(callback, nullptr);
          SPEC_STEP("algorithm-request-lock 3.5.1.2");
          promise->own.resolve(world_, JsValue(to_promise(world_, callback.environment, r)));
        });
        return;
      }
      // 3.5.2. Join the back of the queue.
      SPEC_STEP("algorithm-request-lock 3.5.2");
      queue.push_back(request);
    }
    // 3.6. Grant what can be granted.
    SPEC_STEP("algorithm-request-lock 3.6");
    process_the_lock_request_queue(queue);
  });
  // 4. The request.
  SPEC_STEP("algorithm-request-lock 4");
  return request;
}

// https://w3c.github.io/web-locks/#algorithm-release-lock
void WebLocks::release_the_lock(Lock* lock) {
  SPEC_STEP("algorithm-release-lock 1");
  spec_assert(on_lock_task_queue(), "release the lock runs on the lock task queue");
  SPEC_STEP("algorithm-release-lock 2");
  LockManager* manager = lock->manager;
  SPEC_STEP("algorithm-release-lock 3");
  LockManager& queue_map = *manager;
  SPEC_STEP("algorithm-release-lock 4");
  const std::string& name = lock->name;
  SPEC_STEP("algorithm-release-lock 5");
  LockRequestQueue& queue = get_the_lock_request_queue(queue_map, name);
  // 6. Drop the lock from the held set (a no-op if a steal already did).
  SPEC_STEP("algorithm-release-lock 6");
  auto& held = manager->held_lock_set;
  held.erase(std::remove(held.begin(), held.end(), lock), held.end());
  SPEC_STEP("algorithm-release-lock 7");
  process_the_lock_request_queue(queue);
}

// https://w3c.github.io/web-locks/#algorithm-abort-request
void WebLocks::abort_the_request(LockRequest* request) {
  SPEC_STEP("algorithm-abort-request 1");
  spec_assert(on_lock_task_queue(), "abort the request runs on the lock task queue");
  SPEC_STEP("algorithm-abort-request 2");
  LockManager* manager = request->manager;
  SPEC_STEP("algorithm-abort-request 3");
  const std::string& name = request->name;
  SPEC_STEP("algorithm-abort-request 4");
  LockManager& queue_map = *manager;
  SPEC_STEP("algorithm-abort-request 5");
  LockRequestQueue& queue = get_the_lock_request_queue(queue_map, name);
  // 6. Take it out of the queue (a no-op if it was granted already).
  SPEC_STEP("algorithm-abort-request 6");
  queue.erase(std::remove(queue.begin(), queue.end(), request), queue.end());
  SPEC_STEP("algorithm-abort-request 7");
  process_the_lock_request_queue(queue);
}

// https://w3c.github.io/web-locks/#signal-to-abort-the-request
void WebLocks::signal_to_abort_the_request(LockRequest* request, AbortSignal* signal) {
  // 1. Abort the request on the lock task queue.
  SPEC_STEP("signal-to-abort-the-request 1");
  enqueue_on_lock_task_queue(lock_task_queue(request->agent),
                             [this, request] { abort_the_request(request); });
  // 2. Reject the request's promise with the signal's reason (this runs on the event loop).
  SPEC_STEP("signal-to-abort-the-request 2");
  request->promise->own.reject(world_, signal->abort_reason);
}

// https://w3c.github.io/web-locks/#algorithm-process-request
void WebLocks::process_the_lock_request_queue(LockRequestQueue& queue) {
  SPEC_STEP("algorithm-process-request 1");
  spec_assert(on_lock_task_queue(), "process the lock request queue runs on the lock task queue");
  // 2. From the front. Each granted request leaves the queue, so the front is always next.
  SPEC_STEP("algorithm-process-request 2");
  while (!queue.empty()) {
    LockRequest* request = queue.front();
    // 2.1. Stop at the first request that cannot be granted.
    SPEC_STEP("algorithm-process-request 2.1");
    if (!grantable(request)) return;
    SPEC_STEP("algorithm-process-request 2.2");
    queue.pop_front();
    SPEC_STEP("algorithm-process-request 2.3");
    Environment* agent = request->agent;
    SPEC_STEP("algorithm-process-request 2.4");
    LockManager* manager = request->manager;
    SPEC_STEP("algorithm-process-request 2.5");
    const std::string client_id = request->client_id;
    SPEC_STEP("algorithm-process-request 2.6");
    const std::string name = request->name;
    SPEC_STEP("algorithm-process-request 2.7");
    LockMode mode = request->mode;
    SPEC_STEP("algorithm-process-request 2.8");
    CallbackFunction callback = request->callback;
    SPEC_STEP("algorithm-process-request 2.9");
    Promise* p = request->promise;
    SPEC_STEP("algorithm-process-request 2.10");
    AbortSignal* signal = request->signal;
    SPEC_STEP("algorithm-process-request 2.11");
    Promise* waiting = new_promise(world_, callback.environment);
    SPEC_STEP("algorithm-process-request 2.12");
    auto* lock = world_.make<Lock>(Lock{agent, client_id, manager, name, mode, waiting, p});
    // I-7: the lock's release is tied to its waiting promise from the moment both exist.
    const auto settled = [this, lock](const Value&) {
      waiting_promise_settles(lock);
      return Completion::normal(Value());
    };
    perform_promise_then(world_, waiting->environment, waiting, settled, settled, nullptr);
    SPEC_STEP("algorithm-process-request 2.13");
    manager->held_lock_set.push_back(lock);
    // 2.14. The grant runs on the callback's event loop.
    SPEC_STEP("algorithm-process-request 2.14");
    world_.queue_a_task(
        callback.environment, kWebLocksTaskSource,
        [this, request, signal, lock, callback, waiting] {
          SPEC_STEP("algorithm-process-request 2.14.1");
          if (signal) {
            // 2.14.1.1. Aborted meanwhile: give the lock back instead of calling the callback.
            SPEC_STEP("algorithm-process-request 2.14.1.1");
            if (signal->aborted()) {
              SPEC_STEP("algorithm-process-request 2.14.1.1.1");
              enqueue_on_lock_task_queue(lock_task_queue(lock->manager), [this, lock] {
                SPEC_STEP("algorithm-process-request 2.14.1.1.1.1");
                release_the_lock(lock);
              });
              SPEC_STEP("algorithm-process-request 2.14.1.1.2");
              return;
            }
            SPEC_STEP("algorithm-process-request 2.14.1.2");
            signal->remove(request->abort_algorithm);
          }
          // 2.14.2. Call the callback with a new Lock object.
          SPEC_STEP("algorithm-process-request 2.14.2");
          auto* lock_object = world_.make<LockObject>(LockObject{lock});
          Completion r = host_.call_lock_granted_callback(callback, lock_object);
          // 2.14.3. Resolve the waiting promise with what the callback returned.
          SPEC_STEP("algorithm-process-request 2.14.3");
          waiting->own.resolve(world_, JsValue(to_promise(world_, callback.environment, r)));
        });
  }
}

// https://w3c.github.io/web-locks/#algorithm-snapshot-state
void WebLocks::snapshot_the_lock_state(LockManager* manager, Promise* promise) {
  SPEC_STEP("algorithm-snapshot-state 1");
  spec_assert(on_lock_task_queue(), "snapshot the lock state runs on the lock task queue");
  const auto info = [](const std::string& name, LockMode mode, const std::string& client_id) {
    return Value::object({{"name", Value::string(name)},
                          {"mode", Value::string(lock_mode_name(mode))},
                          {"clientId", Value::string(client_id)}});
  };
  SPEC_STEP("algorithm-snapshot-state 2");
  std::vector<Value> pending;
  // 3. Every queue in map order (I-13), every request front to back.
  SPEC_STEP("algorithm-snapshot-state 3");
  for (auto& [name, queue] : manager->lock_request_queue_map) {
    SPEC_STEP("algorithm-snapshot-state 3.1");
    for (LockRequest* request : *queue) {
      SPEC_STEP("algorithm-snapshot-state 3.1.1");
      pending.push_back(info(request->name, request->mode, request->client_id));
    }
  }
  SPEC_STEP("algorithm-snapshot-state 4");
  std::vector<Value> held;
  SPEC_STEP("algorithm-snapshot-state 5");
  for (Lock* lock : manager->held_lock_set) {
    SPEC_STEP("algorithm-snapshot-state 5.1");
    held.push_back(info(lock->name, lock->mode, lock->client_id));
  }
  // 6. Resolve with both lists (I-6).
  SPEC_STEP("algorithm-snapshot-state 6");
  resolve_from_lock_task_queue(
      promise, JsValue(Value::object({{"held", Value::array(std::move(held))},
                                      {"pending", Value::array(std::move(pending))}})));
}

}  // namespace lockstep::spec
