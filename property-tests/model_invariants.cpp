#include "model_invariants.h"

#include <algorithm>

namespace lockstep {

namespace {

// A manager state written the same way whether read from the model or from a query result: held
// entries sorted (the spec leaves their order to the held set), then per name (sorted) the
// pending entries in queue order.
std::string canonical(std::vector<std::string> held,
                      std::map<std::string, std::vector<std::string>> pending) {
  std::sort(held.begin(), held.end());
  std::string out = "held:";
  for (const std::string& h : held) out += h + ";";
  out += " pending:";
  for (const auto& [name, entries] : pending) {
    if (entries.empty()) continue;
    out += name + "=[";
    for (const std::string& e : entries) out += e + ";";
    out += "]";
  }
  return out;
}

std::string entry(const std::string& name, bool exclusive, const std::string& client) {
  return name + "/" + (exclusive ? "exclusive" : "shared") + "/" + client;
}

}  // namespace

void LockInvariants::remember_states() {
  for (const auto& [key, manager] : locks_.lock_managers()) {
    std::vector<std::string> held;
    for (const spec::Lock* lock : manager->held_lock_set)
      held.push_back(entry(lock->name, lock->mode == LockMode::Exclusive, lock->client_id));
    std::map<std::string, std::vector<std::string>> pending;
    for (const auto& [name, queue] : manager->lock_request_queue_map)
      for (const spec::LockRequest* r : *queue)
        pending[name].push_back(entry(name, r->mode == LockMode::Exclusive, r->client_id));
    states_seen_.insert(canonical(std::move(held), std::move(pending)));
  }
}

bool LockInvariants::is_a_state_seen(const Value& snapshot) const {
  const auto read = [](const Value& info) {
    return entry(info.member("name")->as_string(), info.member("mode")->as_string() == "exclusive",
                 info.member("clientId")->as_string());
  };
  std::vector<std::string> held;
  for (const Value& info : snapshot.member("held")->items()) held.push_back(read(info));
  std::map<std::string, std::vector<std::string>> pending;
  for (const Value& info : snapshot.member("pending")->items())
    pending[info.member("name")->as_string()].push_back(read(info));
  return states_seen_.count(canonical(std::move(held), std::move(pending))) > 0;
}

namespace {

// web-locks#grantable for the request at the front of its queue, written out again: nothing of
// its name held for an exclusive request, nothing exclusive of its name for a shared one.
bool front_is_grantable(const spec::LockManager& manager, const spec::LockRequest& front) {
  return std::none_of(
      manager.held_lock_set.begin(), manager.held_lock_set.end(), [&](const spec::Lock* l) {
        return l->name == front.name &&
               (front.mode == LockMode::Exclusive || l->mode == LockMode::Exclusive);
      });
}

}  // namespace

std::string LockInvariants::after_unit(const std::string& unit) {
  if (unit.starts_with("locks:")) {
    const std::string partition = unit.substr(6);
    for (const auto& [key, manager] : locks_.lock_managers()) {
      if (manager->partition != partition) continue;
      for (const auto& [name, queue] : manager->lock_request_queue_map)
        if (!queue->empty() && front_is_grantable(*manager, *queue->front()))
          return "after " + unit + ", the request for \"" + name + "\" of " +
                 queue->front()->client_id + " at the front of its queue is grantable and waits";
    }
  }
  remember_states();
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

namespace {

// scheduling#scheduler-task-queue-effective-priority, written out again from the spec's table.
int effective_priority(const spec::SchedulerTaskQueue& queue) {
  const int base = queue.priority == TaskPriority::UserBlocking  ? 4
                   : queue.priority == TaskPriority::UserVisible ? 2
                                                                 : 0;
  return base + (queue.is_continuation ? 1 : 0);
}

// html#concept-task-runnable for a scheduler task (I-20).
bool runnable(const spec::SchedulerTask& task) {
  if (task.environment->terminated) return false;
  return !task.document || task.document->document_fully_active;
}

}  // namespace

std::string SchedulerInvariants::before_unit(const std::string& name, std::uint64_t seq) const {
  const bool scheduler = name.ends_with("/scheduler"), idle = name.ends_with("/idle");
  if (!scheduler && !idle) return {};
  const std::string loop = name.substr(5, name.rfind('/') - 5);  // "loop:<L>/..."
  struct First {
    const spec::SchedulerTask* task;
    int priority;
  };
  std::vector<First> firsts;  // the first runnable task of every queue on this loop
  const auto visit = [&](const spec::SchedulerTaskQueue& queue) {
    for (const spec::SchedulerTask* task : queue.tasks)
      if (runnable(*task)) {
        firsts.push_back(First{task, effective_priority(queue)});
        return;
      }
  };
  for (const auto& [environment, s] : scheduling_.schedulers()) {
    if (environment->event_loop->name != loop) continue;
    for (const auto& [key, queue] : s->static_priority_task_queue_map) visit(*queue);
    for (const auto& [key, queue] : s->dynamic_priority_task_queue_map) visit(*queue);
  }
  if (idle)
    return firsts.empty() ? std::string()
                          : "an idle callback ran on " + loop + " while a scheduler task waited";
  const auto chosen = std::find_if(firsts.begin(), firsts.end(),
                                   [&](const First& f) { return f.task->seq == seq; });
  if (chosen == firsts.end())
    return "the scheduler task that ran on " + loop + " was no queue's first runnable task";
  // scheduling#create-a-task-handle 4.2.1: an aborted signal took its task out of its queue.
  if (chosen->task->abort_signal && chosen->task->abort_signal->aborted())
    return "a task ran on " + loop + " although its signal was aborted";
  for (const First& f : firsts) {
    if (f.priority > chosen->priority)
      return "a task of effective priority " + std::to_string(chosen->priority) + " ran on " +
             loop + " while one of " + std::to_string(f.priority) + " was runnable";
    if (f.priority == chosen->priority && f.task->enqueue_order < chosen->task->enqueue_order)
      return "a task ran on " + loop + " before an older one of the same effective priority";
  }
  return {};
}

}  // namespace lockstep
