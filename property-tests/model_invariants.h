// Invariants of the spec model's Web Locks state, checked after every unit the world runs
// (World::set_unit_observer): what must hold whatever the schedule.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lockstep/value.h"
#include "scheduling/scheduling.h"
#include "web-locks/web_locks.h"

namespace lockstep {

class LockInvariants {
 public:
  explicit LockInvariants(const spec::WebLocks& locks) : locks_(locks) {}

  // After the unit named `unit`: web-locks#grantable as a state invariant (per manager and name,
  // one exclusive lock alone or shared locks only), and grants in queue order: a request that was
  // waiting is granted only once every request ahead of it in its queue has left the queue
  // (granted or removed). Only a steal overtakes, and a steal's request never waits in the queue.
  // And after a unit of a lock task queue ("locks:<partition>"), no queue of that partition's
  // managers has a grantable request at its front: every change to a name's held locks or queue
  // there is followed by processing that queue (web-locks#algorithm-process-request 2), which
  // grants from the front until the front cannot be granted. Returns the first violation, or an
  // empty string.
  std::string after_unit(const std::string& unit);

  // After the run: no terminated agent and no unloaded document holds a lock or has a request
  // queued (web-locks#terminate-remaining-locks-and-requests, #unloading-document-cleanup-steps).
  std::string at_end() const;

  // A query() result (the value of its `settled` event) is a state some lock manager was in after
  // some unit (web-locks#algorithm-snapshot-state reads the state within one lock task queue step
  // and changes nothing): held locks as a multiset, pending requests in queue order per name.
  bool is_a_state_seen(const Value& snapshot) const;

 private:
  void remember_states();

  const spec::WebLocks& locks_;
  std::set<std::string> states_seen_;  // canonical forms (see model_invariants.cpp)
  std::set<const spec::Lock*> held_before_;
  // The queues as they were after the previous unit: manager -> name -> requests, front first.
  std::map<const spec::LockManager*, std::map<std::string, std::vector<const spec::LockRequest*>>>
      queues_before_;
};

// Invariants of the event loops' choice among scheduler tasks, checked just before every unit
// (World::set_before_unit_observer) against the model's queues, read independently of the
// model's selection algorithm:
// - the scheduler task that runs is the first runnable task of some queue of a Scheduler on that
//   event loop, of the highest effective priority among all of them (so a continuation runs before
//   the tasks of its priority queued before it, and no task runs while a more urgent one waits),
//   and the oldest by enqueue order among those of that priority
//   (scheduling#select-the-next-scheduler-task-queue-from-all-schedulers);
// - no task whose signal was aborted runs (scheduling#create-a-task-handle 4.2.1);
// - an idle period starts only on an event loop with no runnable scheduler task (I-19).
class SchedulerInvariants {
 public:
  explicit SchedulerInvariants(const spec::Scheduling& scheduling) : scheduling_(scheduling) {}
  std::string before_unit(const std::string& name, std::uint64_t seq) const;

 private:
  const spec::Scheduling& scheduling_;
};

}  // namespace lockstep
