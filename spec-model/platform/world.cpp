#include "world.h"

#include <algorithm>

#include "errors.h"
#include "lockstep/replay_errors.h"

namespace lockstep::spec {

// A unit is what one scheduling decision runs (I-1): one step set of a lock task queue, or one
// event-loop iteration taking the first runnable task of one task source.
struct World::Unit {
  ParallelQueue* queue = nullptr;
  EventLoop* loop = nullptr;
  std::string source;  // a task source, or "scheduler" or "idle"
  std::uint64_t seq = 0;
  // As a schedule names it: "locks:<partition>" or "loop:<L>/<source>"; World keeps the text.
  const std::string* name = nullptr;
  int effective_priority = -1;  // the scheduler queue's, for "scheduler" units (I-17)
};

namespace {
constexpr const char* kSchedulerUnit = "scheduler";
constexpr const char* kIdleUnit = "idle";
}  // namespace

World::World() = default;
World::~World() = default;

Environment* World::add_environment(const Agent& agent) {
  auto env = std::make_unique<Environment>();
  env->trace_agent = &agent;
  env->id = agent.id;
  env->origin = agent.origin;
  env->partition = agent.partition;
  env->is_window = agent.kind == AgentKind::Window;
  env->event_loop = event_loop(agent.event_loop);
  if (!env->event_loop) {
    event_loops_.push_back(std::make_unique<EventLoop>(agent.event_loop));
    env->event_loop = event_loops_.back().get();
  }
  lock_task_queue(agent.partition);  // each partition is a user agent with its own queue (I-11)
  Environment* raw = env.get();
  environments_[agent.id] = std::move(env);
  return raw;
}

Environment* World::environment(const std::string& id) {
  auto it = environments_.find(id);
  return it == environments_.end() ? nullptr : it->second.get();
}

EventLoop* World::event_loop(const std::string& name) {
  for (auto& loop : event_loops_)
    if (loop->name == name) return loop.get();
  return nullptr;
}

const std::uint64_t* World::lock_steps_enqueued(const std::string& partition) const {
  const auto found = lock_task_queues_.find(partition);
  return found == lock_task_queues_.end() ? nullptr : &found->second.steps_enqueued;
}

ParallelQueue& World::lock_task_queue(const std::string& partition) {
  ParallelQueue& q = lock_task_queues_[partition];
  q.name = partition;
  q.unit_name = "locks:" + partition;
  return q;
}

// Made once per loop and queue: runnable_units() names every unit at every turn of a settling, and
// building the names anew cost an allocation each (check's search replays ~10^5 turns a second).
const World::LoopUnitNames& World::unit_names(std::size_t l) {
  if (loop_unit_names_.size() <= l) loop_unit_names_.resize(l + 1);
  LoopUnitNames& names = loop_unit_names_[l];
  const EventLoop& loop = *event_loops_[l];
  if (names.scheduler.empty()) {
    names.scheduler = "loop:" + loop.name + "/" + kSchedulerUnit;
    names.idle = "loop:" + loop.name + "/" + kIdleUnit;
  }
  while (names.queues.size() < loop.task_queues.size())
    names.queues.push_back("loop:" + loop.name + "/" + loop.task_queues[names.queues.size()].first);
  return names;
}

void World::queue_a_task(Environment* environment, const std::string& source, Steps steps,
                         bool document_bound) {
  if (environment->terminated) return;  // a terminated agent's event loop takes no more tasks
  EventLoop& loop = *environment->event_loop;
  auto it = std::find_if(loop.task_queues.begin(), loop.task_queues.end(),
                         [&](const auto& q) { return q.first == source; });
  if (it == loop.task_queues.end()) {
    loop.task_queues.emplace_back(source, std::deque<Task>{});
    it = std::prev(loop.task_queues.end());
  }
  it->second.push_back(Task{next_seq_++, source, environment, document_bound, std::move(steps)});
}

void World::queue_a_microtask(Environment* environment, Steps steps,
                              bool ignore_continuation_state) {
  if (environment->terminated) return;
  EventLoop& event_loop = *environment->event_loop;
  if (ignore_continuation_state) {
    event_loop.microtask_queue.emplace_back(environment, std::move(steps));
    return;
  }
  // scheduling#sec-patches-html-queuing-tasks, the new step 5: the microtask carries a clone of the
  // current continuation state and makes it current while it runs.
  SPEC_STEP("sec-patches-html-queuing-tasks 5.1");
  std::shared_ptr<ContinuationState> continuation_state;
  SPEC_STEP("sec-patches-html-queuing-tasks 5.2");
  if (event_loop.current_continuation_state)
    continuation_state = event_loop.current_continuation_state->clone();
  SPEC_STEP("sec-patches-html-queuing-tasks 5.3");
  event_loop.microtask_queue.emplace_back(
      environment, [&event_loop, continuation_state, steps = std::move(steps)] {
        event_loop.current_continuation_state = continuation_state;
        steps();
        event_loop.current_continuation_state = nullptr;
      });
}

void World::run_as_task(EventLoop& loop, Environment* environment, const Steps& steps) {
  loop.running = environment;
  steps();
  loop.running = nullptr;
}

void World::enqueue_steps(ParallelQueue& queue, Steps steps) {
  queue.algorithm_queue.emplace_back(next_seq_++, std::move(steps));
  ++queue.steps_enqueued;
}

void World::run_steps_after_a_timeout(std::uint64_t ms, Steps completion_steps) {
  timers_.push_back(Timer{now_ + ms, next_seq_++, std::move(completion_steps)});
}

bool World::runnable(const Task& task) const {
  // html#concept-task-runnable: a task is runnable if its document is null or fully active.
  if (task.environment->terminated) return false;
  if (!task.document_bound || !task.environment->is_window) return true;
  return task.environment->document_fully_active;
}

// Into `units`, which the caller keeps from one turn of its loop to the next, so that listing
// allocates nothing once the list has grown to its usual size.
void World::runnable_units(std::vector<Unit>& units) {
  units.clear();
  for (auto& [partition, queue] : lock_task_queues_)
    if (!queue.algorithm_queue.empty())
      units.push_back(
          Unit{&queue, nullptr, {}, queue.algorithm_queue.front().first, &queue.unit_name});
  for (std::size_t l = 0; l < event_loops_.size(); ++l) {
    EventLoop* loop = event_loops_[l].get();
    for (std::size_t q = 0; q < loop->task_queues.size(); ++q) {
      const auto& [source, tasks] = loop->task_queues[q];
      for (const Task& task : tasks)
        if (runnable(task)) {
          units.push_back(Unit{nullptr, loop, source, task.seq, &unit_names(l).queues[q]});
          break;  // the first runnable task of this queue (html#event-loop-processing-model 1)
        }
    }
  }
  if (!schedulers_) return;
  for (std::size_t l = 0; l < event_loops_.size(); ++l) {
    EventLoop* loop = event_loops_[l].get();
    // scheduling#sec-patches-html-event-loop-processing: the scheduler queue is one more choice.
    bool other_work =
        std::any_of(units.begin(), units.end(), [&](const Unit& u) { return u.loop == loop; });
    if (auto candidate = schedulers_->next_scheduler_task(*loop)) {
      units.push_back(Unit{nullptr, loop, kSchedulerUnit, candidate->seq, &unit_names(l).scheduler,
                           candidate->effective_priority});
      other_work = true;
    }
    // I-19: an idle period starts only on an event loop with nothing else to run.
    if (!other_work)
      if (auto idle = schedulers_->next_idle_callback(*loop))
        units.push_back(Unit{nullptr, loop, kIdleUnit, *idle, &unit_names(l).idle});
  }
}

std::size_t World::choose(const std::vector<Unit>& units) {
  if (units.size() == 1) return 0;  // not a choice point
  std::vector<std::size_t>& candidates = candidates_;
  candidates.clear();
  std::string pin;
  if (next_pin_ < pinned_.size()) {
    pin = pinned_[next_pin_];
    candidates = matching(units, pin);
    const bool any_lock_queue = pin == pins::kAnyLockQueue;
    if (candidates.size() > 1 && !any_lock_queue) candidates = {canonical(units, candidates)};
    if (candidates.empty() || (any_lock_queue && candidates.size() > 1)) {
      std::vector<std::string> runnable;
      for (const Unit& u : units) runnable.push_back(*u.name);
      throw ReplayError{bad_pin(next_pin_, pin, !candidates.empty(), std::move(runnable))};
    }
    ++next_pin_;
  } else {
    for (std::size_t i = 0; i < units.size(); ++i) candidates.push_back(i);
    if (chooser_) {
      // Reused from point to point: its lists and names keep their capacity (check's search
      // meets some 10^5 points a second).
      ChoicePoint& point = choice_point_;
      point.before_step = point.idle_only = false;
      point.names.resize(units.size());
      for (std::size_t i = 0; i < units.size(); ++i) point.names[i] = *units[i].name;
      proposals(units, candidates, point.proposals);
      point.canonical = oldest(units, point.proposals);
      const std::size_t picked = chooser_(point);
      if (picked >= units.size())
        throw InternalError("a chooser picked unit " + std::to_string(picked) + " of " +
                            std::to_string(units.size()));
      choices_taken_.push_back(*units[picked].name);
      return picked;
    }
  }
  std::size_t best = canonical(units, candidates);
  choices_taken_.push_back(*units[best].name);
  return best;
}

std::vector<std::size_t> World::matching(const std::vector<Unit>& units,
                                         const std::string& pin) const {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::string& n = *units[i].name;
    bool match = pin == pins::kAnyLockQueue ? units[i].queue != nullptr
                                            : n == pin || (pin.rfind("loop:", 0) == 0 &&
                                                           pin.find('/') == std::string::npos &&
                                                           n.rfind(pin + "/", 0) == 0);
    if (match) found.push_back(i);
  }
  return found;
}

