// Scheduler, TaskController, TaskSignal and requestIdleCallback on the impl runtime, around the
// TaskScheduler core (lockstep/impl/task_scheduler.h), one per event loop.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "host.h"

namespace lockstep::impl {

class SchedulingBinding : public Runtime::SchedulerHooks {
 public:
  SchedulingBinding(Runtime& rt, Host& host);

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
  struct Scheduler {
    Env* env = nullptr;
    QueueId static_queues[3][2] = {};
    bool has_static[3][2] = {};
    std::map<std::pair<Signal*, bool>, QueueId> dynamic_queues;
    std::vector<QueueId> queues;
  };
  struct Task {
    std::uint64_t seq = 0;
    Job steps;
  };
  struct Handle {
    Signal* signal = nullptr;
    int abort_handle = 0;
    TaskTicket task;
    TaskScheduler* scheduler = nullptr;
  };

  Scheduler* scheduler(Env* env);
  QueueId select_the_scheduler_task_queue(Scheduler* s, const SchedulingState& state,
                                          bool is_continuation);
  void schedule_a_task(Scheduler* s, Handle* handle, QueueId queue, Job steps);
  Handle* create_a_task_handle(Promise* result, Signal* signal);

  Runtime& rt_;
  Host& host_;
  std::deque<Scheduler> schedulers_;
  std::deque<Task> tasks_;
  std::deque<Handle> handles_;
  std::deque<SchedulingState> states_;
  struct IdleRequest {
    std::uint64_t seq;
    CallbackRef callback;
  };
  std::deque<IdleRequest> idle_requests_;
};

}  // namespace lockstep::impl
