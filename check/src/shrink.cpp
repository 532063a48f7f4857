#include "lockstep/shrink.h"

#include <algorithm>
#include <set>
#include <string_view>

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

  // Sets each option and flag an action gives back to its default, one at a time: a shared
  // request made exclusive, ifAvailable, steal and a signal dropped (then the two-argument
  // request() once nothing is left), a postTask's priority, signal and delay, a controller's
  // priority, a step's `"settle": false`, a callback that throws or never settles made to
  // return, and the values and reasons it carries. Dropping an option's signal may leave the
  // controller that made it unused, which remove_unused then removes.
  bool drop_options(Trace& t) {
    bool changed = false;
    for (std::size_t n = 0;; ++n) {
      bool any = false;  // the trace has an n-th action at all
      for (int choice = 0;; ++choice) {
        Trace candidate = t;
        std::size_t seen = 0;
        Action* action = nullptr;
        for_each_mutable(candidate.steps, [&](Action& a) {
          if (seen++ == n) action = &a;
        });
        if (!action) break;
        any = true;
        const Reset reset = reset_option(*action, choice);
        if (reset == Reset::NoMore) break;
        if (reset == Reset::Changed && try_take(t, candidate)) changed = true;
      }
      if (!any) break;
    }
    return changed;
  }

  // Removes the actions that only make an object (a controller, a signal, a promise) that no
  // action names: all of them at once, else one at a time.
  bool remove_unused(Trace& t) {
    const auto unused_makers = [](Trace& trace) {
      std::set<std::string, std::less<>> named;
      for_each_action(trace.steps, [&](const Action& a) { names_used(a, named); });
      std::vector<Action*> makers;
      for_each_mutable(trace.steps, [&](Action& a) {
        if (makes_object_only(a.op) && !a.id.empty() && !named.count(std::string_view(a.id)))
          makers.push_back(&a);
      });
      return makers;
    };
    Trace all = t;
    const std::vector<Action*> makers = unused_makers(all);
    const std::size_t unused = makers.size();
    if (unused == 0) return false;
    for (Action* a : makers) a->op = Op::Mark, a->label = kRemoved;
    erase_removed(all.steps);
    if (try_take(t, all)) return true;
    bool changed = false;
    for (std::size_t i = 0; i < unused;) {
      Trace one = t;
      const std::vector<Action*> left = unused_makers(one);
      if (i >= left.size()) break;
      left[i]->op = Op::Mark, left[i]->label = kRemoved;
      erase_removed(one.steps);
      if (try_take(t, one))
        changed = true;
      else
        ++i;
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
  // Marks what remove_unused takes out; no trace's own mark has this label (it is not valid text
  // for one: a mark's label is the trace's, and this one is erased before any reader sees it).
  static constexpr const char* kRemoved = "\x01lockstep-removed";

  enum class Reset { Changed, Unchanged, NoMore };

  // The `choice`-th option or flag of `a` set back to its default: Changed when it was not,
  // Unchanged when it already was, NoMore past the last choice.
  static Reset reset_option(Action& a, int choice) {
    const auto reset = [](auto& member, auto value) {
      if (member == value) return Reset::Unchanged;
      member = value;
      return Reset::Changed;
    };
    switch (choice) {
      case 0:
        return reset(a.settle, true);
      case 1:
        return a.priority ? (a.priority.reset(), Reset::Changed) : Reset::Unchanged;
      case 2:
        return a.reason.has_value() ? (a.reason.reset(), Reset::Changed) : Reset::Unchanged;
      case 3:
        return a.value.has_value() ? (a.value.reset(), Reset::Changed) : Reset::Unchanged;
      default:
        break;
    }
    choice -= 4;
    if (choice < 4) {  // request()'s options
      if (!a.lock_options.has_value()) return Reset::Unchanged;
      LockOptionsSpec& o = *a.lock_options;
      switch (choice) {
        case 0:
          return reset(o.mode, LockMode::Exclusive);
        case 1:
          return reset(o.if_available, false);
        case 2:
          return reset(o.steal, false);
        default:
          return o.signal ? (o.signal.reset(), Reset::Changed) : Reset::Unchanged;
      }
    }
    choice -= 4;
    if (choice == 0) {  // the two-argument request(), once every option is its default
      if (!a.lock_options.has_value()) return Reset::Unchanged;
      const LockOptionsSpec& o = *a.lock_options;
      if (o.mode != LockMode::Exclusive || o.if_available || o.steal || o.signal)
        return Reset::Unchanged;
      a.lock_options.reset();
      return Reset::Changed;
    }
    choice -= 1;
    if (choice < 3) {  // postTask()'s options
      if (!a.task_options.has_value()) return Reset::Unchanged;
      PostTaskOptionsSpec& o = *a.task_options;
      if (choice == 0) return o.priority ? (o.priority.reset(), Reset::Changed) : Reset::Unchanged;
      if (choice == 1) return o.signal ? (o.signal.reset(), Reset::Changed) : Reset::Unchanged;
      return o.delay ? (o.delay.reset(), Reset::Changed) : Reset::Unchanged;
    }
    choice -= 3;
    if (choice < 2) {  // what a callback does at its end
      if (!a.callback.has_value()) return Reset::Unchanged;
      Callback& c = *a.callback;
      if (choice == 0) return reset(c.result, Callback::Result::Return);
      return c.value.has_value() ? (c.value.reset(), Reset::Changed) : Reset::Unchanged;
    }
    return Reset::NoMore;
  }

  // Ops whose action does nothing but make an object (its id) for later actions to name.
  static bool makes_object_only(Op op) {
    return op == Op::NewAbortController || op == Op::NewTaskController || op == Op::TimeoutSignal ||
           op == Op::TaskSignalAny || op == Op::NewPromise;
  }

  // The ids action `a` names (not the one it makes).
  static void names_used(const Action& a, std::set<std::string, std::less<>>& named) {
    for (const CompactString* id : {&a.signal, &a.controller, &a.target})
      if (!id->empty()) named.emplace(std::string_view(*id));
    if (a.lock_options.has_value() && a.lock_options->signal)
      named.emplace(std::string_view(*a.lock_options->signal));
    if (a.task_options.has_value() && a.task_options->signal)
      named.emplace(std::string_view(*a.task_options->signal));
    if (a.any_priority.has_value() && a.any_priority->signal)
      named.emplace(std::string_view(*a.any_priority->signal));
    if (a.signals.has_value())
      for (const CompactString& s : *a.signals) named.emplace(std::string_view(s));
  }

  template <class F>
  static void for_each_mutable(std::vector<Action>& actions, F&& f) {
    for (Action& a : actions) {
      f(a);
      if (a.callback.has_value()) for_each_mutable(a.callback->body, f);
      for_each_mutable(a.body, f);
    }
  }

  static void erase_removed(std::vector<Action>& actions) {
    std::erase_if(actions, [](const Action& a) {
      return a.op == Op::Mark && std::string_view(a.label) == kRemoved;
    });
    for (Action& a : actions) {
      if (a.callback.has_value()) erase_removed(a.callback->body);
      erase_removed(a.body);
    }
  }

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
    changed = shrinker.drop_options(t) || changed;
    changed = shrinker.remove_unused(t) || changed;
    changed = shrinker.merge_names(t) || changed;
  }
  s.steps_after = t.steps.size();
  s.calls_after = count_calls(t);
  s.agents_after = t.agents.size();
  return t;
}

}  // namespace lockstep::check
