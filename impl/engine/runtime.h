// The host the impl engine replays traces on: agents on event loops, ECMAScript promises, a lock
// task queue per user agent, a virtual clock, DOM abort signals, and the choice points of
// docs/interpretations.md I-1, I-2, I-17 and I-19. It has the same observable behaviour as the spec
// model's platform, with structures chosen for speed: pooled objects, per-loop task queues indexed
// by source, continuation state as an immutable list shared by pointer (a clone is a copy of the
// pointer), and no per-unit rebuilding of what does not change.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inline_function.h"
#include "lockstep/choice_point.h"
#include "lockstep/error.h"
#include "lockstep/impl/task_scheduler.h"
#include "lockstep/log.h"
#include "lockstep/string_index.h"
#include "lockstep/trace.h"
#include "recorded_log.h"
#include "ring_queue.h"
#include "stable_pool.h"

namespace lockstep::impl {

using Job = InlineFunction<void()>;

struct Loop;
struct LockQueue;
class Runtime;

struct Env {
  const Agent* agent = nullptr;
  Loop* loop = nullptr;
  bool is_window = true;
  bool fully_active = true;
  bool terminated = false;
  // A window closed while its event loop runs on, its realm's microtasks still running (I-29):
  // it takes no more steps, and its tasks are gone with its document.
  bool closed = false;
  void* scheduler = nullptr;  // the Scheduler object of this global (scheduling binding)
  void* locks = nullptr;      // the LockManager it uses (web locks binding)
  std::uint32_t lock_agent = 0;
  LockQueue* lock_queue = nullptr;  // its partition's lock task queue (I-11)
  int ended_in_step = -1;  // the top-level step during which the runner saw it end, if it did
};

// scheduling#continuation-state: an immutable list of (key, value); HostMakeJobCallback's clone
// and the microtask's clone share it, and setting a value makes a new head.
struct ContinuationNode {
  const void* key;
  const void* value;
  const ContinuationNode* next;
};

struct LoopTask {
  std::uint64_t seq;
  Env* env;
  Job job;
};

struct Loop {
  std::string name;
  // Per source, in first-use order; a deque, so that adding a source never relocates a queue.
  struct SourceQueue {
    std::string source;
    const char* literal;  // the text queue_task was given first: a pointer compare finds it
    RingQueue<LoopTask> tasks;
  };
  std::deque<SourceQueue> queues;
  std::size_t queued_tasks = 0;  // over all of `queues`: collect_units() skips a loop at 0
  struct Microtask {
    Env* env;
    // The continuation state the microtask carries and makes current while it runs (scheduling's
    // patch to "queue a microtask"); promise jobs restore their reaction's own state instead.
    const ContinuationNode* carried;
    bool restores_carried;
    Job job;
  };
  RingQueue<Microtask> microtasks;
  bool in_checkpoint = false;
  const ContinuationNode* continuation = nullptr;
  TaskScheduler scheduler;  // every Scheduler of the loop queues here
  // "loop:<name>/<source>", by queue index; a deque, so that the choices can point at them.
  std::deque<std::string> unit_names;
  std::string scheduler_unit, idle_unit;
  std::size_t index = 0;  // in the runtime's list of loops
  bool listed = false;    // in the runtime's list of loops that may have work
};

// A promise (ECMA-262 #sec-promise-objects).
struct Promise;
struct JsValue {
  Value data;
  Promise* promise = nullptr;
  JsValue() = default;
  JsValue(Value v) : data(std::move(v)) {}
  JsValue(Promise* p) : promise(p) {}
};

struct Completion {
  bool thrown = false;
  JsValue value;
};

using Handler = InlineFunction<Completion(const Value&)>;

// One PerformPromiseThen (ECMA-262 #sec-performpromisethen): the spec appends a fulfill reaction
// and a reject reaction to two parallel lists, so one record with both handlers, in one list per
// promise, keeps the same order. Records come from a pool with a free list and go back to it once
// their job has run: a promise settles once, so at most one of the two handlers ever runs.
struct Reaction {
  Promise* derived = nullptr;
  Handler on_fulfilled, on_rejected;
  const ContinuationNode* continuation = nullptr;  // HostMakeJobCallback's, for either handler
  Reaction* next = nullptr;                        // in the promise's list, or the free list
  Env* env = nullptr;  // the handlers' realm, whose agent the job belongs to (I-28)
};

struct Promise {
  enum class State : std::uint8_t { Pending, Fulfilled, Rejected };
  Env* env = nullptr;
  State state = State::Pending;
  bool already_resolved = false;  // of the resolving functions made with it
  Value result;
  Reaction* reactions = nullptr;  // oldest first
  Reaction* last_reaction = nullptr;
};

// DOM AbortSignal, and TaskSignal when is_task_signal.
struct Signal {
  Env* env = nullptr;
  std::string trace_id;
  Value reason;  // undefined while not aborted
  bool aborted() const { return !reason.is_undefined(); }
  std::map<int, Job> algorithms;  // in the order added; removal by handle is O(log n)
  int next_handle = 1;
  bool dependent = false;
  std::vector<Signal*> sources, dependents;
  // TaskSignal
  bool is_task_signal = false;
  Priority priority = Priority::UserVisible;
  bool priority_changing = false;
  Signal* priority_source = nullptr;
  bool task_dependent = false;
  std::vector<Signal*> task_dependents;
  std::vector<std::pair<TaskScheduler*, QueueId>> queues;  // dynamic queues following it
  std::vector<std::function<void(Priority previous)>> prioritychange_listeners;
};

struct LockQueue {
  std::string unit_name;
  RingQueue<std::pair<std::uint64_t, Job>> steps;
  std::uint64_t steps_enqueued = 0;  // ever: what check's partial-order reduction asks
};

// An event's or an object's members given as key, value, key, value...: each is built in place,
// where an initializer list of pairs would copy every member once more (log events and lock infos
// are made so on every step).
template <class V, class... Rest>
void add_members(Members& members, const char* key, V&& value, Rest&&... rest) {
  members.emplace_back(key, std::forward<V>(value));
  if constexpr (sizeof...(rest) > 0) add_members(members, std::forward<Rest>(rest)...);
}
template <class... KeysAndValues>
Members members_of(KeysAndValues&&... keys_and_values) {
  Members members;
  members.reserve(sizeof...(keys_and_values) / 2);
  add_members(members, std::forward<KeysAndValues>(keys_and_values)...);
  return members;
}

struct ReplayFailure {  // the trace asks for something it cannot have
  Error error;
};

struct EngineFault {  // a defect of the engine, or a chooser's bad answer
  std::string message;
};

class Runtime {
 public:
  explicit Runtime(const Trace& trace);
  ~Runtime();

