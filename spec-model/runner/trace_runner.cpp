#include "trace_runner.h"

#include "../platform/errors.h"
#include "lockstep/replay_errors.h"

namespace lockstep::spec {

// A running body: an async function suspended at an await, or a plain function running through.
struct TraceRunner::Activation {
  Environment* environment = nullptr;
  const std::vector<Action>* body = nullptr;
  std::size_t pc = 0;
  Promise* promise = nullptr;          // the async function's promise; null for a plain function
  const Callback* callback = nullptr;  // its result; null for `async () => body`
  std::string owner;                   // the request whose callback this is
};

TraceRunner::TraceRunner(const Trace& trace)
    : trace_(trace),
      locks_(world_, *this, trace.readings.released_promise),
      scheduling_(world_, *this, trace.readings.stale_removal) {
  for (const Agent& agent : trace_.agents) world_.add_environment(agent);
  world_.pin_choices(trace_.schedule);
  settling_steps_ = settling_steps(trace_.steps);
}

// A worker, or a window whose event loop no other agent shares, ends: nothing of it runs again,
// its queued tasks and microtasks included (I-10). A window that closes while another agent keeps
// its event loop running does so too under the default reading; under "closed-window-jobs": "run"
// (I-29) its document stops being fully active, so its tasks are never runnable again, but the
// microtasks of its realm (promise jobs, queued or to come) still run at that loop's checkpoints:
// html#hostenqueuepromisejob no longer asks whether script can run in the job's realm. Either way
// web-locks#termination-of-locks releases its locks and drops its requests.
void TraceRunner::terminate(Environment* environment) {
  if (trace_.realm_outlives_closing(*environment->trace_agent)) {
    environment->document_fully_active = false;
    closed_windows_.insert(environment);
  } else {
    world_.terminate_environment(environment);
  }
  locks_.agent_terminates(environment);
}

RunResult TraceRunner::run() {
  for (std::size_t i = 0; i < trace_.steps.size(); ++i)
    run_top_level(static_cast<int>(i), trace_.steps[i]);
  world_.settle();  // what a last "settle": false step left queued
  RunResult result;
  result.log = std::move(world_.event_log());
  result.choices = world_.choices_taken();
  return result;
}

void TraceRunner::run_top_level(int index, const Action& step) {
  // I-26: what a "settle": false step left queued may go first. Its events belong to the settling
  // under way (traces/README.md): that of the first step from here on that settles.
  world_.set_stamp_step(settling_steps_[static_cast<std::size_t>(index)]);
  world_.before_step();
  world_.set_current_step(index);
  if (step.op == Op::AdvanceTime) {
    world_.advance_time(step.ms);  // I-4: settles after every instant at which timers fire
    if (after_step_) after_step_(index);
    return;
  }
  Environment* environment = world_.environment(step.agent);
  auto ended = terminated_in_step_.find(step.agent);
  if (ended != terminated_in_step_.end())
    throw ReplayError{Error{step.pointer + "/agent",
                            "agent \"" + step.agent + "\" terminated during step " +
                                std::to_string(ended->second) + " and runs no more script"}};
  if (step.op == Op::Terminate) {
    // I-10: the agent ends now, outside any task of its own; it takes no more steps.
    terminate(environment);
    terminated_in_step_[step.agent] = index;
  } else if (step.op == Op::Unload) {
    environment->document_fully_active = false;
    locks_.unloading_document_cleanup_steps(environment);
  } else if (closed_windows_.count(environment)) {
    // A window closed by script during an earlier step (I-29): as a terminated agent's, its step
    // runs nothing.
  } else if (step.op == Op::Run) {
    world_.run_task_now(environment, [&] { start_async(environment, &step.body, nullptr, {}); });
  } else {
    world_.run_task_now(environment, [&] { perform(environment, step, nullptr); });
  }
  if ((environment->terminated || closed_windows_.count(environment)) &&
      !terminated_in_step_.count(step.agent))
    terminated_in_step_[step.agent] = index;
  if (after_step_) after_step_(index);
  if (step.settle) world_.settle();
}

Completion TraceRunner::call_lock_granted_callback(const CallbackFunction& callback,
                                                   LockObject* lock) {
  if (!world_.logging()) return invoke_from_a_task(callback);
  Value lock_info = Value::null();
  if (lock)
    lock_info = Value::object({{"name", Value::string(lock->name())},
                               {"mode", Value::string(lock_mode_name(lock->mode()))}});
  world_.log(callback.environment, "callback",
             {{"request", Value::string(callback.owner)}, {"lock", lock_info}});
  return invoke_from_a_task(callback);
}

Completion TraceRunner::call_post_task_callback(const CallbackFunction& callback) {
  if (world_.logging())
    world_.log(callback.environment, "task", {{"task", Value::string(callback.owner)}});
  return invoke_from_a_task(callback);
}

void TraceRunner::call_idle_request_callback(const CallbackFunction& callback) {
  world_.log(callback.environment, "idle", {{"id", Value::string(callback.owner)}});
  // An idle callback's return value is ignored (requestidlecallback, "invoke idle callbacks").
  invoke_from_a_task(callback);
}

Completion TraceRunner::invoke_from_a_task(const CallbackFunction& callback) {
  Completion c = call_function(callback.environment, &callback.callback->body, callback.callback,
                               callback.owner, callback.callback->is_async);
  world_.clean_up_after_running_script(callback.environment);
  return c;
}

Completion TraceRunner::call_function(Environment* environment, const std::vector<Action>* body,
                                      const Callback* callback, const std::string& owner,
                                      bool is_async) {
  if (is_async) return Completion::normal(JsValue(start_async(environment, body, callback, owner)));
  // A plain function runs its body straight through (it has no await at its own level).
  auto activation =
      std::make_shared<Activation>(Activation{environment, body, 0, nullptr, callback, owner});
  for (; activation->pc < body->size(); ++activation->pc)
    if (perform(environment, (*body)[activation->pc], activation) == Flow::Stop)
      return Completion::normal(Value());
  return finish(*activation);
}

// ECMA-262 #sec-async-functions-abstract-operations: the body runs synchronously up to its first
// await; the function's promise settles when the body completes.
Promise* TraceRunner::start_async(Environment* environment, const std::vector<Action>* body,
                                  const Callback* callback, const std::string& owner) {
  Promise* promise = new_promise(world_, environment);
  auto activation =
      std::make_shared<Activation>(Activation{environment, body, 0, promise, callback, owner});
  resume(activation);
  return promise;
}

void TraceRunner::resume(const std::shared_ptr<Activation>& activation) {
  const std::vector<Action>& body = *activation->body;
  while (activation->pc < body.size()) {
    Flow flow = perform(activation->environment, body[activation->pc], activation);
    ++activation->pc;
    if (flow == Flow::Stop) return;     // the agent ended: nothing of the body runs any more
    if (flow == Flow::Suspend) return;  // resumed by the awaited promise's reaction
  }
  Completion c = finish(*activation);
  if (c.thrown)
    activation->promise->own.reject(world_, c.value.data);
  else
    activation->promise->own.resolve(world_, c.value);
}

// The function's completion from its callback `result` (I-14).
Completion TraceRunner::finish(Activation& activation) {
  if (!activation.callback) return Completion::normal(Value());
  switch (activation.callback->result) {
    case Callback::Result::Return:
      return Completion::normal(*activation.callback->value);
    case Callback::Result::Throw:
      return Completion::throw_(*activation.callback->value);
    case Callback::Result::Pending: {
      Promise* pending = new_promise(world_, activation.environment);
      pending_results_[activation.owner] = pending;
      return Completion::normal(JsValue(pending));
    }
  }
  return Completion::normal(Value());
}

void TraceRunner::observe(Promise* promise, Environment* environment, const std::string& id) {
  // The `settled` event: a reaction attached as soon as the promise is handed to script.
  perform_promise_then(
      world_, environment, promise,
      [this, environment, id](const Value& v) {
        if (!world_.logging()) return Completion::normal(Value());
        std::vector<std::pair<std::string, Value>> members{{"target", Value::string(id)},
                                                           {"state", Value::string("fulfilled")}};
        if (!v.is_undefined()) members.emplace_back("value", v);
        world_.log(environment, "settled", std::move(members));
        return Completion::normal(Value());
      },
      [this, environment, id](const Value& r) {
        if (!world_.logging()) return Completion::normal(Value());
        std::vector<std::pair<std::string, Value>> members{{"target", Value::string(id)},
                                                           {"state", Value::string("rejected")}};
        if (!r.is_undefined()) members.emplace_back("reason", r);
        world_.log(environment, "settled", std::move(members));
        return Completion::normal(Value());
      },
      nullptr);
}

// Built at the first use: most replays never need it, and check's search replays a trace many
// times, for which walking every action and keying it by id was a tenth of each replay's cost.
const Action* TraceRunner::definition(const std::string& id) {
  if (!definitions_built_) {
    for_each_action(trace_.steps, [&](const Action& a) {
      if (!a.id.empty()) definitions_[a.id] = &a;
    });
    definitions_built_ = true;
  }
  auto def = definitions_.find(id);
  return def == definitions_.end() ? nullptr : def->second;
}

void TraceRunner::not_created_yet(const Action& user, const std::string& id,
                                  const std::string& what) {
  throw ReplayError{lockstep::not_created_yet(user, id, what, definition(id))};
}

Promise* TraceRunner::promise_named(const Action& user, const std::string& id) {
  auto it = promises_.find(id);
  if (it == promises_.end()) not_created_yet(user, id, "promise");
  return it->second;
}

AbortSignal* TraceRunner::signal_named(const Action& user, const std::string& id) {
  auto it = signals_.find(id);
  if (it == signals_.end()) not_created_yet(user, id, "signal");
  return it->second;
}

TraceRunner::Flow TraceRunner::perform(Environment* environment, const Action& a,
                                       const std::shared_ptr<Activation>& activation) {
  switch (a.op) {
    case Op::Request: {
      SPEC_STEP("dom-navigatorlocks-locks 1");
      std::optional<LockOptions> options;
      if (a.lock_options) {
        options = LockOptions{a.lock_options->mode, a.lock_options->if_available,
                              a.lock_options->steal, nullptr};
        if (a.lock_options->signal) options->signal = signal_named(a, *a.lock_options->signal);
      }
      Promise* p = locks_.request(environment, a.name, options,
                                  CallbackFunction{environment, &*a.callback, a.id});
      promises_[a.id] = p;
      observe(p, environment, a.id);
      return Flow::Next;
    }
    case Op::Query: {
      SPEC_STEP("dom-navigatorlocks-locks 1");
      Promise* p = locks_.query(environment);
      promises_[a.id] = p;
      observe(p, environment, a.id);
      return Flow::Next;
    }
    case Op::NewAbortController: {
      AbortController* controller = new_abort_controller(world_, environment);
      controller->signal->trace_id = a.id;
      controllers_[a.id] = controller;
      signals_[a.id] = controller->signal;
      return Flow::Next;
    }
    case Op::Abort: {
      auto it = controllers_.find(a.signal);
      if (it == controllers_.end()) not_created_yet(a, a.signal, "controller");
      abort_controller_abort(world_, it->second, a.reason ? *a.reason : Value());
      return Flow::Next;
    }
    case Op::TimeoutSignal: {
      AbortSignal* signal = abort_signal_timeout(world_, environment, a.ms);
      signal->trace_id = a.id;
      signals_[a.id] = signal;
      return Flow::Next;
    }
    case Op::Settle: {
      // The target is the pending result of a request's or task's callback, or a newPromise
      // (ids are unique, so at most one of the two).
      Promise* target = nullptr;
      if (auto it = pending_results_.find(a.target); it != pending_results_.end()) {
        target = it->second;
      } else {
        const Action* def = definition(a.target);
        if (!def || def->op != Op::NewPromise)
          not_created_yet(a, a.target, "the pending result of the callback of");
        target = promise_named(a, a.target);
      }
      if (a.fulfill)
        target->own.resolve(world_, JsValue(*a.value));
      else
        target->own.reject(world_, *a.value);
      return Flow::Next;
    }
    case Op::Terminate:
      terminate(environment);
      return Flow::Stop;
    case Op::Unload:
      environment->document_fully_active = false;
      locks_.unloading_document_cleanup_steps(environment);
      return Flow::Next;
    case Op::Run:
      world_.queue_a_task(environment, "script", [this, environment, &a] {
        start_async(environment, &a.body, nullptr, {});
      });
      return Flow::Next;
    case Op::SetTimeout:
      // html#timer-initialisation-steps: after the timeout, a task on the timer task source runs
      // it.
      world_.run_steps_after_a_timeout(a.ms, [this, environment, &a] {
        world_.queue_a_task(environment, kTimerTaskSource, [this, environment, &a] {
          start_async(environment, &a.body, nullptr, {});
        });
      });
      return Flow::Next;
    case Op::NewPromise:
      promises_[a.id] = new_promise(world_, environment);
      return Flow::Next;
    case Op::Then: {
      Promise* target = promise_named(a, a.target);
      Promise* derived = new_promise(world_, environment);
      perform_promise_then(
          world_, environment, target,
          [this, environment, &a](const Value&) {
            return Completion::normal(JsValue(start_async(environment, &a.body, nullptr, {})));
          },
          nullptr, derived);
      return Flow::Next;
    }
    case Op::QueueMicrotask:
      world_.queue_a_microtask(
          environment, [this, environment, &a] { start_async(environment, &a.body, nullptr, {}); });
      return Flow::Next;
    case Op::Await:
      return suspend_on(environment, promise_named(a, a.target), activation);
    case Op::Mark:
      world_.log(environment, "mark", {{"label", Value::string(a.label.view())}});
      return Flow::Next;
    case Op::AdvanceTime:
      break;  // top level only (the reader enforces it)
    default:
      return perform_scheduling(environment, a, activation);
  }
  throw InternalError(std::string("op ") + op_name(a.op) +
                      " reached the spec model unexpectedly at " + a.pointer);
}

// ECMA-262 #await: PromiseResolve, then resume from a reaction job. The reactions carry the
// continuation state current now (HostMakeJobCallback), which is how yield inherits across await.
TraceRunner::Flow TraceRunner::suspend_on(Environment* environment, Promise* awaited,
                                          const std::shared_ptr<Activation>& activation) {
  Promise* promise = promise_resolve(world_, environment, JsValue(awaited));
  std::shared_ptr<Activation> self = activation;
  perform_promise_then(
      world_, environment, promise,
      [this, self](const Value&) {
        resume(self);
        return Completion::normal(Value());
      },
      [this, self](const Value& reason) {
        // The await throws: the rest of the body is skipped and the function rejects (I-14).
        self->promise->own.reject(world_, reason);
        return Completion::normal(Value());
      },
      nullptr);
  return Flow::Suspend;
}

TaskSignal* TraceRunner::task_signal_named(const Action& user, const std::string& id) {
  auto* signal = dynamic_cast<TaskSignal*>(signal_named(user, id));
  if (!signal) throw InternalError("\"" + id + "\" is not a TaskSignal at " + user.pointer);
  return signal;
}

TraceRunner::Flow TraceRunner::perform_scheduling(Environment* environment, const Action& a,
                                                  const std::shared_ptr<Activation>& activation) {
  switch (a.op) {
    case Op::PostTask: {
      SchedulerPostTaskOptions options;
      options.priority = a.task_options->priority;
      if (a.task_options->signal) options.signal = signal_named(a, *a.task_options->signal);
      options.delay = a.task_options->delay.value_or(0);
      Promise* p =
          scheduling_.post_task(scheduling_.scheduler(environment),
                                CallbackFunction{environment, &*a.callback, a.id}, options);
      promises_[a.id] = p;
      observe(p, environment, a.id);
      return Flow::Next;
    }
    case Op::Yield: {
      // `await scheduler.yield()`: the promise is observed as soon as it exists, then awaited.
      Promise* p = scheduling_.yield(scheduling_.scheduler(environment));
      promises_[a.id] = p;
      observe(p, environment, a.id);
      return suspend_on(environment, p, activation);
    }
    case Op::NewTaskController: {
      TaskController* controller = scheduling_.new_task_controller(
          environment, a.priority.value_or(TaskPriority::UserVisible));
      controller->signal->trace_id = a.id;
      controllers_[a.id] = controller;
      task_controllers_[a.id] = controller;
      signals_[a.id] = controller->signal;
      return Flow::Next;
    }
    case Op::SetPriority: {
      auto it = task_controllers_.find(a.controller);
      if (it == task_controllers_.end()) not_created_yet(a, a.controller, "TaskController");
      if (auto thrown = scheduling_.set_priority(it->second, *a.priority))
        world_.log(environment, "threw",
                   {{"op", Value::string("setPriority")}, {"error", *thrown}});
      return Flow::Next;
    }
    case Op::TaskSignalAny: {
      std::vector<AbortSignal*> signals;
      for (const CompactString& id : *a.signals) signals.push_back(signal_named(a, id));
      TaskSignalAnyInit init;
      if (a.any_priority->signal)
        init.signal = task_signal_named(a, *a.any_priority->signal);
      else
        init.priority = a.any_priority->priority.value_or(TaskPriority::UserVisible);
      TaskSignal* signal = scheduling_.any(environment, signals, init);
      signal->trace_id = a.id;
      signals_[a.id] = signal;
      return Flow::Next;
    }
    case Op::OnPriorityChange: {
      TaskSignal* signal = task_signal_named(a, a.signal);
      signal->prioritychange_listeners.push_back(
          [this, environment, signal, &a](TaskPriority previous) {
            world_.log(environment, "prioritychange",
                       {{"signal", Value::string(a.signal.view())},
                        {"previousPriority", Value::string(task_priority_name(previous))},
                        {"priority", Value::string(task_priority_name(signal->priority))}});
            start_async(environment, &a.body, nullptr, {});
          });
      return Flow::Next;
    }
    case Op::RequestIdleCallback:
      scheduling_.request_idle_callback(environment,
                                        CallbackFunction{environment, &*a.callback, a.id});
      return Flow::Next;
    default:
      break;
  }
  throw InternalError(std::string("op ") + op_name(a.op) +
                      " reached the spec model unexpectedly at " + a.pointer);
}

}  // namespace lockstep::spec
