// Every trace within a small bound (`lockstep gen --exhaustive`).
//
// Web Locks (`--profile locks`): up to `agents` windows
// of one origin, `names` resource names and `ops` top-level steps, each step one of: request (an
// exclusive, shared, ifAvailable or steal request whose callback returns a pending promise),
// settle (the owner releases one of its granted locks), query, terminate. Traces that differ only
// by renaming agents or names are made once: agents and names enter in order of first use.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace lockstep::gen {

struct ExhaustiveBound {
  int agents = 3;
  int names = 2;
  int ops = 4;
};

// Calls `emit` with the JSON text of every candidate trace, in a fixed order, with its index in
// that order; stops early when `emit` returns false. Returns the number of candidates. A
// candidate may still fail to replay (a settle of a lock not granted yet): the caller runs it.
std::uint64_t enumerate_lock_traces(
    const ExhaustiveBound& bound,
    const std::function<bool(std::uint64_t index, const std::string& json)>& emit);

// Scheduling (`--profile scheduling`, exhaustive_scheduling.cpp): up to `agents` windows on one
// event loop and `ops` top-level steps, all but the last with `"settle": false`, each step one of:
// postTask (default priority, each of the three, with the signal of one of the agent's signals,
// with a callback that yields, or that queues a microtask that yields, or a background one that
// yields while a microtask queues a plain task), a plain event-loop task (a `run` inside a
// `run`), requestIdleCallback with a callback that yields, newTaskController of each priority or
// TaskSignal.any over one of the agent's controllers (at most `names` signals), onPriorityChange,
// setPriority to each priority, abort. Agents enter in order of first use. postTask delays are
// left out: they need the virtual clock.
std::uint64_t enumerate_scheduling_traces(
    const ExhaustiveBound& bound,
    const std::function<bool(std::uint64_t index, const std::string& json)>& emit);

}  // namespace lockstep::gen
