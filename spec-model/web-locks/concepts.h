// Web Locks concepts as the spec defines them (https://w3c.github.io/web-locks/#concepts):
// lock requests, locks, lock request queues, lock managers. Script sees none of these directly;
// the Lock object (LockObject) is the script-facing wrapper of a lock.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../platform/abort.h"
#include "../platform/promise.h"
#include "../platform/webidl.h"

namespace lockstep::spec {

struct LockManager;

// web-locks#lock-request: a struct with these items.
struct LockRequest {
  Environment* agent = nullptr;  // I-5
  std::string client_id;
  LockManager* manager = nullptr;
  std::string name;
  LockMode mode = LockMode::Exclusive;
  CallbackFunction callback;
  Promise* promise = nullptr;
  AbortSignal* signal = nullptr;  // absent: null
  // Bookkeeping, not in the spec: which abort algorithm this request added to its signal.
  AbortSignal::AlgorithmHandle abort_algorithm = 0;
};

// web-locks#lock-concept
struct Lock {
  Environment* agent = nullptr;
  std::string client_id;
  LockManager* manager = nullptr;
  std::string name;
  LockMode mode = LockMode::Exclusive;
  Promise* waiting_promise = nullptr;
  Promise* released_promise = nullptr;
};

// web-locks#lock-request-queue: a queue (front removal, prepend for steal).
using LockRequestQueue = std::deque<LockRequest*>;

// web-locks#lock-manager
struct LockManager {
  std::string partition;  // the user agent whose lock task queue serves it (I-11)
  // web-locks#lock-manager-held-lock-set: a set, kept in insertion order.
  std::vector<Lock*> held_lock_set;
  // web-locks#lock-manager-lock-request-queue-map: an ordered map (insertion order of names).
  // Queues are boxed so that a queue returned earlier stays valid when names are added.
  std::vector<std::pair<std::string, std::unique_ptr<LockRequestQueue>>> lock_request_queue_map;
};

// web-locks#api-lock: the script-visible Lock object, associated with a lock.
struct LockObject {
  Lock* lock = nullptr;
  std::string name() const;  // web-locks#dom-lock-name
  LockMode mode() const;     // web-locks#dom-lock-mode
};

}  // namespace lockstep::spec
