#include "independence.h"

#include "lockstep/choice_point.h"

namespace lockstep::check {
namespace {

struct Parsed {
  bool lock_queue = false;
  std::string where;   // the partition of a lock task queue, or the event loop
  std::string source;  // a loop's task source ("trace", "web-locks", "scheduler", "idle", ...)
};

Parsed parse(const std::string& unit) {
  Parsed p;
  if (unit.rfind("locks:", 0) == 0) {
    p.lock_queue = true;
    p.where = unit.substr(6);
    return p;
  }
  const std::size_t slash = unit.rfind('/');
  p.where = unit.substr(5, slash - 5);  // after "loop:"
  p.source = unit.substr(slash + 1);
  return p;
}

}  // namespace

Independence::Independence(const Trace& trace) {
  for (const Agent& a : trace.agents) loop_partitions_[a.event_loop].insert(a.partition);
}

std::string Independence::unit_of(const std::string& choice) {
  std::string unit(pins::unit_of(choice));
  if (unit.rfind("locks:", 0) == 0) return unit;
  if (unit.rfind("loop:", 0) == 0 && unit.find('/') != std::string::npos) return unit;
  return {};
}

bool Independence::dependent(const std::string& a, const std::string& b) const {
  if (a.empty() || b.empty() || a == b) return true;
  const Parsed x = parse(a), y = parse(b);
  // The trace's own tasks run top-level steps (unload among them): taken as touching everything.
  if (x.source == "trace" || y.source == "trace") return true;
  // Two lock task queues: each works on its own user agent's lock managers.
  if (x.lock_queue && y.lock_queue) return false;
  // A lock task queue's step and a task or callback of an event loop: script reaches the lock
  // managers only by enqueuing steps at the back of a lock task queue, and the steps reach script
  // only by queuing tasks at the back of a task source, so either order gives the same.
  // But for an idle period: it may start only while its loop has no task (I-19), and a task the
  // step queues there disables it.
  if (x.lock_queue || y.lock_queue) return x.source == "idle" || y.source == "idle";
  // Two event loops: independent when no lock task queue is reachable from both (agents share
  // promises only within one event loop); otherwise the order in which their steps are enqueued
  // may differ.
  if (x.where == y.where) return true;
  const auto px = loop_partitions_.find(x.where), py = loop_partitions_.find(y.where);
  if (px == loop_partitions_.end() || py == loop_partitions_.end()) return true;
  for (const std::string& partition : px->second)
    if (py->second.count(partition)) return true;
  return false;
}

}  // namespace lockstep::check
