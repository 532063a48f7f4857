// Every scheduling trace within a small bound (`lockstep gen --exhaustive --profile scheduling`).
// The windows share one event loop, so their Schedulers draw from one enqueue counter and one
// selection (scheduling#select-the-next-scheduler-task-queue-from-all-schedulers), and every step
// but the last leaves its work queued (`"settle": false`): what later steps do (post, change a
// priority, abort) meets the tasks earlier steps queued, which is where the orders come from.
#include <string>
#include <vector>

#include "exhaustive.h"
#include "exhaustive_enumerator.h"

namespace lockstep::gen {
namespace {

constexpr const char* kPriorities[3] = {"user-blocking", "user-visible", "background"};

// A TaskController, or a TaskSignal.any over one (its signal follows the controller's priority).
struct Signal {
  std::string id;
  int agent;
  bool controller;
  bool aborted = false;
};

class SchedulingEnumerator : public Enumerator {
 public:
  SchedulingEnumerator(const ExhaustiveBound& bound, const Emit& emit)
      : Enumerator(bound, emit, "exhaustive-scheduling-",
                   R"(, "kind": "window", "origin": "https://a.test", "eventLoop": "L")",
                   /*queue_all_but_last=*/true) {}

 private:
  void add_steps() override {
    for (int a = 0; a < agent_limit() && !stopped(); ++a) {
      const int saved_agents = enter_agent(a);
      const std::string who = R"({"agent": ")" + agent_id(a) + R"(", )";
      const std::string task = "t" + std::to_string(step_count());
      const std::string post = R"("op": "postTask", "id": ")" + task + "\"";
      // postTask at the default priority or one of the three.
      push(who + post + "}");
      for (const char* p : kPriorities)
        push(who + post + R"(, "options": {"priority": ")" + p + "\"}}");
      // A task whose callback yields: the continuation inherits its priority and signal.
      const std::string yielding =
          R"(, "callback": {"body": [{"op": "yield", "id": ")" + task + R"(y"}]})";
      push(who + post + yielding + "}");
      // ... or queues a microtask that yields: the microtask carries the task's state.
      push(who + post + R"(, "callback": {"body": [{"op": "queueMicrotask", "body": [{"op": )" +
           R"("yield", "id": ")" + task + R"(m"}]}]}})");
      // A plain task of the event loop (not the scheduler's), which the loop orders against the
      // scheduler's tasks by effective priority (I-2).
      push(who + R"("op": "run", "body": [{"op": "run", "body": [{"op": "mark", "label": ")" +
           task + R"("}]}]})");
      // An idle callback that yields: its continuation runs at background priority.
      push(who + R"("op": "requestIdleCallback", "id": ")" + task +
           R"(", "callback": {"body": [{"op": "yield", "id": ")" + task + R"(y"}]}})");
      for (const Signal& s : signals_) {
        if (s.agent != a) continue;
        const std::string signal = R"(, "options": {"signal": ")" + s.id + "\"}";
        push(who + post + signal + "}");
        push(who + post + signal + yielding + "}");
      }
      // A background task that yields, and after it a microtask queues a plain task: the
      // continuation (effective priority 1) waits beside a plain task younger than it.
      push(who + post + R"(, "options": {"priority": "background"}, "callback": {"body": [)" +
           R"({"op": "queueMicrotask", "body": [{"op": "run", "body": [{"op": "mark", )" +
           R"("label": ")" + task + R"(p"}]}]}, {"op": "yield", "id": ")" + task + R"(y"}]}})");
      // A TaskController of each priority, or TaskSignal.any over one of the agent's controllers
      // (--names bounds how many signals a trace makes).
      if (static_cast<int>(signals_.size()) < bound().names) {
        const std::string id = "s" + std::to_string(signals_.size());
        for (const char* p : kPriorities) {
          signals_.push_back(Signal{id, a, true});
          push(who + R"("op": "newTaskController", "id": ")" + id + R"(", "priority": ")" + p +
               "\"}");
          signals_.pop_back();
        }
        for (std::size_t c = 0; c < signals_.size(); ++c) {
          if (signals_[c].agent != a || !signals_[c].controller) continue;
          const std::string source = signals_[c].id;
          signals_.push_back(Signal{id, a, false, signals_[c].aborted});
          push(who + R"("op": "taskSignalAny", "id": ")" + id + R"(", "signals": [")" + source +
               R"("], "priority": {"signal": ")" + source + "\"}}");
          signals_.pop_back();
        }
      }
      // Listening for prioritychange on a signal; changing a controller's priority (to the one it
      // has too: the algorithm returns early) and aborting it.
      for (Signal& s : signals_) {
        if (s.agent != a) continue;
        push(who + R"("op": "onPriorityChange", "signal": ")" + s.id + "\"}");
        if (!s.controller) continue;
        for (const char* p : kPriorities)
          push(who + R"("op": "setPriority", "controller": ")" + s.id + R"(", "priority": ")" + p +
               "\"}");
        if (s.aborted) continue;
        s.aborted = true;
        push(who + R"("op": "abort", "signal": ")" + s.id + "\"}");
        s.aborted = false;
      }
      leave_agent(saved_agents);
    }
  }

  std::vector<Signal> signals_;
};

}  // namespace

std::uint64_t enumerate_scheduling_traces(
    const ExhaustiveBound& bound,
    const std::function<bool(std::uint64_t index, const std::string& json)>& emit) {
  return SchedulingEnumerator(bound, emit).run();
}

}  // namespace lockstep::gen