  Env* env(std::string_view id);
  const std::vector<std::unique_ptr<Env>>& envs() const { return envs_; }

  // Promises
  Promise* new_promise(Env* env);
  void resolve(Promise* p, const JsValue& value);
  void reject(Promise* p, const Value& reason);
  Promise* promise_resolve(Env* env, const JsValue& x);
  Promise* promise_rejected_with(Env* env, const Value& reason);
  // `env` attaches the handlers: their realm, whose agent the reaction's job belongs to (I-28).
  void then(Env* env, Promise* p, Handler on_fulfilled, Handler on_rejected, Promise* derived);

  // Event loops
  void queue_task(Env* env, const char* source, Job job);
  void queue_microtask(Env* env, Job job, bool ignore_continuation = false);
  // Queues steps on the lock task queue of the agent's partition (I-11).
  void lock_task(Env* env, Job job);
  void after_timeout(std::uint64_t ms, Job job);
  std::uint64_t next_seq() { return next_seq_++; }
  // The loop may have work now: a scheduler task or an idle callback was queued on it (tasks queued
  // through queue_task say so themselves). Only such loops are looked at when choosing a unit.
  void wake(Loop& loop);
  // A callback that a task invoked has returned: its microtasks run now, before the task goes on
  // (html#clean-up-after-running-script step 3; the stack is empty in a task).
  void clean_up_after_running_script(Env* env) { checkpoint(*env->loop); }
  template <class F>
  void run_task_now(Env* env, F&& steps) {
    if (env->terminated) return;
    steps();
    checkpoint(*env->loop);
  }
  void settle();
  // Before a top-level step: the units "early:" pins name run first; "step" begins it (I-26).
  void before_step();
  void advance_time(std::uint64_t ms);
  void terminate(Env* env);
  // The window's document is no longer fully active: its tasks will never be runnable (I-9), so
  // they go now; its microtasks still run.
  void unload(Env* env);
  // Continuation state of the loop (scheduling#sec-patches-html-event-loop-definitions).
  const ContinuationNode* continuation(Loop& loop) const { return loop.continuation; }
  void set_continuation_value(Loop& loop, const void* key, const void* value);
  const void* continuation_value(const Loop& loop, const void* key) const;

