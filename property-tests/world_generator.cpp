// Random worlds and scripts over every op of the trace format (traces/README.md). What keeps a
// generated trace valid and free of replay errors:
// - references name only ids made earlier at top level on the same event loop (I-16), or earlier
//   in the same body: an id made in a body that never runs would not exist at replay time;
// - a `newPromise` is settled at most once, by a top-level step or by one body;
// - nothing follows an agent's `terminate`; `unload` and `requestIdleCallback` only on windows.
// Invalid option combinations (steal with ifAvailable or a signal, names starting with '-', an
// aborted signal) are generated on purpose: their exceptions are part of the behaviour compared.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "generators.h"

namespace lockstep::gen {
namespace {

const TaskPriority kPriorities[] = {TaskPriority::UserBlocking, TaskPriority::UserVisible,
                                    TaskPriority::Background};

// What script on one event loop can name.
struct Scope {
  std::vector<std::string> promises;       // awaitable: request, query, postTask, yield, newPromise
  std::vector<std::string> gates;          // newPromise ids not settled yet
  std::vector<std::string> abort_signals;  // AbortController, timeoutSignal, and task signals
  std::vector<std::string> controllers;    // what `abort` can name
  std::vector<std::string> task_controllers;  // what `setPriority` can name
  std::vector<std::string> task_signals;      // TaskController ids and TaskSignal.any results
};

// Draws that do not shrink with RapidCheck's size (its inRange narrows the range at small sizes,
// which would make every `chance` true and every world one agent): the size decides only how many
// steps a trace has. Shrinking still moves each draw towards its minimum.
int uniform(int min, int max) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(min, max));
}

template <class T>
T pick(const std::vector<T>& from) {
  return from[static_cast<std::size_t>(uniform(0, static_cast<int>(from.size())))];
}

template <class T>
T one_of(std::initializer_list<T> from) {
  return pick(std::vector<T>(from));
}

bool chance(int percent) {
  return uniform(0, 100) < percent;
}

class WorldBuilder {
 public:
  explicit WorldBuilder(const Profile& profile) : profile_(profile) {}

  Trace build(int size) {
    make_world();
    const int steps = uniform(1, 4 + size);
    for (int s = 0; s < steps && !live_.empty(); ++s) top_level_step();
    return std::move(trace_);
  }

 private:
  void make_world() {
    // One to three resource names per world: with one, every request contends.
    const int name_count = uniform(1, 4);
    for (int i = 1; i <= name_count; ++i) names_.push_back("n" + std::to_string(i));
    const int partitions = profile_.partitions ? uniform(1, 4) : 1;
    std::vector<std::string> origins{"https://a.test"};
    if (profile_.origins) origins.push_back("https://b.test");
    if (profile_.opaque) origins.push_back("opaque");
    const int origin_count = uniform(1, static_cast<int>(origins.size()) + 1);
    const int agents = uniform(profile_.min_agents, profile_.max_agents + 1);
    for (int i = 0; i < agents; ++i) {
      Agent a;
      a.id = std::string(1, static_cast<char>('A' + i));
      a.kind = profile_.workers && chance(30) ? AgentKind::Worker : AgentKind::Window;
      a.origin = origins[uniform(0, origin_count)];
      a.partition = partitions > 1 ? "p" + std::to_string(uniform(0, partitions)) : "default";
      a.event_loop = a.id;
      // A window may share the event loop of an earlier window (a similar-origin window agent).
      // Opaque origins are each their own, so no two opaque windows are similar-origin.
      if (profile_.shared_loops && a.kind == AgentKind::Window && a.origin != "opaque" &&
          chance(30))
        for (Agent& other : trace_.agents)
          if (other.kind == AgentKind::Window && other.origin == a.origin &&
              other.partition == a.partition) {
            // A shared loop needs a name of its own (an agent's id names only its own loop).
            if (other.event_loop == other.id) other.event_loop = "loop-" + other.id;
            a.event_loop = other.event_loop;
            break;
          }
      a.pointer = "/agents/" + std::to_string(i);
      trace_.agents.push_back(a);
      live_.push_back(a.id);
      if (a.kind == AgentKind::Window) loaded_.push_back(a.id);
    }
  }

  const Agent& agent(const std::string& id) const { return *trace_.agent(id); }
  Scope& scope_of(const std::string& agent_id) { return scopes_[agent(agent_id).event_loop]; }
  std::string fresh(const char* prefix) { return prefix + std::to_string(next_id_++); }

