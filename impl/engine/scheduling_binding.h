// Scheduler, TaskController, TaskSignal and requestIdleCallback on the impl runtime, around the
// TaskScheduler core (lockstep/impl/task_scheduler.h), one per event loop.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "host.h"
#include "lockstep/trace.h"
#include "stable_pool.h"

namespace lockstep::impl {

class SchedulingBinding : public Runtime::SchedulerHooks {
 public:
  // `stale_removal`: the removal steps literally, or with the fix of their defect (I-25).
  SchedulingBinding(Runtime& rt, Host& host,
                    StaleRemovalReading stale_removal = StaleRemovalReading::Literal);

  Promise* post_task(Env* env, const CallbackRef& callback, std::optional<Priority> priority,
                     Signal* signal, std::uint64_t delay);
  Promise* yield(Env* env);
  Signal* new_task_controller(Env* env, Priority priority);
  // The exception setPriority throws, if any.
  std::optional<Value> set_priority(Signal* signal, Priority priority);
  Signal* any(Env* env, const std::vector<Signal*>& signals, std::optional<Priority> priority,
              Signal* priority_signal);
  void request_idle_callback(Env* env, const CallbackRef& callback);
  // The global can run no more tasks (its agent ended or its document unloaded).
  void deactivate(Env* env);

  std::uint64_t task_seq(void* cookie) override;
  void run_task(Loop& loop, void* cookie) override;
  std::optional<std::uint64_t> next_idle(Loop& loop) override;
  void run_idle(Loop& loop) override;

 private:
  // scheduling#scheduling-state. A null priority_signal stands for a fixed-priority unabortable
  // TaskSignal of `fixed` priority: such a signal is never seen by script, so it is not made.
  struct SchedulingState {
    Signal* abort_source = nullptr;
    Signal* priority_signal = nullptr;
    Priority fixed = Priority::UserVisible;
  };
  // A key of a scheduler task queue map ((priority or signal, continuation)) and the one core
  // queue that serves it. The spec makes a new queue whenever the key has none and removes the
  // key's entry when a queue empties; `current` is that entry. Reusing the core queue is the same
  // as making a new one: a queue leaves the map only empty, or orphaned (below) and then cleared.
  struct LogicalQueue;
  struct Slot {
    TaskScheduler* core = nullptr;
    QueueId physical = 0;
    bool made = false;
    LogicalQueue* current = nullptr;  // null: the map has no entry for this key
  };
  // One queue object of the spec: the tasks it holds. An orphaned queue (removed from the map by a
  // stale removal, docs/spec-issues.md, scheduling 1) keeps its tasks, which never run.
  struct LogicalQueue {
    Slot* slot = nullptr;
    int tasks = 0;
  };
  struct Scheduler {
    Env* env = nullptr;
    Slot static_slots[3][2];
    std::map<std::pair<Signal*, bool>, Slot> dynamic_slots;
    std::vector<QueueId> queues;
  };
  struct Handle;
  struct Task {
    std::uint64_t seq = 0;
    Handle* handle = nullptr;
    Job steps;
  };
  struct Handle {
    Signal* signal = nullptr;
    int abort_handle = 0;
    TaskTicket task;
    TaskScheduler* scheduler = nullptr;
    LogicalQueue* queue = nullptr;
    bool in_queue = false;  // its task is (logically) still in `queue`
  };

  Scheduler* scheduler(Env* env);
  LogicalQueue* select_the_scheduler_task_queue(Scheduler* s, const SchedulingState& state,
                                                bool is_continuation);
  void schedule_a_task(Scheduler* s, Handle* handle, LogicalQueue* queue, Job steps);
  Handle* create_a_task_handle(Promise* result, Signal* signal);
  void take_out(Handle* handle);
  void removal_steps(LogicalQueue* queue);

  Runtime& rt_;
  Host& host_;
  StaleRemovalReading stale_removal_;
  StablePool<Scheduler> schedulers_;
  StablePool<Task> tasks_;
  StablePool<Handle> handles_;
  StablePool<SchedulingState> states_;
  StablePool<LogicalQueue> logical_queues_;
  struct IdleRequest {
    std::uint64_t seq;
    CallbackRef callback;
  };
  std::deque<IdleRequest> idle_requests_;
};

}  // namespace lockstep::impl
