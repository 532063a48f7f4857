#include "runtime.h"

#include <algorithm>

#include "lockstep/replay_errors.h"

namespace lockstep::impl {

Runtime::Runtime(const Trace& trace)
    : pinned_(trace.schedule), schedule_pointer_(trace.schedule_pointer) {
  // Most steps log about one event: room for that up front spares the log's regrowth, which moves
  // every event logged so far (it cost a tenth of a long replay).
  log_.reserve(trace.steps.size() + trace.steps.size() / 4);
  for (const Agent& agent : trace.agents) {
    auto env = std::make_unique<Env>();
    env->agent = &agent;
    env->is_window = agent.kind == AgentKind::Window;
    auto loop = std::find_if(loops_.begin(), loops_.end(),
                             [&](const auto& l) { return l->name == agent.event_loop; });
    if (loop == loops_.end()) {
      loops_.push_back(std::make_unique<Loop>());
      loops_.back()->index = loops_.size() - 1;
      loops_.back()->name = agent.event_loop;
      loops_.back()->scheduler_unit = "loop:" + agent.event_loop + "/scheduler";
      loops_.back()->idle_unit = "loop:" + agent.event_loop + "/idle";
      loop = std::prev(loops_.end());
    }
    env->loop = loop->get();
    lock_queues_[agent.partition].unit_name = "locks:" + agent.partition;  // I-11
    env_by_id_.insert(agent.id, static_cast<std::uint32_t>(envs_.size()));
    envs_.push_back(std::move(env));
  }
  for (auto& [partition, queue] : lock_queues_) lock_queue_list_.push_back(&queue);
  for (auto& env : envs_) env->lock_queue = &lock_queues_.at(env->agent->partition);
}

Runtime::~Runtime() = default;

Env* Runtime::env(std::string_view id) {
  const std::uint32_t i = env_by_id_.find(
      id, [this](std::uint32_t e) -> const std::string& { return envs_[e]->agent->id; });
  return i == StringIndex::kNone ? nullptr : envs_[i].get();
}

// --- Promises (ECMA-262 #sec-promise-objects, HTML's host hooks with the scheduling patches) ---

Promise* Runtime::new_promise(Env* env) {
  Promise& p = promises_.emplace();
  p.env = env;
  return &p;
}

Reaction* Runtime::new_reaction() {
  if (!free_reactions_) return &reactions_.emplace();
  Reaction* r = free_reactions_;
  free_reactions_ = r->next;
  r->next = nullptr;
  return r;
}

void Runtime::free_reaction(Reaction* r) {
  r->on_fulfilled = nullptr;
  r->on_rejected = nullptr;
  r->derived = nullptr;
  r->continuation = nullptr;
  r->next = free_reactions_;
  free_reactions_ = r;
}

void Runtime::trigger(Promise* p, Reaction* reactions, bool fulfilled) {
  for (Reaction* reaction = reactions; reaction;) {
    Reaction* next = reaction->next;
    // HostEnqueuePromiseJob: a microtask of the handler's realm (I-28) that restores the
    // reaction's own continuation state.
    queue_microtask(
        reaction->env,
        [this, p, reaction, fulfilled] {
          const Value& argument = p->result;
          const Handler& handler = fulfilled ? reaction->on_fulfilled : reaction->on_rejected;
          Completion c;
          if (!handler) {
            c = Completion{!fulfilled, JsValue(argument)};
          } else {
            Loop& loop = *reaction->env->loop;
            loop.continuation = reaction->continuation;  // HostCallJobCallback
            c = handler(argument);
            loop.continuation = nullptr;
          }
          Promise* derived = reaction->derived;
          free_reaction(reaction);
          if (!derived) return;
          if (c.thrown)
            reject(derived, c.value.data);
          else
            resolve(derived, c.value);
        },
        /*ignore_continuation=*/true);
    reaction = next;
  }
}

void Runtime::settle_promise(Promise* p, Promise::State state, const Value& value) {
  p->result = value;
  p->state = state;
  Reaction* reactions = p->reactions;
  p->reactions = p->last_reaction = nullptr;
  trigger(p, reactions, state == Promise::State::Fulfilled);
}

void Runtime::resolve(Promise* p, const JsValue& value) {
  if (p->already_resolved) return;
  p->already_resolved = true;
  if (value.promise == p) {
    settle_promise(p, Promise::State::Rejected,
                   Value::dom_exception("TypeError", "chaining cycle"));
    return;
  }
  if (!value.promise) {
    settle_promise(p, Promise::State::Fulfilled, value.data);
    return;
  }
  // Adopting a promise takes a job that calls its then() (NewPromiseResolveThenableJob). The
  // resolving functions of that job are fresh, so they carry their own alreadyResolved flag.
  // Those functions are only ever called by the thenable's own reaction jobs here, and a promise
  // settles once, so at most one of them runs, once: their shared flag could never be seen set,
  // and is not kept. The promise that then() returns to the job is unreachable from script and
  // has no reactions, so its settlement is not observable either: none is made.
  Promise* thenable = value.promise;
  queue_microtask(
      thenable->env,  // the realm of the thenable's then (I-28)
      [this, p, thenable] {
        then(
            thenable->env, thenable,
            [this, p](const Value& v) {
              settle_promise(p, Promise::State::Fulfilled, v);
              return Completion{};
            },
            [this, p](const Value& r) {
              settle_promise(p, Promise::State::Rejected, r);
              return Completion{};
            },
            /*derived=*/nullptr);
      },
      /*ignore_continuation=*/true);
}

void Runtime::reject(Promise* p, const Value& reason) {
  if (p->already_resolved) return;
  p->already_resolved = true;
  settle_promise(p, Promise::State::Rejected, reason);
}

Promise* Runtime::promise_resolve(Env* env, const JsValue& x) {
  if (x.promise) return x.promise;
  Promise* p = new_promise(env);
  resolve(p, x);
  return p;
}

Promise* Runtime::promise_rejected_with(Env* env, const Value& reason) {
  Promise* p = new_promise(env);
  reject(p, reason);
  return p;
}

void Runtime::then(Env* env, Promise* p, Handler on_fulfilled, Handler on_rejected,
                   Promise* derived) {
  Reaction* reaction = new_reaction();
  reaction->env = env;
  reaction->derived = derived;
  reaction->on_fulfilled = std::move(on_fulfilled);
  reaction->on_rejected = std::move(on_rejected);
  // HostMakeJobCallback: a handler remembers the continuation state current now.
  reaction->continuation = env->loop->continuation;
  switch (p->state) {
    case Promise::State::Pending:
      (p->last_reaction ? p->last_reaction->next : p->reactions) = reaction;
      p->last_reaction = reaction;
      break;
    case Promise::State::Fulfilled:
      trigger(p, reaction, true);
      break;
    case Promise::State::Rejected:
      trigger(p, reaction, false);
      break;
  }
}

// --- Event loops ---

void Runtime::queue_task(Env* env, const char* source, Job job) {
  if (env->terminated) return;
  Loop& loop = *env->loop;
  // Sources are string literals, so the pointer usually matches; the text decides otherwise.
  auto it = std::find_if(loop.queues.begin(), loop.queues.end(),
                         [&](const auto& q) { return q.literal == source; });
  if (it == loop.queues.end())
    it = std::find_if(loop.queues.begin(), loop.queues.end(),
                      [&](const auto& q) { return q.source == source; });
  if (it == loop.queues.end()) {
    loop.queues.push_back(Loop::SourceQueue{source, source, RingQueue<LoopTask>{}});
    loop.unit_names.push_back("loop:" + loop.name + "/" + source);
    it = std::prev(loop.queues.end());
  }
  // A window whose document is no longer fully active has no runnable task again (I-9): such a
  // task would wait forever, so it is not kept. Its queue is made all the same, as the model makes
  // it, so that the loop's queues are listed in the model's order at choice points.
  if (env->is_window && !env->fully_active) return;
  it->tasks.push_back(LoopTask{next_seq_++, env, std::move(job)});
  ++loop.queued_tasks;
  wake(loop);
}

void Runtime::wake(Loop& loop) {
  if (loop.listed) return;
  loop.listed = true;
  auto at = std::lower_bound(maybe_busy_.begin(), maybe_busy_.end(), &loop,
                             [](const Loop* a, const Loop* b) { return a->index < b->index; });
  maybe_busy_.insert(at, &loop);
}

void Runtime::queue_microtask(Env* env, Job job, bool ignore_continuation) {
  if (env->terminated) return;
  Loop& loop = *env->loop;
  // The microtask carries the continuation state current now and makes it current while it runs.
  loop.microtasks.push_back(
      Loop::Microtask{env, loop.continuation, !ignore_continuation, std::move(job)});
}

void Runtime::lock_task(Env* env, Job job) {
  env->lock_queue->steps.emplace_back(next_seq_++, std::move(job));
  ++env->lock_queue->steps_enqueued;
}

void Runtime::after_timeout(std::uint64_t ms, Job job) {
  const std::uint64_t order = next_seq_++;
  timers_.emplace(now_ + ms, Timer{now_ + ms, order, std::move(job)});
}

void Runtime::set_continuation_value(Loop& loop, const void* key, const void* value) {
  loop.continuation = &continuation_nodes_.emplace(ContinuationNode{key, value, loop.continuation});
}

const void* Runtime::continuation_value(const Loop& loop, const void* key) const {
  for (const ContinuationNode* n = loop.continuation; n; n = n->next)
    if (n->key == key) return n->value;
  return nullptr;
}

void Runtime::checkpoint(Loop& loop) {
  if (loop.in_checkpoint) return;
  loop.in_checkpoint = true;
  while (!loop.microtasks.empty()) {
    Loop::Microtask microtask = std::move(loop.microtasks.front());
    loop.microtasks.pop_front();
    if (microtask.env->terminated) continue;
    if (microtask.restores_carried) loop.continuation = microtask.carried;
    microtask.job();
    if (microtask.restores_carried) loop.continuation = nullptr;
  }
  loop.in_checkpoint = false;
}

void Runtime::terminate(Env* env) {
  env->terminated = true;
  Loop& loop = *env->loop;
  drop_tasks_of(loop, env);
  loop.microtasks.erase_if([&](const Loop::Microtask& m) { return m.env == env; });
}

void Runtime::unload(Env* env) {
  env->fully_active = false;
  if (!env->is_window) return;
  drop_tasks_of(*env->loop, env);
}

void Runtime::drop_tasks_of(Loop& loop, const Env* env) {
  loop.queued_tasks = 0;
  for (auto& queue : loop.queues) {
    queue.tasks.erase_if([&](const LoopTask& t) { return t.env == env; });
    loop.queued_tasks += queue.tasks.size();
  }
}

// The units `loop` offers, in the order the model lists them within a loop: each task source's
// front task, then the scheduler's next task, and an idle period only on a loop with neither
// (I-19). Each goes to `visit`; returns how many.
template <class Visit>
std::size_t Runtime::visit_units_of(Loop& loop, const Visit& visit) {
  const std::size_t l = loop.index;
  std::size_t n = 0;
  for (std::size_t q = 0; loop.queued_tasks != 0 && q < loop.queues.size(); ++q) {
    const auto& tasks = loop.queues[q].tasks;
    if (tasks.empty()) continue;
    visit(Unit{Unit::Kind::Task, l, q, tasks.front().seq, -1, &loop.unit_names[q]});
    ++n;
  }
  if (!hooks_) return n;
  if (auto next = loop.scheduler.next()) {
    visit(Unit{Unit::Kind::Scheduler, l, 0, hooks_->task_seq(next->cookie),
               next->effective_priority, &loop.scheduler_unit});
    ++n;
  }
  if (n == 0)
    if (auto idle = hooks_->next_idle(loop)) {
      visit(Unit{Unit::Kind::Idle, l, 0, *idle, -1, &loop.idle_unit});
      ++n;
    }
  return n;
}

// `per_loop(loop)` for each loop that may have work, in loop order; it returns how many units the
// loop offers. A loop that offers none and has no scheduled task leaves the list until it gains
// work again (wake()).
template <class PerLoop>
void Runtime::visit_busy_loops(const PerLoop& per_loop) {
  std::size_t kept = 0;
  for (Loop* busy : maybe_busy_) {
    if (per_loop(*busy) != 0 || busy->scheduler.size() != 0)
      maybe_busy_[kept++] = busy;
    else
      busy->listed = false;
  }
  maybe_busy_.resize(kept);
}

void Runtime::collect_units() {
  units_.clear();
  for (std::size_t i = 0; i < lock_queue_list_.size(); ++i) {
    const LockQueue& q = *lock_queue_list_[i];
    if (!q.steps.empty())
      units_.push_back(Unit{Unit::Kind::Locks, i, 0, q.steps.front().first, -1, &q.unit_name});
  }
  const auto list = [this](const Unit& u) { units_.push_back(u); };
  visit_busy_loops([&](Loop& loop) { return visit_units_of(loop, list); });
}

// The units of units_ that `pin` names, into candidates_, the one canonical() picks among
// several (except for "locks", which is then ambiguous); a pin naming none or several is an error
// at /schedule/<next_pin_>, listing the runnable units (with `prefix`, as that pin spells them).
void Runtime::match_pin(const std::string& pin, const std::string& full_pin,
                        const std::string& prefix) {
  std::vector<std::size_t>& candidates = candidates_;
  candidates.clear();
  const bool any_lock_queue = pin == pins::kAnyLockQueue;
  const bool whole_loop = pin.rfind("loop:", 0) == 0 && pin.find('/') == std::string::npos;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const std::string& n = *units_[i].name;
    const bool match =
        any_lock_queue ? units_[i].kind == Unit::Kind::Locks
                       : n == pin || (whole_loop && n.size() > pin.size() &&
                                      n.compare(0, pin.size(), pin) == 0 && n[pin.size()] == '/');
    if (match) candidates.push_back(i);
  }
  if (candidates.size() > 1 && !any_lock_queue) candidates.assign(1, canonical(candidates));
  if (candidates.empty() || (any_lock_queue && candidates.size() > 1)) {
    std::vector<std::string> runnable;
    for (const Unit& u : units_) runnable.push_back(prefix + *u.name);
    throw ReplayFailure{bad_pin(next_pin_, full_pin, !candidates.empty(), std::move(runnable))};
  }
}

