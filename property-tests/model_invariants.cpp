#include "model_invariants.h"

#include <algorithm>

namespace lockstep {

std::string LockInvariants::after_unit() {
  std::set<const spec::Lock*> held_now;
  std::map<const spec::LockManager*, std::map<std::string, std::vector<const spec::LockRequest*>>>
      queues_now;
  for (const auto& [key, manager] : locks_.lock_managers()) {
    std::map<std::string, std::pair<int, int>> per_name;  // exclusive, shared
    for (const spec::Lock* lock : manager->held_lock_set) {
      held_now.insert(lock);
      auto& [exclusive, shared] = per_name[lock->name];
      (lock->mode == LockMode::Exclusive ? exclusive : shared)++;
    }
    for (const auto& [name, counts] : per_name)
      if (counts.first > 1 || (counts.first == 1 && counts.second > 0))
        return "lock \"" + name + "\" is held by " + std::to_string(counts.first) +
               " exclusive and " + std::to_string(counts.second) + " shared locks";
    for (const auto& [name, queue] : manager->lock_request_queue_map)
      queues_now[manager.get()][name].assign(queue->begin(), queue->end());
  }
  for (const auto& [key, manager] : locks_.lock_managers())
    for (const spec::Lock* lock : manager->held_lock_set) {
      if (held_before_.count(lock)) continue;
      // A new lock: where did its request wait? (a lock's released promise is its request's)
      const auto& before = queues_before_[manager.get()][lock->name];
      const auto at = std::find_if(before.begin(), before.end(), [&](const spec::LockRequest* r) {
        return r->promise == lock->released_promise;
      });
      const auto& now = queues_now[manager.get()][lock->name];
      for (auto ahead = before.begin(); ahead != at && at != before.end(); ++ahead)
        if (std::find(now.begin(), now.end(), *ahead) != now.end())
          return "a request for \"" + lock->name + "\" of " + lock->client_id +
                 " was granted while an earlier one of " + (*ahead)->client_id + " still waits";
    }
  held_before_ = std::move(held_now);
  queues_before_ = std::move(queues_now);
  return {};
}

std::string LockInvariants::at_end() const {
  for (const auto& [key, manager] : locks_.lock_managers()) {
    const auto gone = [](const spec::Environment* e) {
      return e->terminated || !e->document_fully_active;
    };
    for (const spec::Lock* lock : manager->held_lock_set)
      if (gone(lock->agent))
        return "\"" + lock->name + "\" is still held by " + lock->client_id + ", which is gone";
    for (const auto& [name, queue] : manager->lock_request_queue_map)
      for (const spec::LockRequest* r : *queue)
        if (gone(r->agent))
          return "a request for \"" + name + "\" of " + r->client_id + ", which is gone, waits";
  }
  return {};
}

}  // namespace lockstep