// The canonical policy (I-1, I-2, I-17): each event loop proposes one unit (its scheduler queue
// ahead of its other tasks at effective priority 3+, behind them at 0-1, by age at 2); then the
// oldest proposal in the world runs.
std::size_t World::canonical(const std::vector<Unit>& units,
                             const std::vector<std::size_t>& candidates) const {
  std::vector<std::size_t> proposed;
  proposals(units, candidates, proposed);
  return oldest(units, proposed);
}

std::size_t World::oldest(const std::vector<Unit>& units, const std::vector<std::size_t>& among) {
  std::size_t best = among.front();
  for (std::size_t i : among)
    if (units[i].seq < units[best].seq) best = i;
  return best;
}

void World::proposals(const std::vector<Unit>& units, const std::vector<std::size_t>& candidates,
                      std::vector<std::size_t>& proposals) const {
  proposals.clear();
  for (std::size_t i : candidates) {
    const Unit& u = units[i];
    if (u.queue) {
      proposals.push_back(i);
      continue;
    }
    bool dominated = false;
    for (std::size_t j : candidates) {
      const Unit& v = units[j];
      if (j == i || v.loop != u.loop) continue;
      const bool u_sched = u.source == kSchedulerUnit, v_sched = v.source == kSchedulerUnit;
      if (u.source == kIdleUnit)
        dominated = true;  // idle yields to anything of its loop
      else if (v_sched && v.effective_priority >= 3)
        dominated = true;
      else if (u_sched && u.effective_priority >= 3)
        continue;
      else if (u_sched && u.effective_priority <= 1 && v.source != kIdleUnit)
        dominated = true;
      else if (v_sched && v.effective_priority <= 1)
        continue;
      else if (v.source != kIdleUnit && v.seq < u.seq)
        dominated = true;
      if (dominated) break;
    }
    if (!dominated) proposals.push_back(i);
  }
}