  // Signals
  Signal* new_signal(Env* env);
  int add_algorithm(Signal* s, Job job);
  void remove_algorithm(Signal* s, int handle);
  void signal_abort(Signal* s, Value reason);
  void make_dependent(Signal* result, const std::vector<Signal*>& signals);

  // What the scheduling binding offers the event loop (the HTML patch).
  struct SchedulerHooks {
    virtual ~SchedulerHooks() = default;
    virtual std::uint64_t task_seq(void* cookie) = 0;
    virtual void run_task(Loop& loop, void* cookie) = 0;
    virtual std::optional<std::uint64_t> next_idle(Loop& loop) = 0;
    virtual void run_idle(Loop& loop) = 0;
  };
  void set_scheduler_hooks(SchedulerHooks* hooks) { hooks_ = hooks; }

  // Log and choices
  // The latest top-level step begun, which stamps what is logged from now on (I-3) unless
  // set_stamp_step says otherwise until the next set_current_step (as the model's World).
  void set_current_step(int step) { current_step_ = step_ = step; }
  void set_stamp_step(int step) { step_ = step; }
  int stamp_step() const { return step_; }
  int current_step() const { return current_step_; }
  void log(Env* env, const char* event, Members members);
  // The frequent events, recorded without building their members (recorded_log.h).
  void log_callback(Env* env, const char* event, const char* key, std::string_view id,
                    bool with_value = false, const Value& value = {}) {
    if (logging_)
      log_.record_callback(step_, &env->agent->id, event, key, ShortId(id), with_value, value);
  }
  void log_settled(Env* env, ShortId target, bool fulfilled, const Value& value) {
    if (logging_) log_.record_settled(step_, &env->agent->id, target, fulfilled, value);
  }
  const Log& event_log() { return log_.log(); }
  Log take_log() { return log_.take(); }
  std::vector<std::string> take_choices() const;
  // Off: log() keeps nothing (check's search, along a prefix it has matched already).
  void set_logging(bool on) { logging_ = on; }
  bool logging() const { return logging_; }

  // Steering (check's search), as the model's World offers it: once the pins are used up, a
  // chooser decides every choice point, offered in the order and with the names the model gives
  // them; points before a step (I-26) and where only idle periods could start (I-27) only if
  // offered. The observer is called just before each unit a settling or a point before a step
  // runs, with its name.
  void set_chooser(Chooser chooser) { chooser_ = std::move(chooser); }
  void offer_early_units(bool offer) { offer_early_units_ = offer; }
  void offer_putting_off_idle(bool offer) { offer_putting_off_idle_ = offer; }
  void set_before_unit_observer(std::function<void(const std::string&)> observer) {
    before_unit_ = std::move(observer);
  }
  // Called as each unit ends, its microtasks run (before a step that follows begins).
  void set_after_unit_observer(std::function<void()> observer) {
    after_unit_ = std::move(observer);
  }
  // How many steps the partition's lock task queue has been given so far, kept up to date for
  // the runtime's life (null if it has no queue).
  const std::uint64_t* lock_steps_enqueued(const std::string& partition) const {
    const auto found = lock_queues_.find(partition);
    return found == lock_queues_.end() ? nullptr : &found->second.steps_enqueued;
  }

