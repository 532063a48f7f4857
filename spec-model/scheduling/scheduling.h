// The algorithms of Prioritized Task Scheduling, one member function per algorithm, named after the
// spec's term (https://wicg.github.io/scheduling-apis/), each step marked with SPEC_STEP.
// It also serves the event loop processing model's patch to the World (SchedulerTaskSource).
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "../platform/promise.h"
#include "../platform/webidl.h"
#include "concepts.h"
#include "lockstep/trace.h"

namespace lockstep::spec {

class Scheduling : public SchedulerTaskSource {
 public:
  // `stale_removal`: the removal steps literally, or with the fix of their defect (I-25).
  Scheduling(World& world, ScriptHost& host,
             StaleRemovalReading stale_removal = StaleRemovalReading::Literal);

  // scheduling#dom-windoworworkerglobalscope-scheduler: each global's Scheduler.
  Scheduler* scheduler(Environment* environment);

  // --- API ---
  Promise* post_task(Scheduler* scheduler, const CallbackFunction& callback,
                     const SchedulerPostTaskOptions& options);
  Promise* yield(Scheduler* scheduler);
  TaskController* new_task_controller(Environment* environment, TaskPriority priority);
  // Returns the exception thrown, if any.
  std::optional<Value> set_priority(TaskController* controller, TaskPriority priority);
  TaskSignal* any(Environment* environment, const std::vector<AbortSignal*>& signals,
                  const TaskSignalAnyInit& init);
  void request_idle_callback(Environment* environment, const CallbackFunction& callback);

  // --- Algorithms ---
  SchedulerTaskQueue* create_a_scheduler_task_queue(TaskPriority priority, bool is_continuation,
                                                    Steps removal_steps);
  TaskHandle* create_a_task_handle(Promise* result, AbortSignal* signal);
  SchedulerTask* first_runnable_task(const SchedulerTaskQueue& queue) const;
  static int effective_priority(const SchedulerTaskQueue& queue);
  SchedulerTask* queue_a_scheduler_task(SchedulerTaskQueue* queue, Steps steps,
                                        std::uint64_t enqueue_order, const std::string& source,
                                        Environment* document, Environment* environment);
  void remove(SchedulerTask* task, SchedulerTaskQueue* queue);
  static bool empty(const SchedulerTaskQueue& queue) {
    SPEC_STEP("scheduler-task-queue-empty 1");  // no tasks left
    return queue.tasks.empty();
  }
  static bool older_than(const SchedulerTask& t1, const SchedulerTask& t2) {
    SPEC_STEP("scheduler-task-older-than 1");  // by enqueue order
    return t1.enqueue_order < t2.enqueue_order;
  }
  void set_the_current_scheduling_state(Scheduler* scheduler,
                                        std::shared_ptr<SchedulingState> state);
  std::shared_ptr<SchedulingState> get_the_current_scheduling_state(Scheduler* scheduler);
  Promise* schedule_a_posttask_task(Scheduler* scheduler, const CallbackFunction& callback,
                                    const SchedulerPostTaskOptions& options);
  Promise* schedule_a_yield_continuation(Scheduler* scheduler);
  SchedulerTaskQueue* select_the_scheduler_task_queue(Scheduler* scheduler, TaskSignal* signal,
                                                      bool is_continuation);
  void schedule_a_task_to_invoke_an_algorithm(Scheduler* scheduler, TaskHandle* handle,
                                              Steps steps);
  bool has_a_runnable_task(Scheduler* scheduler) const;
  std::vector<SchedulerTaskQueue*> get_the_runnable_task_queues(Scheduler* scheduler) const;
  // Every Scheduler object made so far, by its global's environment (for invariant checks).
  const std::map<Environment*, std::unique_ptr<Scheduler>>& schedulers() const {
    return schedulers_;
  }
  SchedulerTaskQueue* select_the_next_scheduler_task_queue_from_all_schedulers(
      EventLoop& event_loop) const;
  static bool has_fixed_priority(const TaskSignal& signal) {
    return signal.task_dependent && !signal.source_signal;
  }
  void add_a_priority_change_algorithm(TaskSignal* signal, Steps algorithm);
  TaskSignal* create_a_dependent_task_signal(const std::vector<AbortSignal*>& signals,
                                             const TaskSignalAnyInit& init, Environment* realm);
  // Throws nothing; returns the exception the spec throws, if any.
  std::optional<Value> signal_priority_change(TaskSignal* signal, TaskPriority priority);
  TaskSignal* create_a_fixed_priority_unabortable_task_signal(TaskPriority priority,
                                                              Environment* realm);

  // --- SchedulerTaskSource (the event loop patch) ---
  std::optional<Candidate> next_scheduler_task(EventLoop& loop) override;
  void run_next_scheduler_task(EventLoop& loop) override;
  std::optional<std::uint64_t> next_idle_callback(EventLoop& loop) override;
  void run_next_idle_callback(EventLoop& loop) override;

 private:
  bool still_removable(const SchedulerTaskQueue* held, const SchedulerTaskQueue* own) const;
  bool runnable(const SchedulerTask& task) const;
  World& world_;
  ScriptHost& host_;
  StaleRemovalReading stale_removal_;
  std::map<Environment*, std::unique_ptr<Scheduler>> schedulers_;
  struct IdleRequest {
    std::uint64_t seq;
    Environment* window;
    CallbackFunction callback;
  };
  std::vector<IdleRequest> idle_requests_;
};

}  // namespace lockstep::spec