void World::run_unit(const Unit& unit) {
  if (unit.loop && unit.source == kSchedulerUnit) {
    schedulers_->run_next_scheduler_task(*unit.loop);
    perform_a_microtask_checkpoint(*unit.loop);
    return;
  }
  if (unit.loop && unit.source == kIdleUnit) {
    schedulers_->run_next_idle_callback(*unit.loop);
    perform_a_microtask_checkpoint(*unit.loop);
    return;
  }
  if (unit.queue) {
    Steps steps = std::move(unit.queue->algorithm_queue.front().second);
    unit.queue->algorithm_queue.pop_front();
    steps();
    return;
  }
  EventLoop& loop = *unit.loop;
  auto queue = std::find_if(loop.task_queues.begin(), loop.task_queues.end(),
                            [&](const auto& q) { return q.first == unit.source; });
  auto task_it = std::find_if(queue->second.begin(), queue->second.end(),
                              [&](const Task& t) { return runnable(t); });
  Task task = std::move(*task_it);
  queue->second.erase(task_it);
  // html#event-loop-processing-model steps 2-4: run the task, then a microtask checkpoint.
  loop.running = task.environment;
  task.steps();
  loop.running = nullptr;
  perform_a_microtask_checkpoint(loop);
}

void World::perform_a_microtask_checkpoint(EventLoop& loop) {
  // html#perform-a-microtask-checkpoint
  if (loop.performing_a_microtask_checkpoint) return;  // step 1
  loop.performing_a_microtask_checkpoint = true;       // step 2
  while (!loop.microtask_queue.empty()) {              // step 3
    auto [environment, steps] = std::move(loop.microtask_queue.front());
    loop.microtask_queue.pop_front();
    if (environment->terminated) continue;  // I-10: a terminated agent runs nothing
    loop.running = environment;
    steps();
    loop.running = nullptr;
  }
  // Steps 4-6 (rejected-promise notification, IndexedDB cleanup, ClearKeptObjects) have nothing
  // observable in traces.
  loop.performing_a_microtask_checkpoint = false;  // step 7
}

