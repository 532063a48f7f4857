// The trace: a closed world (agents) and a script of steps. Format: traces/README.md, version 1.
// This is the engine-neutral form that every engine (spec model, impl) replays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/box.h"
#include "lockstep/compact_string.h"
#include "lockstep/trace_pointer.h"
#include "lockstep/value.h"

namespace lockstep {

enum class Op {
  // Web Locks and the platform under it
  Request,
  Query,
  NewAbortController,
  Abort,
  TimeoutSignal,
  Settle,
  Terminate,
  Unload,
  // Prioritized Task Scheduling
  PostTask,
  NewTaskController,
  SetPriority,
  TaskSignalAny,
  OnPriorityChange,
  RequestIdleCallback,
  // Script structure
  Run,
  SetTimeout,
  NewPromise,
  Then,
  QueueMicrotask,
  AdvanceTime,
  // Body-only
  Await,
  Yield,
  Mark,
};

const char* op_name(Op op);
bool op_is_scheduling(Op op);

enum class LockMode { Exclusive, Shared };
const char* lock_mode_name(LockMode mode);

enum class TaskPriority { UserBlocking, UserVisible, Background };
const char* task_priority_name(TaskPriority priority);

enum class AgentKind { Window, Worker };

struct Agent {
  std::string id;  // also its clientId in logs
  AgentKind kind = AgentKind::Window;
  std::string origin;  // "opaque" or a serialized origin
  std::string partition = "default";
  std::string event_loop;  // the trace's "eventLoop", or the agent's id when absent
  std::string pointer;
};

struct Action;

// The members below are kept small (compact_string.h, trace_pointer.h, box.h): a trace holds
// hundreds of thousands of actions, and peak memory while reading one is a goal
// (docs/performance.md, "Reading traces and logs").

struct Callback {
  enum class Result : std::uint8_t { Return, Throw, Pending };
  std::vector<Action> body;
  Box<Value> value;  // the returned or thrown value (absent: undefined)
  TracePointer pointer;
  Result result = Result::Return;
  bool is_async = false;  // the body awaits or yields at its own level
};

struct LockOptionsSpec {
  LockMode mode = LockMode::Exclusive;
  bool if_available = false;
  bool steal = false;
  std::optional<CompactString> signal;
};

struct PostTaskOptionsSpec {
  std::optional<TaskPriority> priority;
  std::optional<CompactString> signal;
  std::optional<std::uint64_t> delay;
};

// TaskSignal.any's priority: a TaskPriority or another TaskSignal.
struct AnyPrioritySpec {
  std::optional<TaskPriority> priority;
  std::optional<CompactString> signal;
};

struct Action {
  Op op = Op::Mark;
  bool settle = true;                    // top-level steps only
  bool fulfill = true;                   // settle
  std::optional<TaskPriority> priority;  // newTaskController, setPriority
  TracePointer pointer;                  // where the action is in the trace
  CompactString agent;  // the running agent (implied inside bodies, filled in by the reader)
  CompactString id;     // what the action creates
  CompactString name;   // request
  Box<LockOptionsSpec> lock_options;  // absent: the two-argument request() overload
  Box<Callback> callback;             // request, postTask, requestIdleCallback
  CompactString signal;               // abort, onPriorityChange
  CompactString controller;           // setPriority
  CompactString target;               // settle, then, await
  Box<Value> reason;                  // abort
  Box<Value> value;                   // settle (absent: undefined)
  std::uint64_t ms = 0;               // timeoutSignal, setTimeout, advanceTime
  Box<PostTaskOptionsSpec> task_options;
  Box<std::vector<CompactString>> signals;  // taskSignalAny
  Box<AnyPrioritySpec> any_priority;        // taskSignalAny
  std::vector<Action> body;  // run, setTimeout, then, queueMicrotask, onPriorityChange
  CompactString label;       // mark
};

// Where the spec's text allows more than one reading, which one a replay follows
// (docs/interpretations.md; `check` searches them all).
enum class ReleasedPromiseReading {
  Steps,  // I-6: resolved from the lock task queue after the release, by a queued task (default)
  Note,   // I-24: resolved on the agent in the microtask that sees the waiting promise settle
};

// A spec defect (docs/spec-issues.md, Prioritized Task Scheduling 1) that every engine measured
// fixes the same way: the literal text, or the fix (I-25).
enum class StaleRemovalReading {
  Literal,  // a queue's removal steps remove its key's map entry, whichever queue holds it now
  Fixed,    // only if the entry still holds that queue (Chromium 156, Firefox 153)
};

// What becomes of the promise jobs of a window that terminates (closes) while another agent keeps
// its event loop running (I-29): HTML's HostEnqueuePromiseJob no longer asks whether script can
// run in the job's realm, and engines differ.
enum class ClosedWindowJobsReading {
  Dropped,  // I-10: the window never runs script again (HTML's earlier text; Firefox 153)
  Run,      // its microtasks still run, in a document that is not fully active (Chromium 156)
};

struct Readings {
  ReleasedPromiseReading released_promise = ReleasedPromiseReading::Steps;
  StaleRemovalReading stale_removal = StaleRemovalReading::Literal;
  ClosedWindowJobsReading closed_window_jobs = ClosedWindowJobsReading::Dropped;
  friend bool operator==(const Readings&, const Readings&) = default;
};

// The trace format's names of the readings ("released-promise": "steps" | "note",
// "stale-removal": "literal" | "fixed", "closed-window-jobs": "dropped" | "run").
const char* released_promise_reading_name(ReleasedPromiseReading reading);
const char* stale_removal_reading_name(StaleRemovalReading reading);
const char* closed_window_jobs_reading_name(ClosedWindowJobsReading reading);
// The readings that are not the defaults, as (member, value) of the trace's `readings`
// ({"released-promise", "note"}); empty for the defaults.
std::vector<std::pair<const char*, const char*>> non_default_readings(const Readings& readings);
// The same as the member's text (`"released-promise": "note"`, comma-separated).
std::string readings_text(const Readings& readings);

// Which readings can change a trace's replay (Trace::which_readings_matter).
struct ReadingsThatMatter {
  bool released_promise = false;    // a lock is requested
  bool stale_removal = false;       // the scheduler is used
  bool closed_window_jobs = false;  // a window on a shared event loop terminates
};

struct Trace {
  std::string name;
  std::string description;
  std::vector<std::string> exercises;  // spec step ids the scenario is about
  std::vector<Agent> agents;
  std::vector<Action> steps;
  std::vector<std::string> schedule;  // pinned choices, see docs/interpretations.md I-1
  std::string schedule_pointer = "/schedule";
  Readings readings;  // extension `readings`