std::size_t Runtime::choose() {
  if (units_.size() == 1) return 0;
  if (next_pin_ < pinned_.size()) {
    const std::string& pin = pinned_[next_pin_];
    match_pin(pin, pin, "");
    ++next_pin_;
  } else {
    candidates_.clear();
    for (std::size_t i = 0; i < units_.size(); ++i) candidates_.push_back(i);
  }
  const std::size_t best = canonical(candidates_);
  choices_.push_back(units_[best].name);
  return best;
}

// I-26: before a step, what earlier steps left queued may run first, as "early:<unit>" pins say
// or a chooser offered these points picks (canonically, at the pin "step" and at any other pin,
// the step begins at once).
void Runtime::before_step() {
  static const std::string kEarly(pins::kEarly);
  static const std::string kStep(pins::kStep);
  for (;;) {
    const bool pinned_early =
        next_pin_ < pinned_.size() && pinned_[next_pin_].rfind(kEarly, 0) == 0;
    const bool pinned_step = next_pin_ < pinned_.size() && pinned_[next_pin_] == kStep;
    if (!pinned_early && !pinned_step &&
        !(next_pin_ >= pinned_.size() && chooser_ && offer_early_units_))
      return;
    collect_units();
    if (units_.empty()) return;  // no point here: a "step" pin waits for the next one (I-26)
    Unit unit;
    if (pinned_step) {
      ++next_pin_;
      choices_.push_back(&kStep);  // recorded as the model records it
      return;
    }
    if (pinned_early) {
      const std::string& pin = pinned_[next_pin_];
      match_pin(pin.substr(kEarly.size()), pin, kEarly);
      ++next_pin_;
      unit = units_[candidates_.front()];
    } else {
      order_as_the_model();
      ChoicePoint& point = choice_point_;
      point.before_step = true;
      point.idle_only = false;
      point.canonical = 0;
      point.names.resize(units_.size() + 1);
      point.names[0] = kStep;
      for (std::size_t k = 0; k < model_order_.size(); ++k)
        point.names[k + 1].assign(kEarly).append(*units_[model_order_[k]].name);
      point.proposals.clear();
      for (std::size_t k = 0; k < point.names.size(); ++k) point.proposals.push_back(k);
      const std::size_t picked = chooser_(point);
      if (picked >= point.names.size())
        throw EngineFault{"a chooser picked " + std::to_string(picked) + " of " +
                          std::to_string(point.names.size()) + " before a step"};
      if (picked == 0) {
        choices_.push_back(&kStep);
        return;
      }
      unit = units_[model_order_[picked - 1]];
    }
    choices_.push_back(&early_names_.emplace_back(kEarly + *unit.name));
    run_chosen_unit(unit);
  }
}

