// The embedder API of impl/'s Web Locks: what a C++ runtime links to give its agents
// `navigator.locks`. It owns one LockManager per storage key (web-locks#lock-manager: one per
// storage bottle, i.e. per partition and origin) and is safe to call from any thread.
//
// Threads. The spec runs every change to lock state on one parallel queue, the user agent's lock
// task queue (web-locks#lock-task-queue), and reaches agents only by queuing tasks on their event
// loops. Here a mutex stands for that queue: each call runs its lock-task-queue steps under it, in
// the calling thread, and hands the agent-side steps (grant callbacks, "not available", stolen
// notices, query results) to the agent's own `post` function while still holding it. So steps of
// different calls never interleave, and the tasks bound for one event loop are posted in the order
// the lock task queue produced them, as the spec's "queue a task" does. Callers cannot tell the
// difference from a separate queue thread: the only thing a call returns at once is a handle (the
// spec returns a promise at once too); every outcome arrives later as a posted task.
//
// What stays with the embedder (it is script-facing, not lock state): the promise of request(),
// running the callback, waiting for its promise, rejecting `released` promises, AbortSignal
// listeners. See impl/README.md for a walk through one request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "lockstep/impl/lock_manager.h"

namespace lockstep::impl {

// A problem with a call (an unknown or terminated agent, a stale handle): a value, never a crash.
struct ServiceError {
  std::string message;
};

template <class T>
using ServiceResult = std::variant<T, ServiceError>;

// An agent registered with the service (a window or worker: web-locks#lock-manager's "agent").
struct AgentHandle {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;  // 0: none
  explicit operator bool() const { return generation != 0; }
};

// A request, and the lock it becomes once granted (one record in the spec's terms: the lock keeps
// the request's name, mode and agent).
struct RequestHandle {
  AgentHandle agent;
  Ticket ticket;
  explicit operator bool() const { return static_cast<bool>(ticket); }
};

class LockService {
 public:
  // Runs `task` on the agent's event loop later. Called with the service's mutex held: it must
  // only enqueue (never run the task inline, never call back into the service) and must be safe to
  // call from any thread.
  using Post = std::function<void(std::function<void()> task)>;

  struct AgentOptions {
    std::string storage_key;  // partition + origin: agents with equal keys share a lock manager
    std::string client_id;    // what query() reports for this agent's locks and requests
    Post post;
  };

  struct RequestOptions {
    Mode mode = Mode::Exclusive;
    bool if_available = false;
    bool steal = false;
  };

  // Every outcome of one request arrives as exactly one of these calls, on the agent's event loop,
  // unless the agent is terminated first:
  struct RequestCallbacks {
    // The lock was granted (web-locks#algorithm-process-request step 2.13 queues this task): run
    // the script callback with a Lock object, and call release() when its promise settles.
    std::function<void(RequestHandle lock)> granted;
    // ifAvailable and not grantable (web-locks#algorithm-request-lock step 3.5): run the script
    // callback with null.
    std::function<void()> not_available;
    // Later, for a granted lock only: another request stole it (request-lock step 3.4.1.1): reject
    // its released promise with an AbortError. The lock is already gone; do not release it.
    std::function<void()> stolen;
  };

  struct QueryEntry {
    std::string name;
    Mode mode = Mode::Exclusive;
    std::string client_id;
  };
  struct QueryResult {
    std::vector<QueryEntry> held;
    std::vector<QueryEntry> pending;
  };

  LockService();
  ~LockService();
  LockService(const LockService&) = delete;
  LockService& operator=(const LockService&) = delete;

  ServiceResult<AgentHandle> register_agent(AgentOptions options);

  // web-locks#algorithm-request-lock steps 3.1-3.6. The option checks of LockManager.request()
  // (names starting with '-', steal with ifAvailable or a signal, ...) are the binding's, before
  // this call.
  ServiceResult<RequestHandle> request(AgentHandle agent, std::string name, RequestOptions options,
                                       RequestCallbacks callbacks);

  // web-locks#algorithm-release-lock, when the callback's promise settles. A lock already stolen
  // or released is a no-op (returns false); a handle of another agent is an error.
  ServiceResult<bool> release(RequestHandle lock);

  // web-locks#algorithm-abort-request, when the request's signal aborts: true when the request was
  // still queued and is gone (reject the request's promise with the signal's reason), false when it
  // had been granted or had ended already.
  ServiceResult<bool> abort(RequestHandle request);

  // web-locks#dom-lockmanager-query: the state of the agent's lock manager, delivered as a task.
  ServiceResult<bool> query(AgentHandle agent, std::function<void(QueryResult)> done);

  // web-locks#terminate-remaining-locks-and-requests: the agent is gone. Its requests and locks go
  // away and others' waiting requests may be granted; no task is posted to it any more.
  ServiceResult<bool> terminate(AgentHandle agent);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lockstep::impl
