#include "lockstep/trace.h"

#include <algorithm>

namespace lockstep {

const char* op_name(Op op) {
  switch (op) {
    case Op::Request:
      return "request";
    case Op::Query:
      return "query";
    case Op::NewAbortController:
      return "newAbortController";
    case Op::Abort:
      return "abort";
    case Op::TimeoutSignal:
      return "timeoutSignal";
    case Op::Settle:
      return "settle";
    case Op::Terminate:
      return "terminate";
    case Op::Unload:
      return "unload";
    case Op::PostTask:
      return "postTask";
    case Op::NewTaskController:
      return "newTaskController";
    case Op::SetPriority:
      return "setPriority";
    case Op::TaskSignalAny:
      return "taskSignalAny";
    case Op::OnPriorityChange:
      return "onPriorityChange";
    case Op::RequestIdleCallback:
      return "requestIdleCallback";
    case Op::Run:
      return "run";
    case Op::SetTimeout:
      return "setTimeout";
    case Op::NewPromise:
      return "newPromise";
    case Op::Then:
      return "then";
    case Op::QueueMicrotask:
      return "queueMicrotask";
    case Op::AdvanceTime:
      return "advanceTime";
    case Op::Await:
      return "await";
    case Op::Yield:
      return "yield";
    case Op::Mark:
      return "mark";
  }
  return "?";
}

bool op_is_scheduling(Op op) {
  switch (op) {
    case Op::PostTask:
    case Op::NewTaskController:
    case Op::SetPriority:
    case Op::TaskSignalAny:
    case Op::OnPriorityChange:
    case Op::RequestIdleCallback:
    case Op::Yield:
      return true;
    default:
      return false;
  }
}

const char* lock_mode_name(LockMode mode) {
  return mode == LockMode::Exclusive ? "exclusive" : "shared";
}

const char* task_priority_name(TaskPriority priority) {
  switch (priority) {
    case TaskPriority::UserBlocking:
      return "user-blocking";
    case TaskPriority::UserVisible:
      return "user-visible";
    case TaskPriority::Background:
      return "background";
  }
  return "?";
}

const char* released_promise_reading_name(ReleasedPromiseReading reading) {
  return reading == ReleasedPromiseReading::Note ? "note" : "steps";
}

const char* stale_removal_reading_name(StaleRemovalReading reading) {
  return reading == StaleRemovalReading::Fixed ? "fixed" : "literal";
}

const char* closed_window_jobs_reading_name(ClosedWindowJobsReading reading) {
  return reading == ClosedWindowJobsReading::Run ? "run" : "dropped";
}

std::vector<std::pair<const char*, const char*>> non_default_readings(const Readings& readings) {
  std::vector<std::pair<const char*, const char*>> members;
  const Readings defaults;
  if (readings.released_promise != defaults.released_promise)
    members.emplace_back("released-promise",
                         released_promise_reading_name(readings.released_promise));
  if (readings.stale_removal != defaults.stale_removal)
    members.emplace_back("stale-removal", stale_removal_reading_name(readings.stale_removal));
  if (readings.closed_window_jobs != defaults.closed_window_jobs)
    members.emplace_back("closed-window-jobs",
                         closed_window_jobs_reading_name(readings.closed_window_jobs));
  return members;
}

std::string readings_text(const Readings& readings) {
  std::string text;
  for (const auto& [member, value] : non_default_readings(readings))
    text += (text.empty() ? "\"" : ", \"") + std::string(member) + "\": \"" + value + "\"";
  return text;
}

const Agent* Trace::agent(const std::string& id) const {
  for (const Agent& a : agents)
    if (a.id == id) return &a;
  return nullptr;
}

bool Trace::uses_scheduling() const {
  bool found = false;
  for_each_action(steps, [&](const Action& a) { found = found || op_is_scheduling(a.op); });
  return found;
}

bool Trace::requests_a_lock() const {
  bool found = false;
  for_each_action(steps, [&](const Action& a) { found = found || a.op == Op::Request; });
  return found;
}

bool Trace::is_window_on_a_shared_event_loop(const Agent& a) const {
  if (a.kind != AgentKind::Window) return false;
  for (const Agent& other : agents)
    if (other.id != a.id && other.event_loop == a.event_loop) return true;
  return false;
}

bool Trace::realm_outlives_closing(const Agent& a) const {
  return readings.closed_window_jobs == ClosedWindowJobsReading::Run &&
         is_window_on_a_shared_event_loop(a);
}

bool Trace::closes_a_window_on_a_shared_event_loop() const {
  bool found = false;
  for_each_action(steps, [&](const Action& a) {
    if (found || a.op != Op::Terminate) return;
    const Agent* closing = agent(a.agent);
    found = closing && is_window_on_a_shared_event_loop(*closing);
  });
  return found;
}

ReadingsThatMatter Trace::which_readings_matter() const {
  return ReadingsThatMatter{requests_a_lock(), uses_scheduling(),
                            closes_a_window_on_a_shared_event_loop()};
}

std::vector<Readings> Trace::readings_that_matter() const {
  const ReadingsThatMatter matter = which_readings_matter();
  std::vector<Readings> all{readings};
  for (ReleasedPromiseReading r : {ReleasedPromiseReading::Steps, ReleasedPromiseReading::Note})
    for (StaleRemovalReading s : {StaleRemovalReading::Literal, StaleRemovalReading::Fixed})
      for (ClosedWindowJobsReading c :
           {ClosedWindowJobsReading::Dropped, ClosedWindowJobsReading::Run}) {
        const Readings candidate{matter.released_promise ? r : readings.released_promise,
                                 matter.stale_removal ? s : readings.stale_removal,
                                 matter.closed_window_jobs ? c : readings.closed_window_jobs};
        if (std::find(all.begin(), all.end(), candidate) == all.end()) all.push_back(candidate);
      }
  return all;
}

std::vector<int> settling_steps(const std::vector<bool>& settles) {
  std::vector<int> out(settles.size());
  int next = static_cast<int>(settles.size()) - 1;
  for (std::size_t i = settles.size(); i-- > 0;) {
    if (settles[i]) next = static_cast<int>(i);
    out[i] = next;
  }
  return out;
}

std::vector<int> settling_steps(const std::vector<Action>& steps) {
  std::vector<bool> settles;
  settles.reserve(steps.size());
  for (const Action& step : steps) settles.push_back(step.settle);
  return settling_steps(settles);
}

}  // namespace lockstep
