// The algorithms of the Web Locks API, one member function per algorithm, named after the spec's
// term (https://w3c.github.io/web-locks/). Each step is marked with the SPEC_STEP macro and its
// "<anchor> <step>" id.
#pragma once

#include <map>
#include <optional>

#include "../platform/storage.h"
#include "../platform/world.h"
#include "concepts.h"
#include "lockstep/trace.h"

namespace lockstep::spec {

struct LockOptions {  // web-locks#dictdef-lockoptions
  LockMode mode = LockMode::Exclusive;
  bool if_available = false;
  bool steal = false;
  AbortSignal* signal = nullptr;  // absent: null
};

class WebLocks {
 public:
  // `released_promise`: the reading of "when a lock's waiting promise settles" to follow (I-24).
  WebLocks(World& world, ScriptHost& host,
           ReleasedPromiseReading released_promise = ReleasedPromiseReading::Steps)
      : world_(world), host_(host), released_promise_reading_(released_promise) {}

  // --- API (web-locks#api) ---
  // LockManager.request(name, [options,] callback); `options` absent is the two-argument overload.
  Promise* request(Environment* environment, const std::string& name,
                   std::optional<LockOptions> options, const CallbackFunction& callback);
  Promise* query(Environment* environment);

  // --- Termination hooks (web-locks#termination-of-locks) ---
  void unloading_document_cleanup_steps(Environment* environment);
  void agent_terminates(Environment* environment);

  // --- Algorithms ---
  LockManager* obtain_a_lock_manager(Environment* environment);
  LockRequestQueue& get_the_lock_request_queue(LockManager& manager, const std::string& name);
  bool grantable(LockRequest* request);
  void terminate_remaining_locks_and_requests(Environment* agent);
  LockRequest* request_a_lock(Promise* promise, Environment* agent, const std::string& client_id,
                              LockManager* manager, const CallbackFunction& callback,
                              const std::string& name, LockMode mode, bool if_available, bool steal,
                              AbortSignal* signal);
  void release_the_lock(Lock* lock);
  void abort_the_request(LockRequest* request);
  void signal_to_abort_the_request(LockRequest* request, AbortSignal* signal);
  void process_the_lock_request_queue(LockRequestQueue& queue);
  void snapshot_the_lock_state(LockManager* manager, Promise* promise);

  // Read-only view for tests and invariants.
  const std::map<StorageKey, std::unique_ptr<LockManager>>& lock_managers() const {
    return bottles_;
  }

 private:
  // web-locks#concept-lock: what happens when a lock's waiting promise settles.
  void waiting_promise_settles(Lock* lock);
  ParallelQueue& lock_task_queue(Environment* agent) {
    return world_.lock_task_queue(agent->partition);
  }
  ParallelQueue& lock_task_queue(LockManager* manager) {
    return world_.lock_task_queue(manager->partition);
  }
  bool on_lock_task_queue() const { return on_lock_task_queue_; }
  void enqueue_on_lock_task_queue(ParallelQueue& queue, Steps steps);
  // I-6: promises touched from the lock task queue are settled by a task on their event loop.
  void resolve_from_lock_task_queue(Promise* promise, JsValue value);
  void reject_from_lock_task_queue(Promise* promise, Value reason);

  World& world_;
  ScriptHost& host_;
  ReleasedPromiseReading released_promise_reading_;
  // One lock manager per storage bottle ("web-locks"), keyed by storage key (I-12).
  std::map<StorageKey, std::unique_ptr<LockManager>> bottles_;
  bool on_lock_task_queue_ = false;
};

}  // namespace lockstep::spec
