// https://wicg.github.io/scheduling-apis/#sec-scheduling-tasks-processing-model and
// #sec-controlling-tasks, step by step.
#include <algorithm>

#include "../platform/errors.h"
#include "scheduling.h"

namespace lockstep::spec {

Scheduling::Scheduling(World& world, ScriptHost& host, StaleRemovalReading stale_removal)
    : world_(world), host_(host), stale_removal_(stale_removal) {
  world_.set_scheduler_task_source(this);
}

Scheduler* Scheduling::scheduler(Environment* environment) {
  SPEC_STEP("dom-windoworworkerglobalscope-scheduler 1");  // each global has its own Scheduler
  std::unique_ptr<Scheduler>& s = schedulers_[environment];
  if (!s) {
    s = std::make_unique<Scheduler>();
    s->environment = environment;
  }
  return s.get();
}

// https://wicg.github.io/scheduling-apis/#create-a-scheduler-task-queue
SchedulerTaskQueue* Scheduling::create_a_scheduler_task_queue(TaskPriority priority,
                                                              bool is_continuation,
                                                              Steps removal_steps) {
  SPEC_STEP("create-a-scheduler-task-queue 1");
  auto* queue = world_.make<SchedulerTaskQueue>();
  SPEC_STEP("create-a-scheduler-task-queue 2");
  queue->priority = priority;
  SPEC_STEP("create-a-scheduler-task-queue 3");
  queue->is_continuation = is_continuation;
  SPEC_STEP("create-a-scheduler-task-queue 4");
  queue->tasks.clear();
  SPEC_STEP("create-a-scheduler-task-queue 5");
  queue->removal_steps = std::move(removal_steps);
  SPEC_STEP("create-a-scheduler-task-queue 6");
  return queue;
}

// https://wicg.github.io/scheduling-apis/#create-a-task-handle
TaskHandle* Scheduling::create_a_task_handle(Promise* result, AbortSignal* signal) {
  SPEC_STEP("create-a-task-handle 1");
  auto* handle = world_.make<TaskHandle>();
  SPEC_STEP("create-a-task-handle 2");
  handle->task = nullptr;
  SPEC_STEP("create-a-task-handle 3");
  handle->queue = nullptr;
  handle->signal = signal;  // bookkeeping (concepts.h)
  // 4. Aborting rejects the result and takes a queued task out.
  SPEC_STEP("create-a-task-handle 4");
  handle->abort_steps = [this, handle, result, signal] {
    SPEC_STEP("create-a-task-handle 4.1");
    result->own.reject(world_, signal->abort_reason);
    SPEC_STEP("create-a-task-handle 4.2");
    if (handle->task) {
      SPEC_STEP("create-a-task-handle 4.2.1");
      remove(handle->task, handle->queue);
      SPEC_STEP("create-a-task-handle 4.2.2");
      if (empty(*handle->queue)) handle->queue->removal_steps();
    }
  };
  // 5. When the task has run: stop listening for abort, drop an emptied queue.
  SPEC_STEP("create-a-task-handle 5");
  handle->task_complete_steps = [handle, signal] {
    SPEC_STEP("create-a-task-handle 5.1");
    if (signal) signal->remove(handle->abort_algorithm);
    SPEC_STEP("create-a-task-handle 5.2");
    if (empty(*handle->queue)) handle->queue->removal_steps();
  };
  SPEC_STEP("create-a-task-handle 6");
  return handle;
}

bool Scheduling::runnable(const SchedulerTask& task) const {
  // html#concept-task-runnable: its document is null or fully active (I-20).
  if (task.environment->terminated) return false;
  return !task.document || task.document->document_fully_active;
}

// https://wicg.github.io/scheduling-apis/#scheduler-task-queue-first-runnable-task
SchedulerTask* Scheduling::first_runnable_task(const SchedulerTaskQueue& queue) const {
  SPEC_STEP("scheduler-task-queue-first-runnable-task 1");
  for (SchedulerTask* task : queue.tasks)
    if (runnable(*task)) return task;
  return nullptr;
}

// https://wicg.github.io/scheduling-apis/#scheduler-task-queue-effective-priority: the table.
int Scheduling::effective_priority(const SchedulerTaskQueue& queue) {
  SPEC_STEP("scheduler-task-queue-effective-priority 1");
  const int base = queue.priority == TaskPriority::Background    ? 0
                   : queue.priority == TaskPriority::UserVisible ? 2
                                                                 : 4;
  return base + (queue.is_continuation ? 1 : 0);
}

// https://wicg.github.io/scheduling-apis/#queue-a-scheduler-task
SchedulerTask* Scheduling::queue_a_scheduler_task(SchedulerTaskQueue* queue, Steps steps,
                                                  std::uint64_t enqueue_order,
                                                  const std::string& source, Environment* document,
                                                  Environment* environment) {
  SPEC_STEP("queue-a-scheduler-task 1");
  auto* task = world_.make<SchedulerTask>();
  task->environment = environment;
  task->seq = world_.next_sequence_number();
  SPEC_STEP("queue-a-scheduler-task 2");
  task->enqueue_order = enqueue_order;
  SPEC_STEP("queue-a-scheduler-task 3");
  task->steps = std::move(steps);
  SPEC_STEP("queue-a-scheduler-task 4");
  task->source = source;
  SPEC_STEP("queue-a-scheduler-task 5");
  task->document = document;
  // 6. Its script evaluation environment settings object set starts empty.
  SPEC_STEP("queue-a-scheduler-task 6");
  SPEC_STEP("queue-a-scheduler-task 7");
  queue->tasks.push_back(task);
  SPEC_STEP("queue-a-scheduler-task 8");
  return task;
}

// https://wicg.github.io/scheduling-apis/#scheduler-task-queue-remove
void Scheduling::remove(SchedulerTask* task, SchedulerTaskQueue* queue) {
  SPEC_STEP("scheduler-task-queue-remove 1");
  queue->tasks.erase(std::remove(queue->tasks.begin(), queue->tasks.end(), task),
                     queue->tasks.end());
}

// https://wicg.github.io/scheduling-apis/#set-the-current-scheduling-state
void Scheduling::set_the_current_scheduling_state(Scheduler* scheduler,
                                                  std::shared_ptr<SchedulingState> state) {
  SPEC_STEP("set-the-current-scheduling-state 1");
  EventLoop& event_loop = *scheduler->environment->event_loop;
  SPEC_STEP("set-the-current-scheduling-state 2");
  set_the_continuation_state_value(scheduler, std::move(state),
                                   event_loop);  // I-21: the key is the scheduler
}

// https://wicg.github.io/scheduling-apis/#get-the-current-scheduling-state
std::shared_ptr<SchedulingState> Scheduling::get_the_current_scheduling_state(
    Scheduler* scheduler) {
  SPEC_STEP("get-the-current-scheduling-state 1");
  EventLoop& event_loop = *scheduler->environment->event_loop;
  SPEC_STEP("get-the-current-scheduling-state 2");
  return std::static_pointer_cast<SchedulingState>(
      get_the_continuation_state_value(scheduler, event_loop));
}

// https://wicg.github.io/scheduling-apis/#schedule-a-posttask-task
Promise* Scheduling::schedule_a_posttask_task(Scheduler* scheduler,
                                              const CallbackFunction& callback,
                                              const SchedulerPostTaskOptions& options) {
  Environment* realm = scheduler->environment;
  SPEC_STEP("schedule-a-posttask-task 1");
  Promise* result = new_promise(world_, realm);
  SPEC_STEP("schedule-a-posttask-task 2");
  AbortSignal* signal = options.signal;
  // 3. An aborted signal rejects at once.
  SPEC_STEP("schedule-a-posttask-task 3");
  if (signal && signal->aborted()) {
    result->own.reject(world_, signal->abort_reason);
    return result;
  }
  SPEC_STEP("schedule-a-posttask-task 4");
  auto state = std::make_shared<SchedulingState>();
  SPEC_STEP("schedule-a-posttask-task 5");
  state->abort_source = signal;
  // 6-8. The priority source: the priority option, else a TaskSignal, else user-visible.
  SPEC_STEP("schedule-a-posttask-task 6");
  auto* task_signal = dynamic_cast<TaskSignal*>(signal);
  if (options.priority) {
    state->priority_source =
        create_a_fixed_priority_unabortable_task_signal(*options.priority, realm);
  } else {
    SPEC_STEP("schedule-a-posttask-task 7");
    if (task_signal) state->priority_source = task_signal;
  }
  SPEC_STEP("schedule-a-posttask-task 8");
  if (!state->priority_source)
    state->priority_source =
        create_a_fixed_priority_unabortable_task_signal(TaskPriority::UserVisible, realm);
  SPEC_STEP("schedule-a-posttask-task 9");
  TaskHandle* handle = create_a_task_handle(result, signal);
  SPEC_STEP("schedule-a-posttask-task 10");
  if (signal) handle->abort_algorithm = signal->add(handle->abort_steps);
  // 11. What puts the task in its queue (now, or when the delay expires).
  SPEC_STEP("schedule-a-posttask-task 11");
  Steps enqueue_steps = [this, scheduler, handle, state, callback, result] {
    SPEC_STEP("schedule-a-posttask-task 11.1");
    handle->queue = select_the_scheduler_task_queue(scheduler, state->priority_source, false);
    SPEC_STEP("schedule-a-posttask-task 11.2");
    schedule_a_task_to_invoke_an_algorithm(
        scheduler, handle, [this, scheduler, state, callback, result] {
          SPEC_STEP("schedule-a-posttask-task 11.2.1");
          EventLoop& event_loop = *scheduler->environment->event_loop;
          SPEC_STEP("schedule-a-posttask-task 11.2.2");
          set_the_current_scheduling_state(scheduler, state);
          // 11.2.3. Invoke with "rethrow": a throw rejects the result, a value resolves it.
          SPEC_STEP("schedule-a-posttask-task 11.2.3");
          Completion callback_result = host_.call_post_task_callback(callback);
          if (callback_result.thrown)
            result->own.reject(world_, callback_result.value.data);
          else
            result->own.resolve(world_, callback_result.value);
          SPEC_STEP("schedule-a-posttask-task 11.2.4");
          event_loop.current_continuation_state = nullptr;
        });
  };
  SPEC_STEP("schedule-a-posttask-task 12");
  const std::uint64_t delay = options.delay;
  SPEC_STEP("schedule-a-posttask-task 13");
  if (delay > 0) {
    // I-18: the enqueue steps run when the timer fires, before the world settles.
    world_.run_steps_after_a_timeout(delay, [signal, enqueue_steps] {
      SPEC_STEP("schedule-a-posttask-task 13.1");
      if (!signal || !signal->aborted()) enqueue_steps();
    });
  } else {
    SPEC_STEP("schedule-a-posttask-task 14");
    enqueue_steps();
  }
  SPEC_STEP("schedule-a-posttask-task 15");
  return result;
}

// https://wicg.github.io/scheduling-apis/#schedule-a-yield-continuation
Promise* Scheduling::schedule_a_yield_continuation(Scheduler* scheduler) {
  Environment* realm = scheduler->environment;
  SPEC_STEP("schedule-a-yield-continuation 1");
  Promise* result = new_promise(world_, realm);
  // 2. What the running task or reaction carries.
  SPEC_STEP("schedule-a-yield-continuation 2");
  std::shared_ptr<SchedulingState> inherited_state = get_the_current_scheduling_state(scheduler);
  SPEC_STEP("schedule-a-yield-continuation 3");
  AbortSignal* abort_source = inherited_state ? inherited_state->abort_source : nullptr;
  SPEC_STEP("schedule-a-yield-continuation 4");
  if (abort_source && abort_source->aborted()) {
    result->own.reject(world_, abort_source->abort_reason);
    return result;
  }
  SPEC_STEP("schedule-a-yield-continuation 5");
  TaskSignal* priority_source = inherited_state ? inherited_state->priority_source : nullptr;
  SPEC_STEP("schedule-a-yield-continuation 6");
  if (!priority_source)
    priority_source =
        create_a_fixed_priority_unabortable_task_signal(TaskPriority::UserVisible, realm);
  SPEC_STEP("schedule-a-yield-continuation 7");
  TaskHandle* handle = create_a_task_handle(result, abort_source);
  SPEC_STEP("schedule-a-yield-continuation 8");
  if (abort_source) handle->abort_algorithm = abort_source->add(handle->abort_steps);
  SPEC_STEP("schedule-a-yield-continuation 9");
  handle->queue = select_the_scheduler_task_queue(scheduler, priority_source, true);
  SPEC_STEP("schedule-a-yield-continuation 10");
  schedule_a_task_to_invoke_an_algorithm(scheduler, handle, [this, result] {
    SPEC_STEP("schedule-a-yield-continuation 10.1");
    result->own.resolve(world_, JsValue(Value()));
  });
  SPEC_STEP("schedule-a-yield-continuation 11");
  return result;
}

// https://wicg.github.io/scheduling-apis/#select-the-scheduler-task-queue
SchedulerTaskQueue* Scheduling::select_the_scheduler_task_queue(Scheduler* scheduler,
                                                                TaskSignal* signal,
                                                                bool is_continuation) {
  SPEC_STEP("select-the-scheduler-task-queue 1");
  if (!has_fixed_priority(*signal)) {
    auto& map = scheduler->dynamic_priority_task_queue_map;
    const auto key = std::make_pair(signal, is_continuation);
    const auto find = [&map, key] {
      return std::find_if(map.begin(), map.end(), [&](const auto& e) { return e.first == key; });
    };
    SPEC_STEP("select-the-scheduler-task-queue 1.1");
    if (find() == map.end()) {
      SPEC_STEP("select-the-scheduler-task-queue 1.1.1");
      // The queue's own address, known once it exists, for the fixed removal steps (I-25).
      auto self = std::make_shared<SchedulerTaskQueue*>(nullptr);
      SchedulerTaskQueue* queue =
          create_a_scheduler_task_queue(signal->priority, is_continuation, [this, &map, key, self] {
            SPEC_STEP("select-the-scheduler-task-queue 1.1.1.1");
            map.erase(std::remove_if(map.begin(), map.end(),
                                     [&](const auto& e) {
                                       return e.first == key && still_removable(e.second, *self);
                                     }),
                      map.end());
          });
      *self = queue;
      SPEC_STEP("select-the-scheduler-task-queue 1.1.2");
      map.emplace_back(key, queue);
      // 1.1.3. The queue follows the signal's priority: nothing moves, the queue's priority
      // changes.
      SPEC_STEP("select-the-scheduler-task-queue 1.1.3");
      add_a_priority_change_algorithm(signal, [queue, signal] {
        SPEC_STEP("select-the-scheduler-task-queue 1.1.3.1");
        queue->priority = signal->priority;
      });
    }
    SPEC_STEP("select-the-scheduler-task-queue 1.2");
    return find()->second;
  }
  SPEC_STEP("select-the-scheduler-task-queue 2");
  SPEC_STEP("select-the-scheduler-task-queue 2.1");
  const TaskPriority priority = signal->priority;
  auto& map = scheduler->static_priority_task_queue_map;
  const auto key = std::make_pair(priority, is_continuation);
  const auto find = [&map, key] {
    return std::find_if(map.begin(), map.end(), [&](const auto& e) { return e.first == key; });
  };
  SPEC_STEP("select-the-scheduler-task-queue 2.2");
  if (find() == map.end()) {
    SPEC_STEP("select-the-scheduler-task-queue 2.2.1");
    auto self = std::make_shared<SchedulerTaskQueue*>(nullptr);  // as in 1.1.1 (I-25)
    SchedulerTaskQueue* queue =
        create_a_scheduler_task_queue(priority, is_continuation, [this, &map, key, self] {
          SPEC_STEP("select-the-scheduler-task-queue 2.2.1.1");
          map.erase(std::remove_if(map.begin(), map.end(),
                                   [&](const auto& e) {
                                     return e.first == key && still_removable(e.second, *self);
                                   }),
                    map.end());
        });
    *self = queue;
    SPEC_STEP("select-the-scheduler-task-queue 2.2.2");
    map.emplace_back(key, queue);
  }
  SPEC_STEP("select-the-scheduler-task-queue 2.3");
  return find()->second;
}

// The removal steps of 1.1.1.1 and 2.2.1.1 remove the map entry of their queue's key. Literally,
// whichever queue holds the key now; with the defect fixed (I-25, docs/spec-issues.md Prioritized
// Task Scheduling 1), only while it still holds the queue whose steps these are.
bool Scheduling::still_removable(const SchedulerTaskQueue* held,
                                 const SchedulerTaskQueue* own) const {
  return stale_removal_ == StaleRemovalReading::Literal || held == own;
}

// https://wicg.github.io/scheduling-apis/#schedule-a-task-to-invoke-an-algorithm
void Scheduling::schedule_a_task_to_invoke_an_algorithm(Scheduler* scheduler, TaskHandle* handle,
                                                        Steps steps) {
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 1");
  Environment* global = scheduler->environment;
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 2");
  Environment* document = global->is_window ? global : nullptr;
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 3");
  EventLoop& event_loop = *global->event_loop;
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 4");
  const std::uint64_t enqueue_order = event_loop.next_enqueue_order;
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 5");
  ++event_loop.next_enqueue_order;
  SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 6");
  handle->task = queue_a_scheduler_task(
      handle->queue,
      [handle, steps = std::move(steps)] {
        SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 6.1");
        steps();
        SPEC_STEP("schedule-a-task-to-invoke-an-algorithm 6.2");
        handle->task_complete_steps();
      },
      enqueue_order, "posted-task", document, global);
  handle->task->abort_signal = handle->signal;  // bookkeeping (concepts.h)
}

// https://wicg.github.io/scheduling-apis/#has-a-runnable-task
bool Scheduling::has_a_runnable_task(Scheduler* scheduler) const {
  SPEC_STEP("has-a-runnable-task 1");
  return !get_the_runnable_task_queues(scheduler).empty();
}

// https://wicg.github.io/scheduling-apis/#get-the-runnable-task-queues
std::vector<SchedulerTaskQueue*> Scheduling::get_the_runnable_task_queues(
    Scheduler* scheduler) const {
  SPEC_STEP("get-the-runnable-task-queues 1");
  std::vector<SchedulerTaskQueue*> queues;
  for (const auto& [key, queue] : scheduler->static_priority_task_queue_map)
    queues.push_back(queue);
  SPEC_STEP("get-the-runnable-task-queues 2");
  for (const auto& [key, queue] : scheduler->dynamic_priority_task_queue_map)
    queues.push_back(queue);
  SPEC_STEP("get-the-runnable-task-queues 3");
  queues.erase(std::remove_if(queues.begin(), queues.end(),
                              [this](SchedulerTaskQueue* q) { return !first_runnable_task(*q); }),
               queues.end());
  SPEC_STEP("get-the-runnable-task-queues 4");
  return queues;
}

// https://wicg.github.io/scheduling-apis/#select-the-next-scheduler-task-queue-from-all-schedulers
SchedulerTaskQueue* Scheduling::select_the_next_scheduler_task_queue_from_all_schedulers(
    EventLoop& event_loop) const {
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 1");
  std::vector<SchedulerTaskQueue*> queues;
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 2");
  std::vector<Scheduler*> schedulers;
  for (const auto& [environment, scheduler] : schedulers_)
    if (environment->event_loop == &event_loop && has_a_runnable_task(scheduler.get()))
      schedulers.push_back(scheduler.get());
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 3");
  for (Scheduler* scheduler : schedulers)
    for (SchedulerTaskQueue* q : get_the_runnable_task_queues(scheduler)) queues.push_back(q);
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 4");
  if (queues.empty()) return nullptr;
  // 5. Keep only the highest effective priority.
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 5");
  int highest = 0;
  for (SchedulerTaskQueue* q : queues) highest = std::max(highest, effective_priority(*q));
  queues.erase(
      std::remove_if(queues.begin(), queues.end(),
                     [&](SchedulerTaskQueue* q) { return effective_priority(*q) < highest; }),
      queues.end());
  // 6. Of those, the queue whose first runnable task is oldest (enqueue orders are unique).
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 6");
  SchedulerTaskQueue* queue = queues.front();
  for (SchedulerTaskQueue* q : queues)
    if (older_than(*first_runnable_task(*q), *first_runnable_task(*queue))) queue = q;
  SPEC_STEP("select-the-next-scheduler-task-queue-from-all-schedulers 7");
  return queue;
}

void Scheduling::add_a_priority_change_algorithm(TaskSignal* signal, Steps algorithm) {
  SPEC_STEP("tasksignal-add-a-priority-change-algorithm 1");
  signal->priority_change_algorithms.push_back(std::move(algorithm));
}

// https://wicg.github.io/scheduling-apis/#create-a-dependent-task-signal
TaskSignal* Scheduling::create_a_dependent_task_signal(const std::vector<AbortSignal*>& signals,
                                                       const TaskSignalAnyInit& init,
                                                       Environment* realm) {
  SPEC_STEP("create-a-dependent-task-signal 1");
  auto* result_signal = world_.make<TaskSignal>();
  result_signal->environment = realm;
  create_a_dependent_abort_signal(result_signal, signals);
  SPEC_STEP("create-a-dependent-task-signal 2");
  result_signal->task_dependent = true;
  SPEC_STEP("create-a-dependent-task-signal 3");
  if (init.priority) {
    SPEC_STEP("create-a-dependent-task-signal 3.1");
    result_signal->priority = *init.priority;
  } else {
    SPEC_STEP("create-a-dependent-task-signal 4");
    SPEC_STEP("create-a-dependent-task-signal 4.1");
    TaskSignal* source_signal = init.signal;
    SPEC_STEP("create-a-dependent-task-signal 4.2");
    result_signal->priority = source_signal->priority;
    // 4.3. Follow a signal whose priority can change, flattened to its own source.
    SPEC_STEP("create-a-dependent-task-signal 4.3");
    if (!has_fixed_priority(*source_signal)) {
      SPEC_STEP("create-a-dependent-task-signal 4.3.1");
      if (source_signal->task_dependent) source_signal = source_signal->source_signal;
      SPEC_STEP("create-a-dependent-task-signal 4.3.2");
      spec_assert(!source_signal->task_dependent, "the source signal is not dependent");
      SPEC_STEP("create-a-dependent-task-signal 4.3.3");
      result_signal->source_signal = source_signal;
      SPEC_STEP("create-a-dependent-task-signal 4.3.4");
      source_signal->task_dependent_signals.push_back(result_signal);
    }
  }
  SPEC_STEP("create-a-dependent-task-signal 5");
  return result_signal;
}

// https://wicg.github.io/scheduling-apis/#tasksignal-signal-priority-change
std::optional<Value> Scheduling::signal_priority_change(TaskSignal* signal, TaskPriority priority) {
  SPEC_STEP("tasksignal-signal-priority-change 1");
  if (signal->priority_changing) return Value::dom_exception("NotAllowedError");
  SPEC_STEP("tasksignal-signal-priority-change 2");
  if (signal->priority == priority) return std::nullopt;
  SPEC_STEP("tasksignal-signal-priority-change 3");
  signal->priority_changing = true;
  SPEC_STEP("tasksignal-signal-priority-change 4");
  const TaskPriority previous_priority = signal->priority;
  SPEC_STEP("tasksignal-signal-priority-change 5");
  signal->priority = priority;
  SPEC_STEP("tasksignal-signal-priority-change 6");
  for (const Steps& algorithm : std::vector<Steps>(signal->priority_change_algorithms)) algorithm();
  // 7. Fire prioritychange at the signal (listeners run synchronously, in order).
  SPEC_STEP("tasksignal-signal-priority-change 7");
  for (const auto& listener : std::vector(signal->prioritychange_listeners))
    listener(previous_priority);
  // 8. Then every dependent signal, in the order they were made.
  SPEC_STEP("tasksignal-signal-priority-change 8");
  for (TaskSignal* dependent_signal : std::vector<TaskSignal*>(signal->task_dependent_signals))
    signal_priority_change(dependent_signal, priority);
  SPEC_STEP("tasksignal-signal-priority-change 9");
  signal->priority_changing = false;
  return std::nullopt;
}

// https://wicg.github.io/scheduling-apis/#create-a-fixed-priority-unabortable-task-signal
TaskSignal* Scheduling::create_a_fixed_priority_unabortable_task_signal(TaskPriority priority,
                                                                        Environment* realm) {
  SPEC_STEP("create-a-fixed-priority-unabortable-task-signal 1");
  TaskSignalAnyInit init;
  SPEC_STEP("create-a-fixed-priority-unabortable-task-signal 2");
  init.priority = priority;
  SPEC_STEP("create-a-fixed-priority-unabortable-task-signal 3");
  return create_a_dependent_task_signal({}, init, realm);
}

}  // namespace lockstep::spec
