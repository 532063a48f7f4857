// The lock manager of one storage bottle (one partition and origin), built for cost per operation.
// It is the single-threaded core of impl/: the embedder API (lock_service.h) serializes calls to it
// the way the spec's lock task queue does, and the impl trace engine drives it from its own lock
// task queue. It knows nothing of promises, tasks or script; grants and steals are reported to an
// Observer synchronously, in the order the spec performs them.
//
// Spec: https://w3c.github.io/web-locks/#lock-manager. The spec keeps one held set and one ordered
// map of name -> queue per manager and scans them; this keeps per-name counters and intrusive lists
// so that every operation costs O(1) (plus what it grants), see lock_manager.cpp for the argument.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::impl {

enum class Mode : std::uint8_t { Exclusive, Shared };

// A request or the lock it became: one record, addressed by a ticket that stays safe to use after
// the record is gone (the generation tells a stale ticket apart; using one is a no-op).
struct Ticket {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;  // 0: no record
  explicit operator bool() const { return generation != 0; }
  friend bool operator==(Ticket a, Ticket b) = default;
};

using AgentId = std::uint32_t;

struct RequestFlags {
  bool if_available = false;
  bool steal = false;
};

// What a request came to when it was made.
enum class RequestOutcome : std::uint8_t {
  Queued,        // waits in its name's queue; Observer::granted reports the grant later
  Granted,       // granted at once (Observer::granted has been called already)
  NotAvailable,  // ifAvailable and not grantable: no record was made, the ticket is empty
};

struct RequestResult {
  Ticket ticket;
  RequestOutcome outcome = RequestOutcome::Queued;
};

// One entry of a snapshot (web-locks#algorithm-snapshot-state), in the spec's orders.
struct SnapshotEntry {
  std::string_view name;
  Mode mode = Mode::Exclusive;
  std::string_view client_id;
  void* user = nullptr;
};

struct Snapshot {
  std::vector<SnapshotEntry> held;
  std::vector<SnapshotEntry> pending;
};

class LockManager {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    // The request `ticket` now holds its lock (web-locks#algorithm-process-request step 2.13).
    virtual void granted(Ticket ticket, void* user) = 0;
    // A steal took the held lock `ticket` out of the held set (request-lock step 3.4.1.1).
    virtual void stolen(Ticket ticket, void* user) = 0;
  };

  explicit LockManager(Observer& observer);
  ~LockManager();
  LockManager(const LockManager&) = delete;
  LockManager& operator=(const LockManager&) = delete;

  // An agent (its client id is what snapshots report).
  AgentId add_agent(std::string client_id);

  // web-locks#algorithm-request-lock, the part on the lock task queue (steps 3.1-3.6).
  RequestResult request(AgentId agent, std::string_view name, Mode mode, RequestFlags flags,
                        void* user);
  // web-locks#algorithm-release-lock. A stale ticket is a no-op (see lock_manager.cpp).
  void release(Ticket lock);
  // web-locks#algorithm-abort-request. A granted or stale ticket is a no-op.
  void abort(Ticket request);
  // web-locks#terminate-remaining-locks-and-requests for one agent of this manager.
  void terminate(AgentId agent);
  // web-locks#algorithm-snapshot-state. Views stay valid until the next call that changes state.
  Snapshot snapshot() const;

  // For tests and the embedder: is the ticket a held (not stolen) lock, a queued request?
  bool holds(Ticket ticket) const;
  bool queued(Ticket ticket) const;
  std::size_t held_count() const;
  std::size_t pending_count() const;
  std::size_t name_count() const;
  void* user(Ticket ticket) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lockstep::impl