// The canonical policy (I-1, I-2, I-17): per loop, the scheduler's task goes ahead of the loop's
// other tasks at effective priority 3 or more and behind them at 1 or less, by age at 2; idle work
// goes behind everything of its loop. Then the oldest proposal runs.
std::size_t Runtime::canonical(const std::vector<std::size_t>& candidates) const {
  std::size_t best = units_.size();
  for (std::size_t i : candidates)
    if (!dominated(i, candidates) && (best == units_.size() || units_[i].seq < units_[best].seq))
      best = i;
  return best;
}

bool Runtime::dominated(std::size_t i, const std::vector<std::size_t>& candidates) const {
  const Unit& u = units_[i];
  if (u.kind == Unit::Kind::Locks) return false;
  for (std::size_t j : candidates) {
    const Unit& v = units_[j];
    if (j == i || v.kind == Unit::Kind::Locks || v.index != u.index) continue;
    const bool u_sched = u.kind == Unit::Kind::Scheduler;
    const bool v_sched = v.kind == Unit::Kind::Scheduler;
    const bool v_idle = v.kind == Unit::Kind::Idle;
    if (u.kind == Unit::Kind::Idle) return true;  // idle yields to anything of its loop
    if (v_sched && v.priority >= 3) return true;
    if (u_sched && u.priority >= 3) continue;
    if (u_sched && u.priority <= 1 && !v_idle) return true;
    if (v_sched && v.priority <= 1) continue;
    if (!v_idle && v.seq < u.seq) return true;
  }
  return false;
}