  const Agent* agent(const std::string& id) const;
  bool uses_scheduling() const;
  bool requests_a_lock() const;  // anywhere, top level or in a body
  // `a` is a window whose event loop another agent of the trace shares: the closed-window-jobs
  // reading is about such a window's closing (I-29).
  bool is_window_on_a_shared_event_loop(const Agent& a) const;
  // `a` terminating leaves its realm's microtasks running: the trace's reading is "run" and `a` a
  // window on a shared event loop (I-29; how both engines terminate an agent).
  bool realm_outlives_closing(const Agent& a) const;
  // A window on a shared event loop terminates (anywhere).
  bool closes_a_window_on_a_shared_event_loop() const;
  ReadingsThatMatter which_readings_matter() const;
  // Every combination of readings under which the trace may replay differently, its own first:
  // those of which_readings_matter() vary, the others stay the trace's.
  std::vector<Readings> readings_that_matter() const;
};

// For each top-level step, the step whose settling it belongs to (traces/README.md): itself if it
// settles, else the next step that does, else the last step. What runs while a step waits for
// queued work (I-26) carries that step's entry, as a runner stamps what arrives then.
std::vector<int> settling_steps(const std::vector<Action>& steps);
// The same from each step's `settle` flag alone.
std::vector<int> settling_steps(const std::vector<bool>& settles);

// Calls f on every action, depth first in document order (an action before its nested bodies).
template <class F>
void for_each_action(const std::vector<Action>& actions, F&& f) {
  for (const Action& a : actions) {
    f(a);
    if (a.callback) for_each_action(a.callback->body, f);
    for_each_action(a.body, f);
  }
}

}  // namespace lockstep
