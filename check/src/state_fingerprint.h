// A fingerprint of the state a replay has reached, for the search's cache of states already tried
// (check/README.md, "States already tried"). Two runs of one trace that differ only by the order
// of units that commute (independence.h) reach the same state, up to the ages of queued work,
// which the normative profile does not look at. The fingerprint names such a class of runs (a
// Mazurkiewicz trace): each unit's hash covers its name, what it did, and the hash of the last
// unit before it on every resource it touches; the fingerprint sums them. Two runs with the same
// fingerprint ran the same units, and every two that touch one resource in the same order, so
// one is the other with units that share no resource swapped.
//
// The resources over-approximate Independence::dependent: units of one loop share the loop; a
// loop's unit touches the lock task queue of each partition it gave steps to; a lock task queue's
// steps share that queue and touch every loop's idle gate, which its idle units touch too. A unit
// of a trace task, a choice that runs no unit and a step that begins are ordered against
// everything. What a unit did is measured as it ends, before a step that follows can add lock
// steps of its own, so a unit gets the same effect in every order. The sum is 64 bits: two
// different classes share one with a chance of about n²/2^65 for n states recorded.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "independence.h"

namespace lockstep::check {

class StateFingerprint {
 public:
  explicit StateFingerprint(const Independence& independence) : independence_(independence) {}

  void unit_ran(const std::string& unit, const UnitEffect& did);
  // A choice that ran no unit ("step", "idle", "settled"), or the top-level step that began:
  // ordered against all.
  void everything(const std::string& choice);
  void step_began(int step);
  std::uint64_t value() const { return sum_; }

 private:
  struct Kind {
    bool lock_queue = false;
    bool idle = false;
    bool trace = false;
    std::size_t loop = 0;       // its resource's index (a lock queue: its own)
    std::size_t idle_gate = 0;  // the loop's idle gate (idle units only)
    std::uint64_t name = 0;     // a hash of the unit's name
  };
  const Kind& kind_of(const std::string& unit);
  std::size_t resource(const std::string& name);
  std::uint64_t last(std::size_t r) const;
  void touch(std::uint64_t h, const std::vector<std::size_t>& resources);
  void barrier(std::uint64_t what);

  const Independence& independence_;
  std::unordered_map<std::string, Kind> kinds_;
  std::unordered_map<std::string, std::size_t> resources_;
  std::vector<std::size_t> idle_gates_;  // every loop's, for lock queue units
  // Per resource: the hash of the last unit on it, and the barrier it was touched after; one
  // not touched since the last barrier reads the barrier's hash.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> last_;
  std::vector<std::uint64_t> names_;  // per resource: a hash of its name
  std::uint64_t barrier_ = 0;
  std::uint64_t barrier_hash_ = 0;
  std::uint64_t sum_ = 0;
  std::vector<std::size_t> touched_;  // scratch
};

}  // namespace lockstep::check
