#include "runner.h"

#include "lockstep/replay_errors.h"

namespace lockstep::impl {
namespace {

Priority to_priority(TaskPriority p) {
  switch (p) {
    case TaskPriority::UserBlocking:
      return Priority::UserBlocking;
    case TaskPriority::UserVisible:
      return Priority::UserVisible;
    case TaskPriority::Background:
      return Priority::Background;
  }
  return Priority::UserVisible;
}

const char* priority_name(Priority p) {
  return task_priority_name(p == Priority::UserBlocking  ? TaskPriority::UserBlocking
                            : p == Priority::UserVisible ? TaskPriority::UserVisible
                                                         : TaskPriority::Background);
}

}  // namespace

// A running body: an async function suspended at an await, or a plain function running through.
struct Runner::Activation {
  Env* env = nullptr;
  Runner::Code code;
  std::size_t pc = 0;
  Promise* promise = nullptr;          // the async function's promise; null for a plain function
  const Callback* callback = nullptr;  // its result; null for `async () => body`
  const CallbackRef* owner = nullptr;  // the callback's request or task; null for other bodies
};

Runner::Runner(const Trace& trace)
    : trace_(trace),
      rt_(trace),
      locks_(rt_, *this, trace.readings.released_promise),
      scheduling_(rt_, *this, trace.readings.stale_removal) {
  named_.reserve(trace_.steps.size());
  compiled_.reserve(trace_.steps.size());
  step_envs_.reserve(trace_.steps.size());
  std::vector<bool> settles;  // each top-level step's flag, read by compile()'s walk
  settles.reserve(trace_.steps.size());
  compile(trace_.steps, &settles);
  settling_steps_ = settling_steps(settles);  // I-26
  for (const LateReference& late : late_) {
    CompiledAction& c = compiled_[late.action];
    Named* n = named(late.id);  // still null if no action makes it: the replay says so
    (late.slot == -2   ? c.ref
     : late.slot == -1 ? c.option_signal
                       : c.signals[static_cast<std::size_t>(late.slot)]) = n;
  }
  for (CompiledAction& c : compiled_) {  // the list is complete: point at the bodies
    if (c.body_at) c.body = compiled_.data() + c.body_at;
    if (c.callback_body_at) c.callback_body = compiled_.data() + c.callback_body_at;
  }
}

Named* Runner::named(std::string_view id) {
  if (id.empty()) return nullptr;
  const std::uint32_t n =
      named_.find(id, [this](std::uint32_t i) { return by_ordinal_[i]->id.view(); });
  return n == StringIndex::kNone ? nullptr : by_ordinal_[n];
}

// A reference from compiled_[action]: the record of `id`, or null for now (and once more after the
// walk) if no action met so far makes it.
Named* Runner::resolve(std::string_view id, std::size_t action, int slot) {
  Named* n = named(id);
  if (!n && !id.empty()) late_.push_back(LateReference{action, slot, id});
  return n;
}

// Lays out `body`'s actions contiguously, then each one's nested bodies after them (depth first,
// as for_each_action meets them); returns the index of the first. Each action that makes an id
// gets its record here.
std::size_t Runner::compile(const std::vector<Action>& body, std::vector<bool>* settles) {
  const std::size_t first = compiled_.size();
  compiled_.resize(first + body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    const Action& a = body[i];
    const std::size_t at = first + i;  // compiled_ grows below: no reference into it is kept
    if (settles) {  // the top level: what run_top_level needs, read while the action is in cache
      step_envs_.push_back(rt_.env(a.agent));
      settles->push_back(a.settle);
    }
    if (!a.id.empty()) {
      Named* n = &names_.emplace(Named{&a, ShortId(a.id), a.op});
      named_.insert(a.id, static_cast<std::uint32_t>(by_ordinal_.size()));
      by_ordinal_.push_back(n);
      compiled_[at].id = n;
    }
    compiled_[at].ref = resolve(!a.target.empty()   ? a.target
                                : !a.signal.empty() ? a.signal
                                                    : a.controller,
                                at, -2);
    const std::optional<CompactString>& option_signal =
        a.lock_options && a.lock_options->signal ? a.lock_options->signal
        : a.task_options->signal                 ? a.task_options->signal
                                                 : a.any_priority->signal;
    if (option_signal) compiled_[at].option_signal = resolve(*option_signal, at, -1);
    for (std::size_t s = 0; s < a.signals->size(); ++s)
      compiled_[at].signals.push_back(resolve((*a.signals)[s], at, static_cast<int>(s)));
    if (a.callback) {
      const std::size_t callback_body = compile(a.callback->body);
      compiled_[at].callback_body_at = callback_body;
    }
    if (!a.body.empty()) {
      const std::size_t nested = compile(a.body);
      compiled_[at].body_at = nested;
    }
  }
  return first;
}

RunResult Runner::run() {
  for (std::size_t i = 0; i < trace_.steps.size(); ++i)
    run_top_level(static_cast<int>(i), trace_.steps[i]);
  rt_.settle();
  RunResult result;
  result.log = rt_.take_log();
  result.choices = rt_.take_choices();
  return result;
}

// TRACE_FORMAT `terminate` (I-10), and a window closed while another agent keeps its event loop
// running under "closed-window-jobs": "run" (I-29): its document is no longer fully active (its
// tasks go), its microtasks still run. The model's TraceRunner::terminate says why.
void Runner::end_agent(Env* env) {
  if (trace_.realm_outlives_closing(*env->agent)) {
    rt_.unload(env);
    env->closed = true;
  } else {
    rt_.terminate(env);
  }
  scheduling_.deactivate(env);
  locks_.terminate_remaining_locks_and_requests(env);
}

void Runner::unload(Env* env) {
  rt_.unload(env);
  if (env->is_window) scheduling_.deactivate(env);
  locks_.terminate_remaining_locks_and_requests(env);
}

void Runner::run_top_level(int index, const Action& step) {
  // I-26: queued work the pins run first carries the settling step under way, as in the model.
  rt_.set_stamp_step(settling_steps_[static_cast<std::size_t>(index)]);
  rt_.before_step();
  rt_.set_current_step(index);
  if (step.op == Op::AdvanceTime) {
    rt_.advance_time(step.ms);
    return;
  }
  Env* env = step_envs_[static_cast<std::size_t>(index)];
  if (env->ended_in_step >= 0)
    throw ReplayFailure{Error{step.pointer + "/agent",
                              "agent \"" + step.agent + "\" terminated during step " +
                                  std::to_string(env->ended_in_step) + " and runs no more script"}};
  const CompiledAction& c = compiled_[static_cast<std::size_t>(index)];
  if (step.op == Op::Terminate) {
    end_agent(env);
    env->ended_in_step = index;
  } else if (step.op == Op::Unload) {
    unload(env);
  } else if (env->closed) {
    // closed by script during an earlier step (I-29): as a terminated agent's, its step runs
    // nothing
  } else if (step.op == Op::Run) {
    rt_.run_task_now(env, [&] { start_async(env, Code{&step.body, c.body}, nullptr, nullptr); });
  } else {
    rt_.run_task_now(env, [&] { perform(env, step, c, nullptr); });
  }
  if ((env->terminated || env->closed) && env->ended_in_step < 0) env->ended_in_step = index;
  if (step.settle) rt_.settle();
}

// The events of callbacks and settlements are recorded as the trace ids they name, and only when
// the runtime keeps a log (check's search turns it off along a prefix it has matched already).
Completion Runner::call_lock_granted_callback(const CallbackRef& callback, const Value& lock_info) {
  rt_.log_callback(callback.env, "callback", "request", callback.owner, true, lock_info);
  return call_callback(callback);
}

Completion Runner::call_post_task_callback(const CallbackRef& callback) {
  rt_.log_callback(callback.env, "task", "task", callback.owner);
  return call_callback(callback);
}

void Runner::call_idle_request_callback(const CallbackRef& callback) {
  rt_.log_callback(callback.env, "idle", "id", callback.owner);
  call_callback(callback);
}

Completion Runner::call_callback(const CallbackRef& callback) {
  const Code code{&callback.callback->body, callback.owner_action->callback_body};
  Completion c =
      call_function(callback.env, code, callback.callback, &callback, callback.callback->is_async);
  rt_.clean_up_after_running_script(callback.env);
  return c;
}

Completion Runner::call_function(Env* env, Code code, const Callback* callback,
                                 const CallbackRef* owner, bool is_async) {
  if (is_async) return Completion{false, JsValue(start_async(env, code, callback, owner))};
  // A plain function runs through: the reader makes every body that awaits or yields async, so
  // nothing keeps this activation past the call and it lives on the stack (the shared_ptr below
  // owns nothing; suspend_on refuses such an activation rather than keep a dangling one).
  Activation frame{env, code, 0, nullptr, callback, owner};
  const std::shared_ptr<Activation> activation(std::shared_ptr<Activation>(), &frame);
  const std::vector<Action>& body = *code.body;
  for (; activation->pc < body.size(); ++activation->pc)
    if (perform(env, body[activation->pc], code.compiled[activation->pc], activation) == Flow::Stop)
      return Completion{};
  return finish(*activation);
}

Promise* Runner::start_async(Env* env, Code code, const Callback* callback,
                             const CallbackRef* owner) {
  Promise* promise = rt_.new_promise(env);
  auto activation =
      std::make_shared<Activation>(Activation{env, code, 0, promise, callback, owner});
  resume(activation);
  return promise;
}

void Runner::resume(const std::shared_ptr<Activation>& activation) {
  const std::vector<Action>& body = *activation->code.body;
  while (activation->pc < body.size()) {
    const std::size_t pc = activation->pc;
    Flow flow = perform(activation->env, body[pc], activation->code.compiled[pc], activation);
    ++activation->pc;
    if (flow != Flow::Next) return;
  }
  Completion c = finish(*activation);
  if (c.thrown)
    rt_.reject(activation->promise, c.value.data);
  else
    rt_.resolve(activation->promise, c.value);
}

Completion Runner::finish(Activation& activation) {
  if (!activation.callback) return Completion{};
  switch (activation.callback->result) {
    case Callback::Result::Return:
      return Completion{false, JsValue(*activation.callback->value)};
    case Callback::Result::Throw:
      return Completion{true, JsValue(*activation.callback->value)};
    case Callback::Result::Pending: {
      Promise* pending = rt_.new_promise(activation.env);
      activation.owner->owner_action->id->pending_result = pending;
      return Completion{false, JsValue(pending)};
    }
  }
  return Completion{};
}

// The reactions carry a copy of the id (short_id.h): they run when the promise settles, long after
// the action that named it. The copy is taken from the id's record, which the caller has just
// written, rather than from the action, whose text may not be in cache.
void Runner::observe(Promise* promise, Env* env, const ShortId& id) {
  const auto logger = [this, env, id](bool fulfilled) {
    return [this, env, id, fulfilled](const Value& v) {
      rt_.log_settled(env, id, fulfilled, v);
      return Completion{};
    };
  };
  static_assert(Handler::fits<decltype(logger(true))>(),
                "the settled logger must stay inside its Handler, or each request allocates");
  rt_.then(env, promise, logger(true), logger(false), nullptr);
}

void Runner::not_created_yet(const Action& user, std::string_view id, const std::string& what,
                             const Named* n) {
  throw ReplayFailure{lockstep::not_created_yet(user, id, what, n ? n->definition : nullptr)};
}

Promise* Runner::promise_named(const Action& user, std::string_view id, const Named* n) {
  if (!n || !n->promise) not_created_yet(user, id, "promise", n);
  return n->promise;
}

Signal* Runner::signal_named(const Action& user, std::string_view id, const Named* n) {
  if (!n || !n->signal) not_created_yet(user, id, "signal", n);
  return n->signal;
}

Signal* Runner::task_signal_named(const Action& user, std::string_view id, const Named* n) {
  Signal* signal = signal_named(user, id, n);
  if (!signal->is_task_signal)
    throw EngineFault{"\"" + std::string(id) + "\" is not a TaskSignal at " + user.pointer};
  return signal;
}

Runner::Flow Runner::perform(Env* env, const Action& a, const CompiledAction& c,
                             const std::shared_ptr<Activation>& activation) {
  switch (a.op) {
    case Op::Request: {
      LockRequestOptions options;
      if (a.lock_options) {
        options.mode = a.lock_options->mode == LockMode::Exclusive ? Mode::Exclusive : Mode::Shared;
        options.if_available = a.lock_options->if_available;
        options.steal = a.lock_options->steal;
        if (a.lock_options->signal)
          options.signal = signal_named(a, *a.lock_options->signal, c.option_signal);
      }
      Promise* p = locks_.request(env, a.name, options, CallbackRef{env, &*a.callback, a.id, &c});
      c.id->promise = p;
      observe(p, env, c.id->id);
      return Flow::Next;
    }
    case Op::Query: {
      Promise* p = locks_.query(env);
      c.id->promise = p;
      observe(p, env, c.id->id);
      return Flow::Next;
    }
    case Op::NewAbortController: {
      Signal* signal = rt_.new_signal(env);
      signal->trace_id = a.id;
      Named& n = *c.id;
      n.controller = n.signal = signal;
      return Flow::Next;
    }
    case Op::Abort: {
      const Named* n = c.ref;
      if (!n || !n->controller) not_created_yet(a, a.signal, "controller", n);
      rt_.signal_abort(n->controller, a.reason ? *a.reason : Value());
      return Flow::Next;
    }
    case Op::TimeoutSignal: {
      Signal* signal = rt_.new_signal(env);
      signal->trace_id = a.id;
      // dom#dom-abortsignal-timeout: a timer task aborts it with a TimeoutError.
      rt_.after_timeout(a.ms, [this, env, signal] {
        rt_.queue_task(env, "timer", [this, signal] {
          rt_.signal_abort(signal, Value::dom_exception("TimeoutError", "signal timed out"));
        });
      });
      c.id->signal = signal;
      return Flow::Next;
    }
    case Op::Settle: {
      Promise* target = nullptr;
      const Named* n = c.ref;
      if (n && n->op == Op::NewPromise) {
        target = promise_named(a, a.target, n);
      } else {
        if (!n || !n->pending_result)
          not_created_yet(a, a.target, "the pending result of the callback of", n);
        target = n->pending_result;
      }
      if (a.fulfill)
        rt_.resolve(target, JsValue(*a.value));
      else
        rt_.reject(target, *a.value);
      return Flow::Next;
    }
    case Op::Terminate:
      end_agent(env);
      return Flow::Stop;
    case Op::Unload:
      unload(env);
      return Flow::Next;
    case Op::Run:
      rt_.queue_task(env, "script", [this, env, &a, &c] {
        start_async(env, Code{&a.body, c.body}, nullptr, nullptr);
      });
      return Flow::Next;
    case Op::SetTimeout:
      rt_.after_timeout(a.ms, [this, env, &a, &c] {
        rt_.queue_task(env, "timer", [this, env, &a, &c] {
          start_async(env, Code{&a.body, c.body}, nullptr, nullptr);
        });
      });
      return Flow::Next;
    case Op::NewPromise:
      c.id->promise = rt_.new_promise(env);
      return Flow::Next;
    case Op::Then: {
      Promise* target = promise_named(a, a.target, c.ref);
      Promise* derived = rt_.new_promise(env);
      rt_.then(
          env, target,
          [this, env, &a, &c](const Value&) {
            return Completion{false,
                              JsValue(start_async(env, Code{&a.body, c.body}, nullptr, nullptr))};
          },
          nullptr, derived);
      return Flow::Next;
    }
    case Op::QueueMicrotask:
      rt_.queue_microtask(env, [this, env, &a, &c] {
        start_async(env, Code{&a.body, c.body}, nullptr, nullptr);
      });
      return Flow::Next;
    case Op::Await:
      return suspend_on(env, promise_named(a, a.target, c.ref), activation);
    case Op::Mark:
      rt_.log(env, "mark", members_of("label", Value::string(a.label.view())));
      return Flow::Next;
    case Op::AdvanceTime:
      break;
    default:
      return perform_scheduling(env, a, c, activation);
  }
  throw EngineFault{std::string("op ") + op_name(a.op) +
                    " reached the impl engine unexpectedly at " + a.pointer};
}

// ECMA-262 #await: PromiseResolve, then resume from a reaction job that carries the continuation
// state current now.
Runner::Flow Runner::suspend_on(Env* env, Promise* awaited,
                                const std::shared_ptr<Activation>& activation) {
  if (activation.use_count() == 0)
    throw EngineFault{"a function that is not async suspends at " +
                      (*activation->code.body)[activation->pc].pointer};
  Promise* promise = rt_.promise_resolve(env, JsValue(awaited));
  std::shared_ptr<Activation> self = activation;
  rt_.then(
      env, promise,
      [this, self](const Value&) {
        resume(self);
        return Completion{};
      },
      [this, self](const Value& reason) {
        rt_.reject(self->promise, reason);
        return Completion{};
      },
      nullptr);
  return Flow::Suspend;
}

Runner::Flow Runner::perform_scheduling(Env* env, const Action& a, const CompiledAction& c,
                                        const std::shared_ptr<Activation>& activation) {
  switch (a.op) {
    case Op::PostTask: {
      std::optional<Priority> priority;
      if (a.task_options->priority) priority = to_priority(*a.task_options->priority);
      Signal* signal = a.task_options->signal
                           ? signal_named(a, *a.task_options->signal, c.option_signal)
                           : nullptr;
      Promise* p = scheduling_.post_task(env, CallbackRef{env, &*a.callback, a.id, &c}, priority,
                                         signal, a.task_options->delay.value_or(0));
      c.id->promise = p;
      observe(p, env, c.id->id);
      return Flow::Next;
    }
    case Op::Yield: {
      Promise* p = scheduling_.yield(env);
      c.id->promise = p;
      observe(p, env, c.id->id);
      return suspend_on(env, p, activation);
    }
    case Op::NewTaskController: {
      Signal* signal = scheduling_.new_task_controller(
          env, to_priority(a.priority.value_or(TaskPriority::UserVisible)));
      signal->trace_id = a.id;
      Named& n = *c.id;
      n.controller = n.task_controller = n.signal = signal;
      return Flow::Next;
    }
    case Op::SetPriority: {
      const Named* n = c.ref;
      if (!n || !n->task_controller) not_created_yet(a, a.controller, "TaskController", n);
      if (auto thrown = scheduling_.set_priority(n->task_controller, to_priority(*a.priority)))
        rt_.log(env, "threw", members_of("op", Value::string("setPriority"), "error", *thrown));
      return Flow::Next;
    }
    case Op::TaskSignalAny: {
      std::vector<Signal*> signals;
      for (std::size_t i = 0; i < a.signals->size(); ++i)
        signals.push_back(signal_named(a, (*a.signals)[i], c.signals[i]));
      std::optional<Priority> priority;
      Signal* source = nullptr;
      if (a.any_priority->signal)
        source = task_signal_named(a, *a.any_priority->signal, c.option_signal);
      else
        priority = to_priority(a.any_priority->priority.value_or(TaskPriority::UserVisible));
      Signal* signal = scheduling_.any(env, signals, priority, source);
      signal->trace_id = a.id;
      c.id->signal = signal;
      return Flow::Next;
    }
    case Op::OnPriorityChange: {
      Signal* signal = task_signal_named(a, a.signal, c.ref);
      signal->prioritychange_listeners.push_back([this, env, signal, &a, &c](Priority previous) {
        rt_.log(env, "prioritychange",
                members_of("signal", Value::string(a.signal.view()), "previousPriority",
                           Value::string(priority_name(previous)), "priority",
                           Value::string(priority_name(signal->priority))));
        start_async(env, Code{&a.body, c.body}, nullptr, nullptr);
      });
      return Flow::Next;
    }
    case Op::RequestIdleCallback:
      scheduling_.request_idle_callback(env, CallbackRef{env, &*a.callback, a.id, &c});
      return Flow::Next;
    default:
      break;
  }
  throw EngineFault{std::string("op ") + op_name(a.op) +
                    " reached the impl engine unexpectedly at " + a.pointer};
}

}  // namespace lockstep::impl