void World::clean_up_after_running_script(Environment* environment) {
  // Steps 1-2 (the realm's execution context, the settings object's stack) have nothing to model.
  // Step 3: the callbacks the host invokes all run from a task, so the stack is empty here; inside
  // a checkpoint already, step 1 of perform-a-microtask-checkpoint makes this a no-op.
  EventLoop& loop = *environment->event_loop;
  Environment* running = loop.running;
  perform_a_microtask_checkpoint(loop);
  loop.running = running;  // the task that invoked the callback goes on
}

void World::run_task_now(Environment* environment, Steps steps) {
  Task task{next_seq_++, kTraceTaskSource, environment, false, std::move(steps)};
  if (environment->terminated) return;
  EventLoop& loop = *environment->event_loop;
  loop.running = environment;
  task.steps();
  loop.running = nullptr;
  perform_a_microtask_checkpoint(loop);
}

void World::run_chosen_unit(const Unit& unit) {
  if (before_unit_) before_unit_(*unit.name, unit.seq, unit.effective_priority);
  run_unit(unit);
  if (unit_observer_) unit_observer_();
}

void World::settle() {
  // Every trace is finite and no op loops, so this bound only catches a model defect.
  std::vector<Unit> units;
  for (std::uint64_t guard = 0; guard < 100'000'000; ++guard) {
    runnable_units(units);
    if (units.empty() || puts_off_idle_periods(units)) return;
    run_chosen_unit(units[choose(units)]);
  }
  throw InternalError("the world did not settle within 10^8 units");
}

// I-27: the user agent may put off an idle period (requestidlecallback's start-an-idle-period
// step 1) for as long as it likes, so where nothing but idle periods could start, the settling
// may end with the idle callbacks still queued: they may run in a later step's settling, or never.
// Canonically the idle periods start; the pin "settled" ends the settling there instead, and the
// pin "idle" starts them, so that a "settled" after it waits for a later point.
bool World::puts_off_idle_periods(const std::vector<Unit>& units) {
  static const std::string kSettled(pins::kSettled);
  static const std::string kIdle(pins::kIdle);
  for (const Unit& u : units)
    if (!u.loop || u.source != kIdleUnit) return false;  // other work is runnable: not this point
  if (next_pin_ < pinned_.size()) {
    const std::string& pin = pinned_[next_pin_];
    if (pin != kSettled && pin != kIdle) return false;  // any other pin: they start
    ++next_pin_;
    choices_taken_.push_back(pin);
    return pin == kSettled;
  }
  if (!chooser_ || !offer_putting_off_idle_) return false;
  ChoicePoint point;
  point.idle_only = true;
  point.names = {kIdle, kSettled};
  point.proposals = {0, 1};  // a choice the UA is given, not an order the specs recommend
  const std::size_t picked = chooser_(point);
  if (picked > 1)
    throw InternalError("a chooser picked " + std::to_string(picked) +
                        " of 2 where only idle periods could start");
  choices_taken_.push_back(picked == 1 ? kSettled : kIdle);
  return picked == 1;
}