  void top_level_step() {
    const std::string who = pick(live_);
    const std::string p = "/steps/" + std::to_string(trace_.steps.size());
    Scope& scope = scope_of(who);
    Action a;
    const int kind = uniform(0, 100);
    if (kind < 6 && profile_.timers) {
      a.op = Op::AdvanceTime;
      a.ms = one_of<std::uint64_t>({1, 10, 50, 200});
    } else if (kind < 10) {
      a = lifecycle(who);
    } else if (kind < 18 && profile_.scheduling) {
      // A burst: one task posting several at once, so that priorities and signals decide.
      a.op = Op::Run;
      const int n = uniform(2, 5);
      for (int i = 0; i < n; ++i) {
        Action post;
        post_task(post, who, scope, p + "/body/" + std::to_string(i), 1, false);
        a.body.push_back(std::move(post));
      }
    } else if (kind < 24 && scope.gates.empty()) {
      a.op = Op::NewPromise;  // gates that later lock callbacks await and later steps settle
      a.id = fresh("g");
      scope.promises.push_back(a.id);
      scope.gates.push_back(a.id);
    } else {
      // Top-level actions are the body actions plus the ones that only make sense here.
      a = action(who, scope, p, /*depth=*/0, /*top=*/true);
    }
    if (a.op != Op::AdvanceTime) a.agent = who;
    a.pointer = p;
    a.settle = chance(60);  // the rest race with the next step: choice points
    trace_.steps.push_back(std::move(a));
  }

  Action lifecycle(const std::string& who) {
    Action a;
    const bool window = agent(who).kind == AgentKind::Window;
    const bool loaded = std::find(loaded_.begin(), loaded_.end(), who) != loaded_.end();
    if (profile_.unload && window && loaded && chance(50)) {
      a.op = Op::Unload;
      loaded_.erase(std::find(loaded_.begin(), loaded_.end(), who));
    } else {
      a.op = Op::Terminate;
      live_.erase(std::find(live_.begin(), live_.end(), who));
      const auto l = std::find(loaded_.begin(), loaded_.end(), who);
      if (l != loaded_.end()) loaded_.erase(l);
    }
    return a;
  }

  // One action for agent `who`; `top` says whether it is a top-level step (ids it makes are then
  // visible to later steps on its event loop).
  Action action(const std::string& who, Scope& scope, const std::string& p, int depth, bool top) {
    const bool scheduling = profile_.scheduling;
    const bool window = agent(who).kind == AgentKind::Window;
    for (;;) {
      const int kind = uniform(0, 100);
      Action a;
      a.pointer = p;
      if (kind < 30 && profile_.locks) {
        request(a, who, scope, p, depth, top);
      } else if (kind < 37 && profile_.locks && profile_.query) {
        a.op = Op::Query;
        a.id = fresh("q");
        if (top) scope.promises.push_back(a.id);
      } else if (kind < 42) {
        a.op = Op::NewPromise;
        a.id = fresh("g");
        if (top) {
          scope.promises.push_back(a.id);
          scope.gates.push_back(a.id);
        }
      } else if (kind < 52 && !scope.gates.empty()) {
        a.op = Op::Settle;
        a.target = pick(scope.gates);
        scope.gates.erase(std::find(scope.gates.begin(), scope.gates.end(), a.target));
        a.fulfill = chance(70);
        a.value = Value::number(uniform(0, 9));
      } else if (kind < 56) {
        a.op = Op::NewAbortController;
        a.id = fresh("c");
        if (top) {
          scope.abort_signals.push_back(a.id);
          scope.controllers.push_back(a.id);
        }
      } else if (kind < 61 && !scope.controllers.empty()) {
        a.op = Op::Abort;
        a.signal = pick(scope.controllers);
        if (chance(30)) a.reason = Value::string("why");
      } else if (kind < 63 && profile_.timers) {
        a.op = Op::TimeoutSignal;
        a.id = fresh("ts");
        a.ms = one_of<std::uint64_t>({1, 10, 100});
        if (top) scope.abort_signals.push_back(a.id);
      } else if (kind < 73 && scheduling) {
        post_task(a, who, scope, p, depth, top);
      } else if (kind < 77 && scheduling) {
        a.op = Op::NewTaskController;
        a.id = fresh("tc");
        if (chance(70))
          a.priority = pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
        if (top) {
          scope.controllers.push_back(a.id);
          scope.abort_signals.push_back(a.id);
          scope.task_controllers.push_back(a.id);
          scope.task_signals.push_back(a.id);
        }
      } else if (kind < 81 && scheduling && !scope.task_controllers.empty()) {
        a.op = Op::SetPriority;
        a.controller = pick(scope.task_controllers);
        a.priority = pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
      } else if (kind < 83 && scheduling && !scope.abort_signals.empty()) {
        a.op = Op::TaskSignalAny;
        a.id = fresh("any");
        const int n = uniform(1, 3);
        for (int i = 0; i < n; ++i) a.signals->push_back(pick(scope.abort_signals));
        if (chance(40) && !scope.task_signals.empty())
          a.any_priority->signal = pick(scope.task_signals);
        else if (chance(60))
          a.any_priority->priority =
              pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
        if (top) {
          scope.abort_signals.push_back(a.id);
          scope.task_signals.push_back(a.id);
        }
      } else if (kind < 85 && scheduling && !scope.task_signals.empty() && depth < 2) {
        a.op = Op::OnPriorityChange;
        a.signal = pick(scope.task_signals);
        if (chance(50)) a.body = listener_body(scope, p + "/body");
      } else if (kind < 87 && scheduling && window) {
        a.op = Op::RequestIdleCallback;
        a.id = fresh("idle");
        a.callback = callback(who, scope, p + "/callback", depth + 1, /*task=*/true);
      } else if (kind < 91 && depth < 2) {
        a.op = one_of({Op::Run, Op::QueueMicrotask, Op::SetTimeout});
        if (a.op == Op::Run && !top) continue;  // run is a top-level task of its own
        if (a.op == Op::SetTimeout) {
          if (!profile_.timers) continue;
          a.id = fresh("timer");
          a.ms = one_of<std::uint64_t>({0, 5, 50});
        }
        a.body = body(who, scope, p + "/body", depth + 1);
      } else if (kind < 94 && depth < 2 && !scope.promises.empty()) {
        a.op = Op::Then;
        a.target = pick(scope.promises);
        a.body = body(who, scope, p + "/body", depth + 1);
      } else if (kind < 96 && !top) {
        a.op = Op::Mark;
        a.label = fresh("m");
      } else if (!top && kind < 98 && !scope.promises.empty()) {
        a.op = Op::Await;
        a.target = pick(scope.promises);
      } else if (!top && scheduling) {
        a.op = Op::Yield;
        a.id = fresh("y");
      } else {
        continue;  // that branch's precondition failed: draw again
      }
      return a;
    }
  }

