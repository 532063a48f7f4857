// navigator.locks on the impl runtime: the API's checks, promises and tasks around the LockManager
// core (lockstep/impl/lock_manager.h), which does all the queueing and granting.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "host.h"
#include "lockstep/impl/lock_manager.h"
#include "lockstep/trace.h"
#include "stable_pool.h"

namespace lockstep::impl {

struct LockRequestOptions {
  Mode mode = Mode::Exclusive;
  bool if_available = false;
  bool steal = false;
  Signal* signal = nullptr;
};

class WebLocksBinding : public LockManager::Observer {
 public:
  // `released_promise`: when a released promise resolves (docs/interpretations.md I-24).
  WebLocksBinding(Runtime& rt, Host& host,
                  ReleasedPromiseReading released_promise = ReleasedPromiseReading::Steps)
      : rt_(rt), host_(host), released_promise_reading_(released_promise) {}

  // LockManager.request(); options absent is the two-argument overload.
  Promise* request(Env* env, const std::string& name, const LockRequestOptions& options,
                   const CallbackRef& callback);
  Promise* query(Env* env);
  // The agent ends or its document unloads: its locks and requests go (on the lock task queue).
  void terminate_remaining_locks_and_requests(Env* env);

  void granted(Ticket ticket, void* user) override;
  void stolen(Ticket ticket, void* user) override;

 private:
  struct Request {
    Env* env = nullptr;
    LockManager* manager = nullptr;
    std::string name;
    Mode mode = Mode::Exclusive;
    CallbackRef callback;
    Promise* promise = nullptr;  // the request's promise, later the lock's released promise
    Signal* signal = nullptr;
    int abort_handle = 0;
    Ticket ticket;
    Promise* waiting = nullptr;
  };
  LockManager* manager_for(Env* env);  // null for an opaque origin
  void release_when_settled(Request* r);

  Runtime& rt_;
  Host& host_;
  ReleasedPromiseReading released_promise_reading_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<LockManager>> managers_;
  StablePool<Request> requests_;
};

}  // namespace lockstep::impl
