#include "independence.h"

#include "lockstep/choice_point.h"

namespace lockstep::check {

UnitName parse_unit_name(std::string_view unit) {
  UnitName p;
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

Independence::Independence(const Trace& trace) {
  std::map<std::string, std::uint64_t> bits;
  for (const Agent& a : trace.agents) {
    loop_partitions_[a.event_loop].insert(a.partition);
    bits.emplace(a.partition, bits.size() < 64 ? std::uint64_t{1} << bits.size() : 0);
  }
  if (bits.size() > 64) return;  // effects unknown: every loop keeps the rule of shared partitions
  for (const auto& [loop, partitions] : loop_partitions_)
    for (const std::string& partition : partitions)
      loop_queue_bits_[loop].emplace_back(bits.at(partition), partition);
}

const Independence::LockQueues& Independence::lock_queues_reached_by(
    const std::string& unit) const {
  static const LockQueues kNone;
  if (const auto known = by_unit_.find(unit); known != by_unit_.end()) return *known->second;
  const LockQueues* queues = &kNone;
  if (unit.rfind("loop:", 0) == 0) {
    const auto found = loop_queue_bits_.find(parse_unit_name(unit).where);
    if (found != loop_queue_bits_.end()) queues = &found->second;
  }
  by_unit_.emplace(unit, queues);
  return *queues;
}

std::string_view Independence::unit_of(std::string_view choice) {
  const std::string_view unit = pins::unit_of(choice);
  if (unit.starts_with("locks:")) return unit;
  if (unit.starts_with("loop:") && unit.find('/') != std::string_view::npos) return unit;
  return {};
}

std::vector<std::string> Independence::loops() const {
  std::vector<std::string> loops;
  for (const auto& [loop, partitions] : loop_partitions_) loops.push_back(loop);
  return loops;
}

bool Independence::dependent(const std::string& a, const UnitEffect& a_did, const std::string& b,
                             const UnitEffect& b_did) const {
  if (a.empty() || b.empty() || a == b) return true;
  const UnitName x = parse_unit_name(a), y = parse_unit_name(b);
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
  // may differ, but only if both enqueued steps on one queue: one queue's steps in the same order
  // whichever loop ran first, and every other queue touched by one of them only.
  if (x.where == y.where) return true;
  if (a_did.known && b_did.known) return (a_did.lock_queues & b_did.lock_queues) != 0;
  const auto px = loop_partitions_.find(x.where), py = loop_partitions_.find(y.where);
  if (px == loop_partitions_.end() || py == loop_partitions_.end()) return true;
  for (const std::string& partition : px->second)
    if (py->second.count(partition)) return true;
  return false;
}

}  // namespace lockstep::check