  void request(Action& a, const std::string& who, Scope& scope, const std::string& p, int depth,
               bool top) {
    a.op = Op::Request;
    a.id = fresh("r");
    // What the profile leaves out is dropped after the draw, so that the full profile draws
    // alike (its traces stay those of their seeds).
    const bool reserved = chance(3);
    a.name = reserved && profile_.invalid_arguments ? "-reserved" : pick(names_);
    if (chance(60)) {
      LockOptionsSpec o;
      const bool exclusive = chance(50);
      o.mode = exclusive || !profile_.shared ? LockMode::Exclusive : LockMode::Shared;
      const int flavour = uniform(0, 20);
      if (flavour == 0) o.steal = true;
      if (flavour <= 3 && flavour >= 1) o.if_available = true;
      if (flavour == 4) o.steal = o.if_available = true;  // NotSupportedError
      if ((flavour == 5 || flavour >= 12) && !scope.abort_signals.empty() && profile_.lock_signal)
        o.signal = pick(scope.abort_signals);  // with flavour 5 also steal: NotSupportedError
      if (flavour == 5) o.steal = true;
      if (!profile_.invalid_arguments && (flavour == 4 || flavour == 5)) o.steal = false;
      if (!profile_.steal) o.steal = false;
      if (!profile_.if_available) o.if_available = false;
      a.lock_options = o;
    }
    a.callback = callback(who, scope, p + "/callback", depth + 1, /*task=*/false);
    if (top) scope.promises.push_back(a.id);
  }

  void post_task(Action& a, const std::string& who, Scope& scope, const std::string& p, int depth,
                 bool top) {
    a.op = Op::PostTask;
    a.id = fresh("t");
    if (chance(50))
      a.task_options->priority = pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
    if (chance(40) && !scope.abort_signals.empty())
      a.task_options->signal = pick(scope.abort_signals);
    if (profile_.timers && chance(15)) a.task_options->delay = one_of<std::uint64_t>({0, 1, 10});
    a.callback = callback(who, scope, p + "/callback", depth + 1, /*task=*/true);
    if (top) scope.promises.push_back(a.id);
  }

