// Invariants of the spec model's Web Locks state, checked after every unit the world runs
// (World::set_unit_observer): what must hold whatever the schedule.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "web-locks/web_locks.h"

namespace lockstep {

class LockInvariants {
 public:
  explicit LockInvariants(const spec::WebLocks& locks) : locks_(locks) {}

  // After a unit: web-locks#grantable as a state invariant (per manager and name, one exclusive
  // lock alone or shared locks only), and grants in queue order: a request that was waiting is
  // granted only once every request ahead of it in its queue has left the queue (granted or
  // removed). Only a steal overtakes, and a steal's request never waits in the queue. Returns the
  // first violation, or an empty string.
  std::string after_unit();

  // After the run: no terminated agent and no unloaded document holds a lock or has a request
  // queued (web-locks#terminate-remaining-locks-and-requests, #unloading-document-cleanup-steps).
  std::string at_end() const;

 private:
  const spec::WebLocks& locks_;
  std::set<const spec::Lock*> held_before_;
  // The queues as they were after the previous unit: manager -> name -> requests, front first.
  std::map<const spec::LockManager*, std::map<std::string, std::vector<const spec::LockRequest*>>>
      queues_before_;
};

}  // namespace lockstep