// The model lists the lock queues, then each loop's task queues loop by loop, then each loop's
// scheduler or idle period (a loop offers one of those two, never both: I-19). collect_units()
// lists a loop's units together, in loop order, so a stable partition by kind gives that order.
void Runtime::order_as_the_model() {
  model_order_.clear();
  const auto group = [](Unit::Kind k) {
    return k == Unit::Kind::Locks ? 0 : k == Unit::Kind::Task ? 1 : 2;
  };
  for (int g = 0; g < 3; ++g)
    for (std::size_t i = 0; i < units_.size(); ++i)
      if (group(units_[i].kind) == g) model_order_.push_back(i);
}

std::size_t Runtime::choose_by_chooser() {
  if (units_.size() == 1) return 0;  // not a choice point
  order_as_the_model();
  ChoicePoint& point = choice_point_;
  point.before_step = point.idle_only = false;
  point.names.resize(units_.size());
  point.proposals.clear();
  candidates_.clear();
  for (std::size_t i = 0; i < units_.size(); ++i) candidates_.push_back(i);
  std::size_t best = 0;
  for (std::size_t k = 0; k < model_order_.size(); ++k) {
    const std::size_t i = model_order_[k];
    point.names[k] = *units_[i].name;
    if (dominated(i, candidates_)) continue;
    if (point.proposals.empty() || units_[i].seq < units_[model_order_[best]].seq) best = k;
    point.proposals.push_back(k);
  }
  point.canonical = best;
  const std::size_t picked = chooser_(point);
  if (picked >= units_.size())
    throw EngineFault{"a chooser picked unit " + std::to_string(picked) + " of " +
                      std::to_string(units_.size())};
  choices_.push_back(units_[model_order_[picked]].name);
  return model_order_[picked];
}

