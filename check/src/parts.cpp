// The parts of a world that run independently, and the trace each is searched on (check.h,
// check/README.md "Parts").
#include <map>
#include <numeric>
#include <set>

#include "lockstep/check.h"

namespace lockstep::check {
namespace {

// Union-find over agent indexes.
class Groups {
 public:
  explicit Groups(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the earlier agent stays the root
  }

 private:
  std::vector<std::size_t> parent_;
};

// An id no agent of the trace has, for the window that stands in for the other parts' agents.
std::string placeholder_id(const Trace& trace) {
  std::set<std::string> taken;
  for (const Agent& a : trace.agents) {
    taken.insert(a.id);
    taken.insert(a.event_loop);
    taken.insert(a.partition);
  }
  std::string id = "other-parts";
  while (taken.count(id)) id += "'";
  return id;
}

// Whether the world's clock may order one part's work by another's timers. advanceTime settles
// after every instant at which a timer fires (I-4), whichever part's the timer is: work a part has
// pending then runs at another part's instant, stamped with the advanceTime step, where on its own
// it would wait for one of its own instants or a later settling. Work is pending when such a step
// begins after a `"settle": false` step, or after a settling that put idle periods off (I-27).
bool the_clock_couples_parts(const Trace& trace) {
  bool idle_callbacks = false;
  for_each_action(trace.steps, [&](const Action& a) {
    idle_callbacks = idle_callbacks || a.op == Op::RequestIdleCallback;
  });
  for (std::size_t k = 0; k < trace.steps.size(); ++k) {
    if (trace.steps[k].op != Op::AdvanceTime || k == 0) continue;
    if (idle_callbacks || !trace.steps[k - 1].settle) return true;
  }
  return false;
}

}  // namespace

std::vector<std::vector<std::string>> independent_parts(const Trace& trace) {
  if (the_clock_couples_parts(trace)) {  // one part: the whole world
    std::vector<std::string> all;
    for (const Agent& a : trace.agents) all.push_back(a.id);
    return {all};
  }
  Groups groups(trace.agents.size());
  std::map<std::string, std::size_t> first_in_partition, first_on_loop;
  for (std::size_t i = 0; i < trace.agents.size(); ++i) {
    const Agent& agent = trace.agents[i];
    // One lock task queue per partition (I-11) orders every lock manager's steps in it.
    const auto [partition, new_partition] = first_in_partition.emplace(agent.partition, i);
    if (!new_partition) groups.join(partition->second, i);
    // One event loop runs its agents' tasks in one order.
    const auto [loop, new_loop] = first_on_loop.emplace(agent.event_loop, i);
    if (!new_loop) groups.join(loop->second, i);
  }
  std::vector<std::vector<std::string>> parts;
  std::map<std::size_t, std::size_t> part_of_root;
  for (std::size_t i = 0; i < trace.agents.size(); ++i) {
    const auto [part, added] = part_of_root.emplace(groups.find(i), parts.size());
    if (added) parts.emplace_back();
    parts[part->second].push_back(trace.agents[i].id);
  }
  return parts;
}

Trace part_trace(const Trace& trace, const std::vector<std::string>& agents) {
  const std::set<std::string> members(agents.begin(), agents.end());
  Trace part;
  part.name = trace.name;
  part.description = trace.description;
  part.exercises = trace.exercises;
  part.readings = trace.readings;
  for (const Agent& a : trace.agents)
    if (members.count(a.id)) part.agents.push_back(a);
  Agent placeholder;
  placeholder.id = placeholder_id(trace);
  placeholder.origin = "opaque";  // no lock manager
  placeholder.partition = placeholder.event_loop = placeholder.id;
  part.agents.push_back(placeholder);
  part.steps.reserve(trace.steps.size());
  for (const Action& step : trace.steps) {
    if (step.op == Op::AdvanceTime || members.count(step.agent)) {
      part.steps.push_back(step);
      continue;
    }
    Action empty;
    empty.op = Op::Run;
    empty.pointer = step.pointer;
    empty.agent = placeholder.id;
    empty.settle = step.settle;
    part.steps.push_back(std::move(empty));
  }
  return part;
}

}  // namespace lockstep::check
