// The closed world a trace describes: environments, their event loops (HTML), one lock task queue
// per user agent (a parallel queue), a virtual clock with timers, and the scheduler that decides,
// at every choice point, which queue runs next (docs/interpretations.md I-1, I-2).
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

#include "continuation.h"
#include "environment.h"
#include "lockstep/choice_point.h"
#include "lockstep/log.h"
#include "step.h"

namespace lockstep::spec {

using Steps = std::function<void()>;

// https://html.spec.whatwg.org/#concept-task
struct Task {
  std::uint64_t seq = 0;  // world-wide order of queuing (I-1)
  std::string source;     // its task source
  Environment* environment = nullptr;
  bool document_bound = true;  // false for the trace's own step tasks (I-3)
  Steps steps;
};

// https://html.spec.whatwg.org/#event-loop
class EventLoop {
 public:
  explicit EventLoop(std::string loop_name) : name(std::move(loop_name)) {}
  std::string name;
  // One task queue per task source, in the order the sources were first used.
  std::vector<std::pair<std::string, std::deque<Task>>> task_queues;
  std::deque<std::pair<Environment*, Steps>> microtask_queue;
  bool performing_a_microtask_checkpoint = false;
  Environment* running = nullptr;  // whose script the current task or microtask runs
  // scheduling#sec-patches-html-event-loop-definitions
  std::uint64_t next_enqueue_order = 1;
  std::shared_ptr<ContinuationState> current_continuation_state;
};

// What an event loop's schedulers offer the event loop processing model (the HTML patch of
// scheduling#sec-patches-html-event-loop-processing). Implemented by the scheduling model.
class SchedulerTaskSource {
 public:
  virtual ~SchedulerTaskSource() = default;
  struct Candidate {
    std::uint64_t seq;       // world-wide age of the task that would run (I-1)
    int effective_priority;  // of the queue it is in
  };
  // "Select the next scheduler task queue from all schedulers" for the loop; nullopt for null.
  virtual std::optional<Candidate> next_scheduler_task(EventLoop& loop) = 0;
  // Takes the first runnable task of that queue and runs it.
  virtual void run_next_scheduler_task(EventLoop& loop) = 0;
  // I-19: an idle callback the loop could run when it has nothing else, if any.
  virtual std::optional<std::uint64_t> next_idle_callback(EventLoop& loop) = 0;
  virtual void run_next_idle_callback(EventLoop& loop) = 0;
};

// https://html.spec.whatwg.org/#parallel-queue
struct ParallelQueue {
  std::string name;
  std::string unit_name;  // "locks:<name>", as a schedule names the unit that runs its next step
  std::deque<std::pair<std::uint64_t, Steps>> algorithm_queue;
  std::uint64_t steps_enqueued = 0;  // ever: what check's partial-order reduction asks
};

// Task source names used by the model.
inline constexpr const char* kWebLocksTaskSource = "web-locks";  // web-locks#concepts
inline constexpr const char* kTimerTaskSource = "timer";         // html#timer-task-source
inline constexpr const char* kTraceTaskSource = "trace";         // the trace's own tasks (I-3)

class World {
 public:
  World();
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Objects of the model live as long as the world (the model is a closed, finite simulation).
  template <class T, class... Args>
  T* make(Args&&... args) {
    auto owned = std::make_shared<T>(std::forward<Args>(args)...);
    T* raw = owned.get();
    arena_.push_back(std::move(owned));
    return raw;
  }

  Environment* add_environment(const Agent& agent);
  Environment* environment(const std::string& id);
  EventLoop* event_loop(const std::string& name);
  ParallelQueue& lock_task_queue(const std::string& partition);  // I-11
  // How many steps the partition's lock task queue has been given so far, kept up to date for
  // the world's life (null if it has no queue).
  const std::uint64_t* lock_steps_enqueued(const std::string& partition) const;

  // https://html.spec.whatwg.org/#queue-a-task
  void queue_a_task(Environment* environment, const std::string& source, Steps steps,
                    bool document_bound = true);
  // https://html.spec.whatwg.org/#queue-a-microtask, with the scheduling patch's
  // ignoreContinuationState (scheduling#sec-patches-html-queuing-tasks).
  void queue_a_microtask(Environment* environment, Steps steps,
                         bool ignore_continuation_state = false);
  // A world-wide sequence number for work queued outside the world's own queues (I-1).
  std::uint64_t next_sequence_number() { return next_seq_++; }
  void set_scheduler_task_source(SchedulerTaskSource* source) { schedulers_ = source; }
  // Runs steps as the event loop's current task would (loop.running set), for the schedulers.
  void run_as_task(EventLoop& loop, Environment* environment, const Steps& steps);
  // https://html.spec.whatwg.org/#enqueue-the-following-steps (parallel queue)
  void enqueue_steps(ParallelQueue& queue, Steps steps);
  // https://html.spec.whatwg.org/#run-steps-after-a-timeout, on the virtual clock (I-4)
  void run_steps_after_a_timeout(std::uint64_t ms, Steps completion_steps);