void Runtime::run_chosen_unit(const Unit& unit) {
  if (before_unit_) before_unit_(*unit.name);
  run_unit(unit);
  if (after_unit_) after_unit_();
}

void Runtime::run_unit(const Unit& unit) {
  switch (unit.kind) {
    case Unit::Kind::Locks: {
      LockQueue& q = *lock_queue_list_[unit.index];
      Job job = std::move(q.steps.front().second);
      q.steps.pop_front();
      job();
      return;
    }
    case Unit::Kind::Task: {
      Loop& loop = *loops_[unit.index];
      auto& tasks = loop.queues[unit.queue].tasks;
      LoopTask task = std::move(tasks.front());
      tasks.pop_front();
      --loop.queued_tasks;
      task.job();
      checkpoint(loop);
      return;
    }
    case Unit::Kind::Scheduler: {
      Loop& loop = *loops_[unit.index];
      auto next = loop.scheduler.pop();
      hooks_->run_task(loop, next->cookie);
      checkpoint(loop);
      return;
    }
    case Unit::Kind::Idle: {
      Loop& loop = *loops_[unit.index];
      hooks_->run_idle(loop);
      checkpoint(loop);
      return;
    }
  }
}

// settle()'s choice when no pinned choice is left and no chooser decides, which is every unit of
// a trace without a schedule: the unit choose() would pick, found in one walk over the lock
// queues and the loops with work, without listing the units. canonical() only ever compares units
// of one loop with each other, so each loop has one unit that nothing of its loop dominates (the
// rules of canonical(), case by case, below); the oldest of those and of the lock queues' fronts
// wins. Returns how many units there were; with none, `chosen` is left as it was.
std::size_t Runtime::choose_canonically(Unit& chosen) {
  std::size_t count = 0;
  bool found = false;
  const auto consider = [&](const Unit& u) {
    if (!found || u.seq < chosen.seq) chosen = u;
    found = true;
  };
  for (std::size_t i = 0; i < lock_queue_list_.size(); ++i) {
    const LockQueue& q = *lock_queue_list_[i];
    if (q.steps.empty()) continue;
    ++count;
    consider(Unit{Unit::Kind::Locks, i, 0, q.steps.front().first, -1, &q.unit_name});
  }
  visit_busy_loops([&](Loop& loop) {
    Unit oldest_task{}, scheduled{}, idle{};
    bool has_task = false, has_scheduled = false;
    const std::size_t n = visit_units_of(loop, [&](const Unit& u) {
      if (u.kind == Unit::Kind::Scheduler) {
        scheduled = u;
        has_scheduled = true;
      } else if (u.kind == Unit::Kind::Idle) {
        idle = u;  // alone on its loop (I-19)
      } else if (!has_task || u.seq < oldest_task.seq) {
        oldest_task = u;
        has_task = true;
      }
    });
    count += n;
    if (n == 0) return n;
    if (!has_scheduled && !has_task)
      consider(idle);
    else if (!has_scheduled)
      consider(oldest_task);
    else if (!has_task || scheduled.priority >= 3)
      consider(scheduled);  // at 3 or more the scheduler's task goes first
    else if (scheduled.priority <= 1)
      consider(oldest_task);  // at 1 or less it goes behind the loop's tasks
    else                      // at 2, by age
      consider(scheduled.seq < oldest_task.seq ? scheduled : oldest_task);
    return n;
  });
  if (count > 1) choices_.push_back(chosen.name);  // as choose() records them
  return count;
}

