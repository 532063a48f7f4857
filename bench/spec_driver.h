// Drives the literal spec model (spec-model/) from C++ without a trace, so that the benchmarks time
// the modelled algorithms and the modelled event loops rather than trace parsing and logging.
//
// Every call does what one top-level trace step does in spec-model/runner/trace_runner.cpp: it runs
// the API call as a task of the agent, then lets the world settle (lock task queue, event loops,
// microtasks) until nothing is runnable. The script host stands in for the trace's callbacks: a
// lock callback either returns at once (the lock is released as soon as the grant finishes) or
// returns a promise that stays pending until release() resolves it, like a trace's
// {"result": {"pending": true}} followed by a later "settle" step.
//
// The spec model keeps every object it makes until the world is destroyed (World::make), so a
// driver grows by a few hundred bytes per operation; benchmarks make a fresh driver per run.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/scheduling.h"
#include "web-locks/web_locks.h"

namespace lockstep::bench {

class SpecModel final : public spec::ScriptHost {
 public:
  SpecModel();
  ~SpecModel() override;
  SpecModel(const SpecModel&) = delete;
  SpecModel& operator=(const SpecModel&) = delete;

  // A new agent (its own event loop) of the origin https://bench.test, partition "default".
  spec::Environment* add_agent(const std::string& id, AgentKind kind = AgentKind::Window);

  // --- Web Locks ---
  // navigator.locks.request(name, options, callback) as a task of `agent`, then settle. With
  // `hold`, the callback returns a promise that stays pending until release(handle). The handle
  // names the request for release() and granted().
  std::size_t request(spec::Environment* agent, const std::string& name,
                      spec::LockOptions options = {}, bool hold = true);
  // Resolves the pending promise the held callback of `handle` returned (a trace's "settle"),
  // then settles the world: the lock is released and what waits behind it is granted.
  void release(std::size_t handle);
  // Has the callback of request `handle` been called (with a lock)?
  bool granted(std::size_t handle) const { return results_[handle] != nullptr; }
  // navigator.locks.query() as a task of `agent`, then settle. Returns the promise (fulfilled).
  spec::Promise* query(spec::Environment* agent);
  // The agent terminates (a trace's "terminate" step), then settle.
  void terminate(spec::Environment* agent);

  // --- Prioritized Task Scheduling ---
  spec::Scheduling& scheduling() { return scheduling_; }
  spec::World& world() { return world_; }
  // scheduler.postTask(callback, options) as a task of `agent`, without settling: the posted task
  // stays queued until run_next_scheduler_task() runs it.
  void post_task(spec::Environment* agent, const spec::SchedulerPostTaskOptions& options);
  // scheduler.yield() as a task of `agent`, without settling.
  void yield(spec::Environment* agent);
  // The event loop processing model's scheduler step (the HTML patch): select the next scheduler
  // task queue from all schedulers of the agent's event loop and run its first runnable task.
  void run_next_scheduler_task(spec::Environment* agent);
  std::size_t tasks_run() const { return tasks_run_; }

  // --- ScriptHost ---
  spec::Completion call_lock_granted_callback(const spec::CallbackFunction& callback,
                                              spec::LockObject* lock) override;
  spec::Completion call_post_task_callback(const spec::CallbackFunction& callback) override;
  void call_idle_request_callback(const spec::CallbackFunction& callback) override;

 private:
  std::deque<Agent> agents_;  // Environment keeps a pointer to its Agent: addresses must stay put
  spec::World world_;
  spec::WebLocks locks_;
  spec::Scheduling scheduling_;
  // Per request handle: the promise its held callback returned (null: not called yet).
  std::vector<spec::Promise*> results_;
  std::vector<spec::Environment*> owners_;
  std::size_t tasks_run_ = 0;
};

}  // namespace lockstep::bench
