#include "lockstep/shrink.h"

#include <algorithm>
#include <set>

#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

class Shrinker {
 public:
  Shrinker(const std::function<bool(const Trace&)>& fails, ShrinkStats& stats)
      : fails_(fails), stats_(stats) {}

  // Keeps `candidate` when it is valid and still fails.
  bool try_take(Trace& current, const Trace& candidate) {
    auto valid = read_trace(write_trace(candidate));  // drops candidates with dangling ids
    if (!valid) return false;
    ++stats_.tests;
    if (!fails_(valid.value())) return false;
    current = std::move(valid.value());
    return true;
  }

  // ddmin over the top-level steps: remove chunks, halving the chunk size down to single steps.
  bool remove_steps(Trace& t) {
    bool changed = false;
    for (std::size_t chunk = std::max<std::size_t>(t.steps.size() / 2, 1); chunk >= 1; chunk /= 2) {
      for (std::size_t start = 0; start < t.steps.size();) {
        Trace candidate = t;
        const std::size_t end = std::min(start + chunk, candidate.steps.size());
        candidate.steps.erase(candidate.steps.begin() + static_cast<std::ptrdiff_t>(start),
                              candidate.steps.begin() + static_cast<std::ptrdiff_t>(end));
        if (try_take(t, candidate))
          changed = true;  // the same start now names the next chunk
        else
          start += chunk;
      }
      if (chunk == 1) break;
    }
    return changed;
  }

  // Removes an agent with every step it runs.
  bool remove_agents(Trace& t) {
    bool changed = false;
    for (std::size_t i = 0; i < t.agents.size() && t.agents.size() > 1;) {
      Trace candidate = t;
      const std::string id = candidate.agents[i].id;
      candidate.agents.erase(candidate.agents.begin() + static_cast<std::ptrdiff_t>(i));
      std::erase_if(candidate.steps, [&](const Action& s) { return s.agent == id; });
      if (try_take(t, candidate))
        changed = true;
      else
        ++i;
    }
    return changed;
  }

  // Removes single actions inside callbacks and bodies, anywhere in the tree.
  bool remove_nested(Trace& t) {
    bool changed = false;
    for (std::size_t n = 0;; ++n) {
      Trace candidate = t;
      std::size_t seen = 0;
      bool removed = false;
      for (Action& step : candidate.steps) remove_nth(step, n, seen, removed);
      if (!removed) break;  // fewer than n + 1 nested actions
      if (try_take(t, candidate)) {
        changed = true;
        --n;  // the next action now has this index
      }
    }
    return changed;
  }

  // Renames a resource name to the first one used, so that fewer distinct names remain.
  bool merge_names(Trace& t) {
    std::vector<std::string> names;
    for_each_action(t.steps, [&](const Action& a) {
      if (a.op == Op::Request && std::find(names.begin(), names.end(), a.name) == names.end())
        names.push_back(a.name);
    });
    bool changed = false;
    for (std::size_t i = 1; i < names.size(); ++i) {
      Trace candidate = t;
      rename(candidate.steps, names[i], names[0]);
      if (try_take(t, candidate)) changed = true;
    }
    return changed;
  }

 private:
  static void remove_nth(Action& a, std::size_t n, std::size_t& seen, bool& removed) {
    for (std::vector<Action>* body : {a.callback ? &a.callback->body : nullptr, &a.body}) {
      if (!body) continue;
      for (std::size_t i = 0; i < body->size() && !removed; ++i) {
        if (seen++ == n) {
          body->erase(body->begin() + static_cast<std::ptrdiff_t>(i));
          removed = true;
          return;
        }
        remove_nth((*body)[i], n, seen, removed);
      }
      if (removed) return;
    }
  }

  static void rename(std::vector<Action>& actions, const std::string& from, const std::string& to) {
    for (Action& a : actions) {
      if (a.op == Op::Request && a.name == from) a.name = to;
      if (a.callback) rename(a.callback->body, from, to);
      rename(a.body, from, to);
    }
  }

  const std::function<bool(const Trace&)>& fails_;
  ShrinkStats& stats_;
};

}  // namespace

std::size_t count_calls(const Trace& trace) {
  std::size_t n = 0;
  for_each_action(trace.steps, [&](const Action&) { ++n; });
  return n;
}

Trace shrink(const Trace& failing, const std::function<bool(const Trace&)>& fails,
             ShrinkStats* stats) {
  ShrinkStats local;
  ShrinkStats& s = stats ? *stats : local;
  s.steps_before = failing.steps.size();
  s.calls_before = count_calls(failing);
  s.agents_before = failing.agents.size();
  Trace t = failing;
  t.schedule.clear();  // a pinned schedule rarely survives removals; check searches them all
  Shrinker shrinker(fails, s);
  if (!shrinker.try_take(t, t)) t = failing;  // without the schedule it may no longer fail
  // Repeat the passes until none removes anything: each pass may enable another.
  for (bool changed = true; changed;) {
    changed = shrinker.remove_agents(t);
    changed = shrinker.remove_steps(t) || changed;
    changed = shrinker.remove_nested(t) || changed;
    changed = shrinker.merge_names(t) || changed;
  }
  s.steps_after = t.steps.size();
  s.calls_after = count_calls(t);
  s.agents_after = t.agents.size();
  return t;
}

}  // namespace lockstep::check