void Runtime::settle() {
  for (std::uint64_t guard = 0; guard < 100'000'000; ++guard) {
    if (next_pin_ >= pinned_.size() && !chooser_) {  // nothing is put off then (I-27)
      Unit unit{};
      if (choose_canonically(unit) == 0) return;
      run_chosen_unit(unit);
      continue;
    }
    collect_units();
    if (units_.empty() || puts_off_idle_periods()) return;
    // A pinned "idle" may have taken the last pin just now: then choose() picks canonically.
    const Unit unit =
        units_[next_pin_ >= pinned_.size() && chooser_ ? choose_by_chooser() : choose()];
    run_chosen_unit(unit);  // a copy: the unit's job may list units again
  }
  throw std::runtime_error("the world did not settle within 10^8 units");
}

// I-27: where nothing but idle periods could start, the pin "settled" ends the settling with them
// put off (canonically, and at the pin "idle", they start).
bool Runtime::puts_off_idle_periods() {
  static const std::string kSettled(pins::kSettled);
  static const std::string kIdle(pins::kIdle);
  const bool pinned = next_pin_ < pinned_.size();
  if (pinned && pinned_[next_pin_] != kSettled && pinned_[next_pin_] != kIdle) return false;
  if (!pinned && !(chooser_ && offer_putting_off_idle_)) return false;
  for (const Unit& u : units_)
    if (u.kind != Unit::Kind::Idle) return false;
  if (pinned) {
    const bool put_off = pinned_[next_pin_] == kSettled;
    ++next_pin_;
    choices_.push_back(put_off ? &kSettled : &kIdle);
    return put_off;
  }
  ChoicePoint& point = choice_point_;
  point.before_step = false;
  point.idle_only = true;
  point.names = {kIdle, kSettled};
  point.proposals = {0, 1};  // a choice the UA is given, not an order the specs recommend
  point.canonical = 0;
  const std::size_t picked = chooser_(point);
  if (picked > 1)
    throw EngineFault{"a chooser picked " + std::to_string(picked) +
                      " of 2 where only idle periods could start"};
  choices_.push_back(picked == 1 ? &kSettled : &kIdle);
  return picked == 1;
}

