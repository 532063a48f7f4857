#include "state_fingerprint.h"

#include <functional>

namespace lockstep::check {
namespace {

// splitmix64's finalizer: every input bit moves about half the output bits.
std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9u;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebu;
  h ^= h >> 31;
  return h;
}

}  // namespace

std::size_t StateFingerprint::resource(const std::string& name) {
  const auto [at, added] = resources_.emplace(name, last_.size());
  if (added) {
    last_.emplace_back(0, barrier_);
    // Named by its name, not by when this run first met it: two orders meet them differently.
    names_.push_back(mix(std::hash<std::string>{}(name)));
  }
  return at->second;
}

std::uint64_t StateFingerprint::last(std::size_t r) const {
  return last_[r].second == barrier_ ? last_[r].first : barrier_hash_;
}

const StateFingerprint::Kind& StateFingerprint::kind_of(const std::string& unit) {
  if (const auto found = kinds_.find(unit); found != kinds_.end()) return found->second;
  if (idle_gates_.empty())
    for (const std::string& loop : independence_.loops())
      idle_gates_.push_back(resource("idle:" + loop));
  Kind k;
  k.name = mix(std::hash<std::string>{}(unit));
  const UnitName parsed = parse_unit_name(unit);
  if (parsed.lock_queue) {
    k.lock_queue = true;
    k.loop = resource(unit);
  } else {
    const std::string loop(parsed.where);
    k.trace = parsed.source == "trace";
    k.idle = parsed.source == "idle";
    k.loop = resource("loop:" + loop);
    if (k.idle) k.idle_gate = resource("idle:" + loop);
  }
  return kinds_.emplace(unit, k).first->second;
}

void StateFingerprint::touch(std::uint64_t h, const std::vector<std::size_t>& resources) {
  for (std::size_t r : resources) h = mix(h ^ (last(r) + names_[r]));
  for (std::size_t r : resources) last_[r] = {h, barrier_};
  sum_ += h;
}

void StateFingerprint::unit_ran(const std::string& unit, const UnitEffect& did) {
  const Kind& k = kind_of(unit);
  if (k.trace || (!k.lock_queue && !did.known)) return barrier(k.name);
  touched_.assign(1, k.loop);
  if (k.lock_queue) {
    touched_.insert(touched_.end(), idle_gates_.begin(), idle_gates_.end());
  } else {
    if (k.idle) touched_.push_back(k.idle_gate);
    for (unsigned bit = 0; bit < 64; ++bit)
      if (did.lock_queues >> bit & 1) touched_.push_back(resource("queue:" + std::to_string(bit)));
  }
  touch(mix(k.name ^ mix(did.lock_queues)), touched_);
}

void StateFingerprint::everything(const std::string& choice) {
  barrier(mix(std::hash<std::string>{}(choice)));
}

void StateFingerprint::step_began(int step) {
  barrier(mix(static_cast<std::uint64_t>(step) + 0x5bd1e9955bd1e995u));
}

void StateFingerprint::barrier(std::uint64_t what) {
  // Every resource's last unit is this one: its hash covers all that ran before it.
  barrier_hash_ = mix(what ^ mix(sum_ + 0x9e3779b97f4a7c15u));
  ++barrier_;
  sum_ += barrier_hash_;
}

}  // namespace lockstep::check
