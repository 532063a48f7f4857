// Which units of the model commute, for the search's partial-order reduction (sleep sets, as in
// stateless model checkers): if two units are independent, running them in either order leaves
// the same state and each agent's events in the same order, so once the search has tried every
// schedule that runs one of them first, it need not try those that run the other first and the
// first right after. check/README.md ("Partial-order reduction") gives the argument.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lockstep/trace.h"

namespace lockstep::check {

// What a task of an event loop did that another loop's task can see: the lock task queues
// (partitions, as the bits lock_queues_reached_by gives them) it enqueued steps on, while it and
// its microtasks ran. Measured on the replay that ran it; unknown until then, and taken as
// everything.
struct UnitEffect {
  bool known = false;
  std::uint64_t lock_queues = 0;
};

// A unit's name taken apart ("locks:<partition>" or "loop:<loop>/<source>"), as views into it.
struct UnitName {
  bool lock_queue = false;
  std::string_view where;   // the partition of a lock task queue, or the event loop
  std::string_view source;  // a loop's task source ("trace", "web-locks", "scheduler", "idle", ...)
};
UnitName parse_unit_name(std::string_view unit);

class Independence {
 public:
  explicit Independence(const Trace& trace);

  // The unit a choice names ("locks:<partition>" or "loop:<loop>/<source>", an "early:" pin's
  // unit included); empty for a choice that runs no unit or begins a step ("step", "idle",
  // "settled"), which the search takes as dependent on everything.
  // A view into `choice`: no copy, as the search asks at every point. A temporary string would
  // leave the view dangling, so it is refused at compile time.
  static std::string_view unit_of(std::string_view choice);
  static std::string_view unit_of(std::string&&) = delete;
  static std::string_view unit_of(const char* choice) { return unit_of(std::string_view(choice)); }

  // Whether two units (unit_of) may fail to commute; true when unsure. With both units' effects
  // known, two loops that share a partition are independent unless both enqueued lock steps on
  // one of its queues.
  bool dependent(const std::string& a, const UnitEffect& a_did, const std::string& b,
                 const UnitEffect& b_did) const;

  // The partitions whose lock task queues a unit of this loop may enqueue on, with their bits;
  // empty for a lock queue's unit, and for a loop's when the trace has over 64 partitions.
  // Remembered per unit name: the search asks for every unit it runs.
  using LockQueues = std::vector<std::pair<std::uint64_t, std::string>>;
  const LockQueues& lock_queues_reached_by(const std::string& unit) const;

  // The trace's event loops.
  std::vector<std::string> loops() const;

 private:
  // event loop -> partitions (std::less<>: looked up by views into unit names)
  std::map<std::string, std::set<std::string>, std::less<>> loop_partitions_;
  // event loop -> (bit, partition) for each partition an agent on it belongs to
  std::map<std::string, LockQueues, std::less<>> loop_queue_bits_;
  mutable std::unordered_map<std::string, const LockQueues*> by_unit_;
};

}  // namespace lockstep::check