// I-26: the step's task is queued when the trace says, and its event loop, the other loops and
// the lock task queues may each run what is already queued before it. Canonically the step runs
// at once; a schedule says otherwise with "early:" pins ("step" ends them), a chooser at the
// points offered to it.
void World::before_step() {
  static const std::string kEarly(pins::kEarly);
  static const std::string kStep(pins::kStep);
  std::vector<Unit> units;
  for (;;) {
    // Only a pin for this point or a chooser offered it decides anything here; without either the
    // step begins at once, and listing the runnable units would be wasted work.
    const bool pinned_early =
        next_pin_ < pinned_.size() && pinned_[next_pin_].rfind(kEarly, 0) == 0;
    const bool pinned_step = next_pin_ < pinned_.size() && pinned_[next_pin_] == kStep;
    if (!pinned_early && !pinned_step &&
        !(next_pin_ >= pinned_.size() && chooser_ && offer_early_units_))
      return;
    runnable_units(units);
    if (units.empty()) return;  // no point here: a "step" pin waits for the next one (I-26)
    std::size_t picked = 0;     // 0: begin the step; i > 0: units[i - 1] first
    if (pinned_step) {
      ++next_pin_;
    } else if (pinned_early) {
      const std::string& pin = pinned_[next_pin_];
      const std::string named = pin.substr(kEarly.size());
      std::vector<std::size_t> found = matching(units, named);
      if (found.size() > 1 && named != pins::kAnyLockQueue) found = {canonical(units, found)};
      if (found.size() != 1) {
        std::vector<std::string> runnable;
        for (const Unit& u : units) runnable.push_back(kEarly + *u.name);
        throw ReplayError{bad_pin(next_pin_, pin, !found.empty(), std::move(runnable))};
      }
      ++next_pin_;
      picked = found[0] + 1;
    } else {  // no pin left, and a chooser is offered the point (the check above)
      ChoicePoint& point = choice_point_;  // reused, as in choose()
      point.before_step = true;
      point.idle_only = false;
      point.canonical = 0;
      point.names.resize(units.size() + 1);
      point.names[0] = kStep;
      for (std::size_t i = 0; i < units.size(); ++i)
        point.names[i + 1].assign(kEarly).append(*units[i].name);
      point.proposals.clear();
      for (std::size_t i = 0; i < point.names.size(); ++i) point.proposals.push_back(i);
      picked = chooser_(point);
      if (picked >= point.names.size())
        throw InternalError("a chooser picked " + std::to_string(picked) + " of " +
                            std::to_string(point.names.size()) + " before a step");
    }
    if (picked == 0) {
      // Recorded, unlike a step that begins for want of a pin: a later "early:" pin in the same
      // list must not be taken here (I-26).
      choices_taken_.push_back(kStep);
      return;
    }
    choices_taken_.push_back(kEarly + *units[picked - 1].name);
    run_chosen_unit(units[picked - 1]);
  }
}

void World::advance_time(std::uint64_t ms) {
  const std::uint64_t target = now_ + ms;
  for (;;) {
    auto earliest = std::min_element(timers_.begin(), timers_.end(),
                                     [](const Timer& a, const Timer& b) { return a.due < b.due; });
    if (earliest == timers_.end() || earliest->due > target) break;
    now_ = earliest->due;
    std::vector<Timer> due;
    for (auto it = timers_.begin(); it != timers_.end();) {
      if (it->due == now_) {
        due.push_back(std::move(*it));
        it = timers_.erase(it);
      } else {
        ++it;
      }
    }
    std::sort(due.begin(), due.end(),
              [](const Timer& a, const Timer& b) { return a.order < b.order; });
    for (Timer& t : due) t.steps();
    settle();
  }
  now_ = target;
}

void World::terminate_environment(Environment* environment) {
  environment->terminated = true;
  EventLoop& loop = *environment->event_loop;
  for (auto& [source, tasks] : loop.task_queues)
    tasks.erase(std::remove_if(tasks.begin(), tasks.end(),
                               [&](const Task& t) { return t.environment == environment; }),
                tasks.end());
  auto& mq = loop.microtask_queue;
  mq.erase(
      std::remove_if(mq.begin(), mq.end(), [&](const auto& m) { return m.first == environment; }),
      mq.end());
}

void World::pin_choices(std::vector<std::string> choices) {
  pinned_ = std::move(choices);
  next_pin_ = 0;
}

void World::log(Environment* environment, std::string event,
                std::vector<std::pair<std::string, Value>> members) {
  if (!logging_) return;
  log_.events.push_back(Event{stamp_step_, environment->id, std::move(event), std::move(members)});
}

}  // namespace lockstep::spec