void Runtime::advance_time(std::uint64_t ms) {
  const std::uint64_t target = now_ + ms;
  while (!timers_.empty() && timers_.begin()->first <= target) {
    now_ = timers_.begin()->first;
    std::vector<Job> due;
    auto range = timers_.equal_range(now_);
    for (auto it = range.first; it != range.second; ++it) due.push_back(std::move(it->second.job));
    timers_.erase(range.first, range.second);
    for (Job& job : due) job();
    settle();
  }
  now_ = target;
}

// --- Signals (dom#aborting-ongoing-activities) ---

Signal* Runtime::new_signal(Env* env) {
  Signal& s = signals_.emplace();
  s.env = env;
  return &s;
}

int Runtime::add_algorithm(Signal* s, Job job) {
  if (s->aborted()) return 0;
  const int handle = s->next_handle++;
  s->algorithms.emplace(handle, std::move(job));
  return handle;
}

void Runtime::remove_algorithm(Signal* s, int handle) {
  s->algorithms.erase(handle);
}

void Runtime::signal_abort(Signal* s, Value reason) {
  if (s->aborted()) return;
  s->reason = reason.is_undefined()
                  ? Value::dom_exception("AbortError", "signal is aborted without reason")
                  : std::move(reason);
  std::vector<Signal*> to_abort;
  for (Signal* d : s->dependents) {
    if (d->aborted()) continue;
    d->reason = s->reason;
    to_abort.push_back(d);
  }
  const auto run_abort_steps = [](Signal* signal) {
    auto algorithms = std::move(signal->algorithms);
    signal->algorithms.clear();
    for (auto& [handle, job] : algorithms) job();
  };
  run_abort_steps(s);
  for (Signal* d : to_abort) run_abort_steps(d);
}

void Runtime::make_dependent(Signal* result, const std::vector<Signal*>& signals) {
  for (Signal* s : signals)
    if (s->aborted()) {
      result->reason = s->reason;
      return;
    }
  result->dependent = true;
  const auto add_unique = [](std::vector<Signal*>& set, Signal* item) {
    if (std::find(set.begin(), set.end(), item) == set.end()) set.push_back(item);
  };
  for (Signal* s : signals) {
    if (!s->dependent) {
      add_unique(result->sources, s);
      add_unique(s->dependents, result);
    } else {
      for (Signal* source : s->sources) {
        add_unique(result->sources, source);
        add_unique(source->dependents, result);
      }
    }
  }
}

std::vector<std::string> Runtime::take_choices() const {
  std::vector<std::string> names;
  names.reserve(choices_.size());
  for (const std::string* name : choices_) names.push_back(*name);
  return names;
}

void Runtime::log(Env* env, const char* event, Members members) {
  if (!logging_) return;
  log_.record(step_, &env->agent->id, event, std::move(members));
}

}  // namespace lockstep::impl
