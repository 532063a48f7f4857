// What script calls (Scheduler, TaskController, TaskSignal, requestIdleCallback) and the event
// loop processing model's patch (https://wicg.github.io/scheduling-apis/#sec-patches).
#include <algorithm>

#include "../platform/errors.h"
#include "scheduling.h"

namespace lockstep::spec {

Promise* Scheduling::post_task(Scheduler* scheduler, const CallbackFunction& callback,
                               const SchedulerPostTaskOptions& options) {
  SPEC_STEP("dom-scheduler-posttask 1");  // schedule a postTask task
  return schedule_a_posttask_task(scheduler, callback, options);
}

Promise* Scheduling::yield(Scheduler* scheduler) {
  SPEC_STEP("dom-scheduler-yield 1");  // schedule a yield continuation
  return schedule_a_yield_continuation(scheduler);
}

// https://wicg.github.io/scheduling-apis/#dom-taskcontroller-taskcontroller
TaskController* Scheduling::new_task_controller(Environment* environment, TaskPriority priority) {
  auto* controller = world_.make<TaskController>();  // AbortController's own construction
  SPEC_STEP("dom-taskcontroller-taskcontroller 1");
  auto* signal = world_.make<TaskSignal>();
  signal->environment = environment;
  SPEC_STEP("dom-taskcontroller-taskcontroller 2");
  signal->priority = priority;
  SPEC_STEP("dom-taskcontroller-taskcontroller 3");
  controller->signal = signal;
  return controller;
}

std::optional<Value> Scheduling::set_priority(TaskController* controller, TaskPriority priority) {
  SPEC_STEP("dom-taskcontroller-setpriority 1");  // signal priority change on its signal
  return signal_priority_change(controller->task_signal(), priority);
}

TaskSignal* Scheduling::any(Environment* environment, const std::vector<AbortSignal*>& signals,
                            const TaskSignalAnyInit& init) {
  SPEC_STEP("dom-tasksignal-any 1");  // create a dependent task signal in the current realm
  return create_a_dependent_task_signal(signals, init, environment);
}

void Scheduling::request_idle_callback(Environment* environment, const CallbackFunction& callback) {
  // requestidlecallback#the-requestidlecallback-method: append to the list of idle request
  // callbacks.
  idle_requests_.push_back(IdleRequest{world_.next_sequence_number(), environment, callback});
}

// --- scheduling#sec-patches-html-event-loop-processing ---

std::optional<SchedulerTaskSource::Candidate> Scheduling::next_scheduler_task(EventLoop& loop) {
  // Before step 2: the loop's other task queues are the World's; here, the scheduler queue.
  SPEC_STEP("sec-patches-html-event-loop-processing before-2.1");
  SPEC_STEP("sec-patches-html-event-loop-processing before-2.2");
  SchedulerTaskQueue* scheduler_queue =
      select_the_next_scheduler_task_queue_from_all_schedulers(loop);
  if (!scheduler_queue) return std::nullopt;
  return Candidate{first_runnable_task(*scheduler_queue)->seq,
                   effective_priority(*scheduler_queue)};
}

void Scheduling::run_next_scheduler_task(EventLoop& loop) {
  // Step 2.1: the scheduler queue's tasks were chosen (I-17); the first runnable task runs.
  SPEC_STEP("sec-patches-html-event-loop-processing 2");
  SPEC_STEP("sec-patches-html-event-loop-processing 2.1");
  SchedulerTaskQueue* queue = select_the_next_scheduler_task_queue_from_all_schedulers(loop);
  SchedulerTask* task = first_runnable_task(*queue);
  remove(task, queue);
  world_.run_as_task(loop, task->environment, task->steps);
}

std::optional<std::uint64_t> Scheduling::next_idle_callback(EventLoop& loop) {
  for (const IdleRequest& r : idle_requests_)
    if (r.window->event_loop == &loop && !r.window->terminated && r.window->document_fully_active)
      return r.seq;
  return std::nullopt;
}

// requestidlecallback#invoke-idle-callbacks-algorithm for one callback, with the scheduling patch
// (scheduling#sec-patches-invoke-idle-callbacks) around step 3.3.
void Scheduling::run_next_idle_callback(EventLoop& loop) {
  auto it = std::find_if(idle_requests_.begin(), idle_requests_.end(), [&](const IdleRequest& r) {
    return r.window->event_loop == &loop && !r.window->terminated &&
           r.window->document_fully_active;
  });
  IdleRequest request = *it;
  idle_requests_.erase(it);
  world_.run_as_task(loop, request.window, [&] {
    SPEC_STEP("sec-patches-invoke-idle-callbacks before-3.3.1");
    Environment* realm = request.window;
    SPEC_STEP("sec-patches-invoke-idle-callbacks before-3.3.2");
    auto state = std::make_shared<SchedulingState>();
    SPEC_STEP("sec-patches-invoke-idle-callbacks before-3.3.3");
    state->priority_source =
        create_a_fixed_priority_unabortable_task_signal(TaskPriority::Background, realm);
    SPEC_STEP("sec-patches-invoke-idle-callbacks before-3.3.4");
    Scheduler* s = scheduler(realm);
    SPEC_STEP("sec-patches-invoke-idle-callbacks before-3.3.5");
    set_the_current_scheduling_state(s, state);
    host_.call_idle_request_callback(request.callback);  // step 3.3
    SPEC_STEP("sec-patches-invoke-idle-callbacks after-3.3.1");
    loop.current_continuation_state = nullptr;
  });
}

}  // namespace lockstep::spec
