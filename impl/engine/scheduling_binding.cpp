#include "scheduling_binding.h"

#include <algorithm>

namespace lockstep::impl {
namespace {

bool has_fixed_priority(const Signal& s) {
  return s.task_dependent && !s.priority_source;
}

}  // namespace

SchedulingBinding::SchedulingBinding(Runtime& rt, Host& host, StaleRemovalReading stale_removal)
    : rt_(rt), host_(host), stale_removal_(stale_removal) {
  rt_.set_scheduler_hooks(this);
}

SchedulingBinding::Scheduler* SchedulingBinding::scheduler(Env* env) {
  if (!env->scheduler) {
    Scheduler& s = schedulers_.emplace();
    s.env = env;
    env->scheduler = &s;
  }
  return static_cast<Scheduler*>(env->scheduler);
}

// scheduling#create-a-task-handle: aborting rejects the result and takes a queued task out (4.1,
// 4.2.1), and a queue left empty runs its removal steps (4.2.2), even when the task had already
// left it: the spec only asks whether the handle has a task.
SchedulingBinding::Handle* SchedulingBinding::create_a_task_handle(Promise* result,
                                                                   Signal* signal) {
  Handle* handle = &handles_.emplace();
  handle->signal = signal;
  if (signal)
    handle->abort_handle = rt_.add_algorithm(signal, [this, handle, result] {
      rt_.reject(result, handle->signal->reason);
      if (!handle->queue) return;
      take_out(handle);
      if (handle->queue->tasks == 0) removal_steps(handle->queue);
    });
  return handle;
}

// scheduling#scheduler-task-queue-remove for the handle's task, if it is still in its queue.
void SchedulingBinding::take_out(Handle* handle) {
  if (!handle->in_queue) return;
  handle->in_queue = false;
  --handle->queue->tasks;
  handle->scheduler->remove(handle->task);  // a no-op for an orphaned queue's cleared task
}

// The removal steps of #select-the-scheduler-task-queue 1.1.1.1 / 2.2.1.1: remove the map entry
// of the queue's key, whichever queue holds it now. When that is a newer queue with tasks, they
// can never run again (spec issue, kept literally): they leave the core queue. With the defect
// fixed (I-25) a queue only removes its own entry.
void SchedulingBinding::removal_steps(LogicalQueue* queue) {
  Slot& slot = *queue->slot;
  if (stale_removal_ == StaleRemovalReading::Fixed && slot.current != queue) return;
  LogicalQueue* removed = slot.current;
  slot.current = nullptr;
  // The core queue holds only the current queue's tasks, so clearing it drops exactly those.
  if (removed && removed != queue && removed->tasks > 0) slot.core->clear(slot.physical);
}

// scheduling#select-the-scheduler-task-queue: a dynamic queue per (signal, continuation) for a
// signal whose priority can change, else the static queue per (priority, continuation).
SchedulingBinding::LogicalQueue* SchedulingBinding::select_the_scheduler_task_queue(
    Scheduler* s, const SchedulingState& state, bool is_continuation) {
  TaskScheduler& core = s->env->loop->scheduler;
  Signal* signal = state.priority_signal;
  const bool dynamic = signal && !has_fixed_priority(*signal);
  const Priority priority = signal ? signal->priority : state.fixed;
  Slot* slot = dynamic ? &s->dynamic_slots[{signal, is_continuation}]
                       : &s->static_slots[static_cast<int>(priority)][is_continuation ? 1 : 0];
  if (!slot->made) {
    slot->core = &core;
    slot->physical = core.create_queue(priority, is_continuation);
    slot->made = true;
    s->queues.push_back(slot->physical);
    if (dynamic) signal->queues.emplace_back(&core, slot->physical);  // follows its priority
  }
  if (!slot->current) {  // 1.1.1 / 2.2.1: the key has no queue: make one
    LogicalQueue& q = logical_queues_.emplace();
    q.slot = slot;
    slot->current = &q;
  }
  return slot->current;
}

// scheduling#schedule-a-task-to-invoke-an-algorithm. A global that can run no more tasks keeps
// none (its task would never be runnable).
void SchedulingBinding::schedule_a_task(Scheduler* s, Handle* handle, LogicalQueue* queue,
                                        Job steps) {
  Env* env = s->env;
  if (env->terminated || (env->is_window && !env->fully_active)) return;
  Task& task =
      tasks_.emplace(Task{rt_.next_seq(), handle, [handle, this, steps = std::move(steps)] {
                            steps();
                            // Task complete steps (create-a-task-handle 5): stop listening for
                            // abort; an emptied queue runs its removal steps.
                            if (handle->signal)
                              rt_.remove_algorithm(handle->signal, handle->abort_handle);
                            if (handle->queue->tasks == 0) removal_steps(handle->queue);
                          }});
  handle->scheduler = &env->loop->scheduler;
  handle->queue = queue;
  handle->in_queue = true;
  ++queue->tasks;
  handle->task = handle->scheduler->enqueue(queue->slot->physical, &task);
  rt_.wake(*env->loop);
}

// scheduling#schedule-a-posttask-task
Promise* SchedulingBinding::post_task(Env* env, const CallbackRef& callback,
                                      std::optional<Priority> priority, Signal* signal,
                                      std::uint64_t delay) {
  Scheduler* s = scheduler(env);
  Promise* result = rt_.new_promise(env);
  if (signal && signal->aborted()) {
    rt_.reject(result, signal->reason);
    return result;
  }
  SchedulingState* state = &states_.emplace();
  state->abort_source = signal;
  if (priority)
    state->fixed = *priority;
  else if (signal && signal->is_task_signal)
    state->priority_signal = signal;
  Handle* handle = create_a_task_handle(result, signal);
  auto enqueue_steps = [this, s, handle, state, callback, result] {
    LogicalQueue* queue = select_the_scheduler_task_queue(s, *state, false);
    schedule_a_task(s, handle, queue, [this, s, state, callback, result] {
      Loop& loop = *s->env->loop;
      rt_.set_continuation_value(loop, s, state);  // set the current scheduling state
      Completion c = host_.call_post_task_callback(callback);
      if (c.thrown)
        rt_.reject(result, c.value.data);
      else
        rt_.resolve(result, c.value);
      loop.continuation = nullptr;
    });
  };
  if (delay > 0) {
    rt_.after_timeout(delay, [signal, enqueue_steps] {
      if (!signal || !signal->aborted()) enqueue_steps();  // I-18
    });
  } else {
    enqueue_steps();
  }
  return result;
}

// scheduling#schedule-a-yield-continuation: inherit the running task's scheduling state.
Promise* SchedulingBinding::yield(Env* env) {
  Scheduler* s = scheduler(env);
  Promise* result = rt_.new_promise(env);
  const auto* inherited =
      static_cast<const SchedulingState*>(rt_.continuation_value(*env->loop, s));
  Signal* abort_source = inherited ? inherited->abort_source : nullptr;
  if (abort_source && abort_source->aborted()) {
    rt_.reject(result, abort_source->reason);
    return result;
  }
  SchedulingState priority_only;
  if (inherited) {
    priority_only.priority_signal = inherited->priority_signal;
    priority_only.fixed = inherited->fixed;
  }
  Handle* handle = create_a_task_handle(result, abort_source);
  LogicalQueue* queue = select_the_scheduler_task_queue(s, priority_only, true);
  schedule_a_task(s, handle, queue, [this, result] { rt_.resolve(result, JsValue(Value())); });
  return result;
}

// scheduling#dom-taskcontroller-taskcontroller
Signal* SchedulingBinding::new_task_controller(Env* env, Priority priority) {
  Signal* signal = rt_.new_signal(env);
  signal->is_task_signal = true;
  signal->priority = priority;
  return signal;
}

// scheduling#tasksignal-signal-priority-change
std::optional<Value> SchedulingBinding::set_priority(Signal* signal, Priority priority) {
  if (signal->priority_changing) return Value::dom_exception("NotAllowedError");
  if (signal->priority == priority) return std::nullopt;
  signal->priority_changing = true;
  const Priority previous = signal->priority;
  signal->priority = priority;
  for (auto [core, queue] : signal->queues) core->set_priority(queue, priority);
  for (const auto& listener : std::vector(signal->prioritychange_listeners)) listener(previous);
  for (Signal* dependent : std::vector(signal->task_dependents)) set_priority(dependent, priority);
  signal->priority_changing = false;
  return std::nullopt;
}

// scheduling#create-a-dependent-task-signal
Signal* SchedulingBinding::any(Env* env, const std::vector<Signal*>& signals,
                               std::optional<Priority> priority, Signal* priority_signal) {
  Signal* result = rt_.new_signal(env);
  result->is_task_signal = true;
  rt_.make_dependent(result, signals);
  result->task_dependent = true;
  if (priority) {
    result->priority = *priority;
    return result;
  }
  Signal* source = priority_signal;
  result->priority = source->priority;
  if (!has_fixed_priority(*source)) {
    if (source->task_dependent) source = source->priority_source;
    result->priority_source = source;
    source->task_dependents.push_back(result);
  }
  return result;
}

void SchedulingBinding::request_idle_callback(Env* env, const CallbackRef& callback) {
  idle_requests_.push_back(IdleRequest{rt_.next_seq(), callback});
  rt_.wake(*env->loop);
}

void SchedulingBinding::deactivate(Env* env) {
  if (!env->scheduler) return;
  Scheduler* s = static_cast<Scheduler*>(env->scheduler);
  for (QueueId q : s->queues) env->loop->scheduler.clear(q);
}

std::uint64_t SchedulingBinding::task_seq(void* cookie) {
  return static_cast<Task*>(cookie)->seq;
}

void SchedulingBinding::run_task(Loop&, void* cookie) {
  Task* task = static_cast<Task*>(cookie);
  // The event loop took the task out of its queue (the core popped it).
  task->handle->in_queue = false;
  --task->handle->queue->tasks;
  task->steps();
}

std::optional<std::uint64_t> SchedulingBinding::next_idle(Loop& loop) {
  for (const IdleRequest& r : idle_requests_) {
    const Env* w = r.callback.env;
    if (w->loop == &loop && !w->terminated && w->fully_active) return r.seq;
  }
  return std::nullopt;
}

// requestidlecallback#invoke-idle-callbacks-algorithm for one callback, with the scheduling patch:
// the callback runs with a background, unabortable scheduling state.
void SchedulingBinding::run_idle(Loop& loop) {
  auto it = std::find_if(idle_requests_.begin(), idle_requests_.end(), [&](const IdleRequest& r) {
    const Env* w = r.callback.env;
    return w->loop == &loop && !w->terminated && w->fully_active;
  });
  IdleRequest request = *it;
  idle_requests_.erase(it);
  SchedulingState& state = states_.emplace();
  state.fixed = Priority::Background;
  rt_.set_continuation_value(loop, scheduler(request.callback.env), &state);
  host_.call_idle_request_callback(request.callback);
  loop.continuation = nullptr;
}

}  // namespace lockstep::impl
