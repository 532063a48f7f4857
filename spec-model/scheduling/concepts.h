// Prioritized Task Scheduling concepts (https://wicg.github.io/scheduling-apis/): scheduler tasks
// and their queues, scheduling and continuation states, task handles, TaskSignal, TaskController,
// and the Scheduler object with its two queue maps.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../platform/abort.h"
#include "../platform/world.h"

namespace lockstep::spec {

// scheduling#scheduler-task: a task with an enqueue order.
struct SchedulerTask {
  std::uint64_t enqueue_order = 0;
  Steps steps;
  std::string source;
  Environment* document = nullptr;  // the window's Document (its environment); null for workers
  Environment* environment = nullptr;
  std::uint64_t seq = 0;  // world-wide age (I-17), not in the spec
  // Bookkeeping, not in the spec: the signal whose abort takes this task out (for the property
  // tests' check that no aborted task runs).
  const AbortSignal* abort_signal = nullptr;
};

// scheduling#scheduler-task-queue
struct SchedulerTaskQueue {
  TaskPriority priority = TaskPriority::UserVisible;
  bool is_continuation = false;
  std::vector<SchedulerTask*> tasks;  // a set, in insertion order
  Steps removal_steps;
};

class TaskSignal;

// scheduling#scheduling-state
struct SchedulingState {
  AbortSignal* abort_source = nullptr;
  TaskSignal* priority_source = nullptr;
};

// scheduling#task-handle
struct TaskHandle {
  SchedulerTask* task = nullptr;
  SchedulerTaskQueue* queue = nullptr;
  Steps abort_steps;
  Steps task_complete_steps;
  AbortSignal::AlgorithmHandle abort_algorithm = 0;  // bookkeeping: how abort_steps were added
  const AbortSignal* signal = nullptr;               // bookkeeping: the signal given at creation
};

// scheduling#tasksignal
class TaskSignal : public AbortSignal {
 public:
  TaskPriority priority = TaskPriority::UserVisible;
  bool priority_changing = false;
  std::vector<Steps> priority_change_algorithms;
  TaskSignal* source_signal = nullptr;  // a weak reference in the spec; the world keeps all alive
  std::vector<TaskSignal*> task_dependent_signals;  // TaskSignal's own "dependent signals"
  bool task_dependent = false;                      // TaskSignal's own "dependent"
  // Listeners of the prioritychange event, given the event's previousPriority.
  std::vector<std::function<void(TaskPriority previous)>> prioritychange_listeners;
};

// scheduling#taskcontroller: an AbortController whose signal is a TaskSignal.
struct TaskController : AbortController {
  TaskSignal* task_signal() const { return static_cast<TaskSignal*>(signal); }
};

// scheduling#scheduler
struct Scheduler {
  Environment* environment = nullptr;  // its relevant global's environment
  // Maps as insertion-ordered lists of (key, queue).
  std::vector<std::pair<std::pair<TaskPriority, bool>, SchedulerTaskQueue*>>
      static_priority_task_queue_map;
  std::vector<std::pair<std::pair<TaskSignal*, bool>, SchedulerTaskQueue*>>
      dynamic_priority_task_queue_map;
};

// The options of postTask (scheduling#dictdef-schedulerposttaskoptions).
struct SchedulerPostTaskOptions {
  AbortSignal* signal = nullptr;
  std::optional<TaskPriority> priority;
  std::uint64_t delay = 0;
};

// TaskSignalAnyInit's priority: a TaskPriority or a TaskSignal.
struct TaskSignalAnyInit {
  std::optional<TaskPriority> priority;
  TaskSignal* signal = nullptr;
};

}  // namespace lockstep::spec
