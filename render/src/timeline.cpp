#include "timeline.h"

#include <map>

#include "lockstep/log_compare.h"
#include "platform/errors.h"
#include "platform/step.h"
#include "runner/trace_runner.h"

namespace lockstep::render {
namespace {

// One resource name of one lock manager as the page draws it at a tick.
struct NameState {
  Json held = Json::array();
  Json pending = Json::array();
  bool operator==(const NameState& other) const {
    return held == other.held && pending == other.pending;
  }
};

class Recorder {
 public:
  explicit Recorder(spec::TraceRunner& runner) : runner_(runner) {}

  // Closes the tick that just ran: its events, then the lock state it left.
  void end_tick(int step, const std::string& unit, int priority) {
    const Log& log = runner_.world().event_log();
    if (log.events.size() == logged_ && unit == "step" && !state_changed()) return;
    const std::size_t tick = ticks_.size();
    ticks_.push_back(Json{{"step", step},
                          {"unit", unit},
                          {"priority", priority},
                          {"events", Json::array({logged_, log.events.size()})}});
    for (; logged_ < log.events.size(); ++logged_) {
      Json event = Json::parse(write_event(log.events[logged_]));
      event["tick"] = tick;
      events_.push_back(std::move(event));
    }
    record_locks(tick);
  }

  Json json() const {
    Json locks = Json::array();
    for (const auto& [key, states] : lock_states_)
      locks.push_back(Json{{"manager", key.first}, {"name", key.second}, {"states", states}});
    return Json{{"ticks", ticks_}, {"events", events_}, {"locks", locks}};
  }

 private:
  using Key = std::pair<std::string, std::string>;  // manager, resource name

  std::string request_id(const spec::Promise* promise) {
    if (ids_.size() != runner_.named_promises().size()) {
      ids_.clear();
      for (const auto& [id, p] : runner_.named_promises()) ids_[p] = id;
    }
    auto it = ids_.find(promise);
    return it == ids_.end() ? "?" : it->second;
  }

  std::map<Key, NameState> read_locks() {
    std::map<Key, NameState> now;
    for (const auto& [key, manager] : runner_.web_locks().lock_managers()) {
      const std::string who = key.partition + " " + key.origin;
      // web-locks#lock-manager-held-lock-set, in the order the set keeps.
      for (const spec::Lock* lock : manager->held_lock_set)
        now[{who, lock->name}].held.push_back(Json{{"request", request_id(lock->released_promise)},
                                                   {"agent", lock->client_id},
                                                   {"mode", lock_mode_name(lock->mode)}});
      // web-locks#lock-manager-lock-request-queue-map: each name's queue, front first.
      for (const auto& [name, queue] : manager->lock_request_queue_map)
        for (const spec::LockRequest* request : *queue)
          now[{who, name}].pending.push_back(Json{{"request", request_id(request->promise)},
                                                  {"agent", request->client_id},
                                                  {"mode", lock_mode_name(request->mode)}});
    }
    return now;
  }

  bool state_changed() { return read_locks() != last_; }

  void record_locks(std::size_t tick) {
    std::map<Key, NameState> now = read_locks();
    for (const auto& [key, state] : now) {
      auto before = last_.find(key);
      if (before == last_.end() || !(before->second == state))
        lock_states_[key].push_back(
            Json{{"tick", tick}, {"held", state.held}, {"pending", state.pending}});
    }
    for (const auto& [key, state] : last_)  // a name whose queue and holders emptied out
      if (!now.count(key))
        lock_states_[key].push_back(
            Json{{"tick", tick}, {"held", Json::array()}, {"pending", Json::array()}});
    last_ = std::move(now);
  }

  spec::TraceRunner& runner_;
  std::size_t logged_ = 0;
  Json ticks_ = Json::array();
  Json events_ = Json::array();
  std::map<Key, Json> lock_states_;
  std::map<Key, NameState> last_;
  std::map<const spec::Promise*, std::string> ids_;
};

}  // namespace

Result<Timeline> collect_timeline(const Trace& trace) {
  spec::StepCounts steps;
  const spec::ScopedStepSink counting(&steps);
  try {
    spec::TraceRunner runner(trace);
    Recorder recorder(runner);
    std::string unit;
    int priority = -1;
    // A unit's tick closes when the unit has run; a step's own task closes before the world
    // settles it, so that what the step did and what settling did are apart.
    runner.set_after_step_observer([&](int index) { recorder.end_tick(index, "step", -1); });
    runner.world().set_before_unit_observer(
        [&](const std::string& name, std::uint64_t, int effective_priority) {
          unit = name;
          priority = effective_priority;
        });
    runner.world().set_unit_observer(
        [&] { recorder.end_tick(runner.world().current_step(), unit, priority); });
    RunResult result = runner.run();
    Timeline timeline;
    timeline.json = recorder.json();
    timeline.json["steps"] = steps;
    timeline.json["schedule"] = result.choices;
    timeline.log = std::move(result.log);
    return timeline;
  } catch (const spec::ReplayError& e) {
    return e.error;
  }
}

}  // namespace lockstep::render