  // https://html.spec.whatwg.org/#clean-up-after-running-script, the last step of
  // webidl#invoke-a-callback-function: script invoked by a task (a lock's callback, a postTask or
  // idle callback) leaves the JavaScript execution context stack empty, so step 3 performs a
  // microtask checkpoint before the invoking algorithm goes on.
  void clean_up_after_running_script(Environment* environment);
  // Runs the task just queued by the trace (I-3) and its microtask checkpoint.
  void run_task_now(Environment* environment, Steps steps);
  // Runs units until nothing is runnable (the trace's "settle"), or until only idle periods could
  // start and the user agent puts them off (I-27: the pin "settled", or a chooser offered it).
  void settle();
  // Whether a chooser is handed the points where settling may end with idle periods put off.
  void offer_putting_off_idle(bool offer) { offer_putting_off_idle_ = offer; }
  // Before a top-level step (I-26): what earlier steps left queued may run first. A pin
  // "early:<unit>" runs that unit and asks again; the pin "step" (I-26), any other pin, or none,
  // begins the step. Once the pins are used up, a chooser offered these points
  // (offer_early_units) may pick a unit. "step" is recorded among the choices taken when a pin or
  // the chooser took it, where some unit could have gone first.
  void before_step();
  // Whether a chooser is handed the choice points before_step() meets (off: the step begins).
  void offer_early_units(bool offer) { offer_early_units_ = offer; }
  // advanceTime (I-4)
  void advance_time(std::uint64_t ms);
  std::uint64_t now() const { return now_; }

  // The agent ends now (I-10): its tasks and microtasks are discarded.
  void terminate_environment(Environment* environment);

  // Pinned choices (`schedule`), consumed one per choice point; then the canonical policy.
  void pin_choices(std::vector<std::string> choices);
  // Called after every unit the world runs while settling or before a step: where the property
  // tests check the model's invariants (property-tests/world_properties.cpp) and check's search
  // measures what each unit did. Not part of any spec.
  void set_unit_observer(std::function<void()> observer) { unit_observer_ = std::move(observer); }
  // Called just before a unit runs, with its name as a schedule names it, the world-wide age of
  // the work it runs (for a scheduler unit, the scheduler task's) and, for a scheduler unit, the
  // effective priority of the queue it takes from (0-5, I-17; -1 for other units).
  using BeforeUnit =
      std::function<void(const std::string& name, std::uint64_t seq, int effective_priority)>;
  void set_before_unit_observer(BeforeUnit observer) { before_unit_ = std::move(observer); }
  std::vector<std::string> choices_taken() const { return choices_taken_; }
  // A choice point handed to a chooser (lockstep check), as lockstep/choice_point.h describes it.
  using ChoicePoint = lockstep::ChoicePoint;
  using Chooser = lockstep::Chooser;
  // Once the pins are used up, a chooser, if set, decides every choice point instead of the
  // canonical policy.
  void set_chooser(Chooser chooser) { chooser_ = std::move(chooser); }

  // The log and the step the events belong to.
  // The latest top-level step begun, which stamps what is logged from now on (I-3) unless
  // set_stamp_step says otherwise until the next set_current_step.
  void set_current_step(int step) { current_step_ = stamp_step_ = step; }
  int current_step() const { return current_step_; }
  void set_stamp_step(int step) { stamp_step_ = step; }
  int stamp_step() const { return stamp_step_; }
  void log(Environment* environment, std::string event,
           std::vector<std::pair<std::string, Value>> members);
  Log& event_log() { return log_; }
  // Off: log() keeps nothing, and callers may skip building what they would log. For a replay
  // that only needs the events after some point (check's search, along a prefix it knows).
  void set_logging(bool on) { logging_ = on; }
  bool logging() const { return logging_; }

 private:
  struct Unit;
  void runnable_units(std::vector<Unit>& units);
  bool runnable(const Task& task) const;
  void run_unit(const Unit& unit);
  void perform_a_microtask_checkpoint(EventLoop& loop);
  std::size_t choose(const std::vector<Unit>& units);
  // I-27: at a point where only idle periods could start, whether the settling ends there.
  bool puts_off_idle_periods(const std::vector<Unit>& units);
  // The units a pin names (one, or every lock task queue for "locks"); empty when none.
  std::vector<std::size_t> matching(const std::vector<Unit>& units, const std::string& pin) const;
  void run_chosen_unit(const Unit& unit);
  std::size_t canonical(const std::vector<Unit>& units,
                        const std::vector<std::size_t>& candidates) const;
  // Into `proposals`: those of `candidates` the suggested strategy proposes.
  void proposals(const std::vector<Unit>& units, const std::vector<std::size_t>& candidates,
                 std::vector<std::size_t>& proposals) const;
  static std::size_t oldest(const std::vector<Unit>& units, const std::vector<std::size_t>& among);
  // The units of event_loops_[l] as a schedule names them: its task queues' (by index in
  // task_queues), its scheduler's and its idle period's. Units point at them: deques, so that
  // adding a loop or a queue moves none.
  struct LoopUnitNames {
    std::deque<std::string> queues;
    std::string scheduler, idle;
  };
  const LoopUnitNames& unit_names(std::size_t l);

  std::vector<std::shared_ptr<void>> arena_;
  std::map<std::string, std::unique_ptr<Environment>> environments_;
  std::vector<std::unique_ptr<EventLoop>> event_loops_;
  std::map<std::string, ParallelQueue> lock_task_queues_;
  std::deque<LoopUnitNames> loop_unit_names_;  // by index in event_loops_
  struct Timer {
    std::uint64_t due;
    std::uint64_t order;
    Steps steps;
  };
  std::vector<Timer> timers_;
  std::uint64_t now_ = 0;
  std::uint64_t next_seq_ = 1;
  std::vector<std::string> pinned_;
  std::size_t next_pin_ = 0;
  std::vector<std::string> choices_taken_;
  // choose()'s, kept between calls for their capacity.
  std::vector<std::size_t> candidates_;
  ChoicePoint choice_point_;
  std::function<void()> unit_observer_;
  BeforeUnit before_unit_;
  Chooser chooser_;
  bool offer_early_units_ = false;
  bool offer_putting_off_idle_ = false;
  int current_step_ = 0;
  int stamp_step_ = 0;
  Log log_;
  bool logging_ = true;
  SchedulerTaskSource* schedulers_ = nullptr;
};

}  // namespace lockstep::spec