  // A callback body. Contention needs locks that stay held: a lock callback often awaits a gate
  // (a `newPromise` a later step settles), so requests queue up behind it; a task often yields, so
  // continuations meet tasks posted meanwhile.
  Callback callback(const std::string& who, Scope& scope, const std::string& p, int depth,
                    bool task) {
    Callback cb;
    cb.pointer = p;
    if (!task && !scope.gates.empty() && chance(60)) {
      Action wait;
      wait.op = Op::Await;
      wait.target = pick(scope.gates);
      cb.body.push_back(wait);
    } else if (!task && chance(20)) {
      // Held for good: the callback awaits a promise nothing settles.
      Action forever;
      forever.op = Op::NewPromise;
      forever.id = fresh("g");
      Action wait;
      wait.op = Op::Await;
      wait.target = forever.id;
      cb.body.push_back(forever);
      cb.body.push_back(wait);
    }
    if (depth <= 2 && chance(50)) {
      std::vector<Action> more = body(who, scope, p + "/body", depth);
      for (Action& a : more) cb.body.push_back(std::move(a));
    }
    if (task && profile_.scheduling && chance(20) && !scope.task_controllers.empty()) {
      // A priority change while tasks of several queues wait (and from inside a task).
      Action change;
      change.op = Op::SetPriority;
      change.controller = pick(scope.task_controllers);
      change.priority = pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
      cb.body.insert(cb.body.begin(), change);
    }
    if (task && profile_.scheduling && chance(35)) {
      // A yield, sometimes after queuing a microtask that posts a task: that task is posted after
      // the continuation and before it runs, where effective priorities decide.
      if (depth <= 2 && chance(40)) {
        Action micro;
        micro.op = Op::QueueMicrotask;
        Action post;
        post_task(post, who, scope, p, depth + 1, false);
        micro.body.push_back(std::move(post));
        cb.body.push_back(std::move(micro));
      }
      Action y;
      y.op = Op::Yield;
      y.id = fresh("y");
      cb.body.push_back(y);
    }
    for (const Action& a : cb.body)
      if (a.op == Op::Await || a.op == Op::Yield) cb.is_async = true;
    if (chance(15)) {
      cb.result = Callback::Result::Throw;
      cb.value = Value::string("oops");
    } else {
      cb.value = Value::number(uniform(0, 9));
    }
    return cb;
  }

  // A prioritychange listener runs at every change, so its body makes no ids (they would repeat):
  // it marks, aborts, settles, or calls setPriority (which throws NotAllowedError there).
  std::vector<Action> listener_body(Scope& scope, const std::string& p) {
    std::vector<Action> out;
    const int n = uniform(1, 3);
    for (int i = 0; i < n; ++i) {
      Action a;
      a.pointer = p + "/" + std::to_string(i);
      const int kind = uniform(0, 4);
      if (kind == 1 && !scope.controllers.empty()) {
        a.op = Op::Abort;
        a.signal = pick(scope.controllers);
      } else if (kind == 2 && !scope.task_controllers.empty()) {
        a.op = Op::SetPriority;
        a.controller = pick(scope.task_controllers);
        a.priority = pick(std::vector(std::begin(kPriorities), std::end(kPriorities)));
      } else {
        a.op = Op::Mark;
        a.label = fresh("m");
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  // A body sees its event loop's scope; ids it makes are visible only later in the same body.
  std::vector<Action> body(const std::string& who, Scope& outer, const std::string& p, int depth) {
    Scope local = outer;
    std::vector<Action> out;
    const int n = uniform(1, 4);
    for (int i = 0; i < n; ++i) {
      Action a = action(who, local, p + "/" + std::to_string(i), depth, false);
      // Ids made here join the local scope (a sequential body runs them in order).
      if (!a.id.empty() && a.op != Op::Yield && a.op != Op::RequestIdleCallback &&
          a.op != Op::SetTimeout && a.op != Op::NewAbortController && a.op != Op::TimeoutSignal &&
          a.op != Op::NewTaskController && a.op != Op::TaskSignalAny)
        local.promises.push_back(a.id);
      if (a.op == Op::Settle)  // settled here: no other step may settle it again
        for (Scope* s : {&outer, &scope_of(who)})
          s->gates.erase(std::remove(s->gates.begin(), s->gates.end(), a.target), s->gates.end());
      out.push_back(std::move(a));
    }
    return out;
  }

  Profile profile_;
  Trace trace_;
  int next_id_ = 0;
  std::vector<std::string> live_;
  std::vector<std::string> loaded_;
  std::vector<std::string> names_;
  std::map<std::string, Scope> scopes_;
};

}  // namespace

rc::Gen<Trace> world_trace(Profile profile) {
  return rc::gen::withSize([profile](int size) {
    return rc::gen::exec([profile, size] { return WorldBuilder(profile).build(size); });
  });
}

}  // namespace lockstep::gen