 private:
  // I-27: where only idle periods could start, whether the settling ends there (a pinned
  // "settled", not a pinned "idle", or the chooser's answer when offered the point).
  bool puts_off_idle_periods();
  void drop_tasks_of(Loop& loop, const Env* env);  // an ended agent's tasks leave its loop
  struct Unit {
    enum class Kind : std::uint8_t { Locks, Task, Scheduler, Idle } kind;
    std::size_t index;  // lock queue or loop index
    std::size_t queue;  // task queue index within the loop
    std::uint64_t seq;
    int priority;
    const std::string* name;
  };
  template <class Visit>
  std::size_t visit_units_of(Loop& loop, const Visit& visit);
  template <class PerLoop>
  void visit_busy_loops(const PerLoop& per_loop);
  void collect_units();
  // With no pin left and no chooser: the canonical unit into `chosen`, without listing the units;
  // returns how many there were.
  std::size_t choose_canonically(Unit& chosen);
  std::size_t choose();
  void match_pin(const std::string& pin, const std::string& full_pin, const std::string& prefix);
  std::size_t canonical(const std::vector<std::size_t>& candidates) const;
  // Whether a unit of the same loop among `candidates` goes ahead of units_[i] (I-1, I-2, I-17).
  bool dominated(std::size_t i, const std::vector<std::size_t>& candidates) const;
  // The chooser's turn at a choice point of units_ (more than one unit).
  std::size_t choose_by_chooser();
  // units_ in the order the model lists them: lock queues, every loop's task queues, then every
  // loop's scheduler or idle period (into model_order_).
  void order_as_the_model();
  void run_chosen_unit(const Unit& unit);
  void run_unit(const Unit& unit);
  void checkpoint(Loop& loop);
  bool runnable(const LoopTask& task) const;
  // TriggerPromiseReactions for a list of reactions (ECMA-262 #sec-triggerpromisereactions).
  void trigger(Promise* p, Reaction* reactions, bool fulfilled);
  Reaction* new_reaction();
  void free_reaction(Reaction* r);
  void settle_promise(Promise* p, Promise::State state, const Value& value);

  std::vector<std::unique_ptr<Env>> envs_;
  StringIndex env_by_id_;  // agent id -> index in envs_
  std::vector<std::unique_ptr<Loop>> loops_;
  std::map<std::string, LockQueue> lock_queues_;  // by partition
  std::vector<LockQueue*> lock_queue_list_;
  struct Timer {
    std::uint64_t due, order;
    Job job;
  };
  std::multimap<std::uint64_t, Timer> timers_;  // by due time, then insertion
  std::uint64_t now_ = 0;
  std::uint64_t next_seq_ = 1;
  std::vector<std::string> pinned_;
  std::string schedule_pointer_;
  std::size_t next_pin_ = 0;
  // The units chosen, as their names (which stay put: lock queues in a map, loops' in deques);
  // spelled out only when asked for, not on every unit.
  std::vector<const std::string*> choices_;
  std::deque<std::string> early_names_;  // "early:<unit>" of the units before_step() ran
  std::vector<std::size_t> candidates_;  // choose()'s, kept to reuse its storage
  std::vector<Unit> units_;
  // Loops that may have a task, a scheduler task or an idle callback, in loop order. A loop gains
  // work only through queue_task and wake(); collect_units() drops the loops it finds idle, so a
  // unit costs O(loops with work) rather than O(loops).
  std::vector<Loop*> maybe_busy_;
  int step_ = 0;          // the step that stamps events
  int current_step_ = 0;  // the latest top-level step begun
  RecordedLog log_;
  bool logging_ = true;
  Chooser chooser_;
  bool offer_early_units_ = false;
  bool offer_putting_off_idle_ = false;
  std::function<void(const std::string&)> before_unit_;
  std::function<void()> after_unit_;
  ChoicePoint choice_point_;              // reused from point to point
  std::vector<std::size_t> model_order_;  // order_as_the_model()'s
  SchedulerHooks* hooks_ = nullptr;
  StablePool<Promise> promises_;
  StablePool<Signal> signals_;
  StablePool<ContinuationNode> continuation_nodes_;
  StablePool<Reaction> reactions_;
  Reaction* free_reactions_ = nullptr;
};

}  // namespace lockstep::impl
