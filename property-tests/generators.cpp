#include "generators.h"

#include <string>
#include <vector>

namespace lockstep::gen {

rc::Gen<Trace> trace(bool with_scheduling);

namespace {

struct Builder {
  Trace trace;
  int next_id = 0;
  std::vector<std::string> gates;        // newPromise ids not settled yet, per agent below
  std::vector<std::string> gate_agents;  // (a callback awaiting a gate holds its lock until then)
  std::vector<std::string> controllers;
  std::vector<std::string> controller_agents;
  std::vector<std::string> live;  // agents that may still act
  std::vector<std::string> task_controllers;
  std::vector<std::string> task_controller_agents;

  std::string fresh(const char* prefix) { return prefix + std::to_string(next_id++); }
  std::string pointer() const { return "/steps/" + std::to_string(trace.steps.size()); }
};

Action top(const std::string& agent, Op op, const std::string& pointer) {
  Action a;
  a.op = op;
  a.agent = agent;
  a.pointer = pointer;
  return a;
}

}  // namespace

rc::Gen<Trace> web_locks_trace() {
  return trace(false);
}
rc::Gen<Trace> mixed_trace() {
  return trace(true);
}

rc::Gen<Trace> trace(bool with_scheduling) {
  return rc::gen::withSize([with_scheduling](int size) {
    return rc::gen::exec([size, with_scheduling] {
      Builder b;
      const int agents = *rc::gen::inRange(1, 5);
      const bool two_origins = *rc::gen::arbitrary<bool>();
      for (int i = 0; i < agents; ++i) {
        Agent a;
        a.id = std::string(1, static_cast<char>('A' + i));
        a.kind = i == agents - 1 && agents > 1 ? AgentKind::Worker : AgentKind::Window;
        a.origin = two_origins && i % 2 ? "https://b.test" : "https://a.test";
        a.event_loop = a.id;
        a.pointer = "/agents/" + std::to_string(i);
        b.trace.agents.push_back(a);
        b.live.push_back(a.id);
      }
      const std::vector<std::string> names{"n1", "n2", "n3"};
      const int steps = *rc::gen::inRange(1, 4 + size / 2);
      for (int s = 0; s < steps && !b.live.empty(); ++s) {
        const std::string agent = *rc::gen::elementOf(b.live);
        const int kind = *rc::gen::inRange(0, 100);
        const std::string p = b.pointer();
        Action a;
        if (kind < 45) {  // request
          a = top(agent, Op::Request, p);
          a.id = b.fresh("r");
          a.name = *rc::gen::elementOf(names);
          if (*rc::gen::arbitrary<bool>()) {
            LockOptionsSpec o;
            o.mode = *rc::gen::element(LockMode::Exclusive, LockMode::Shared);
            int flavour = *rc::gen::inRange(0, 10);
            if (flavour == 0) o.steal = true;
            if (flavour == 1) o.if_available = true;
            if (flavour == 2) o.steal = o.if_available = true;  // NotSupportedError
            std::vector<std::string> mine;
            for (std::size_t i = 0; i < b.controllers.size(); ++i)
              if (b.controller_agents[i] == agent) mine.push_back(b.controllers[i]);
            if (!mine.empty() && flavour >= 6) o.signal = *rc::gen::elementOf(mine);
            a.lock_options = o;
          }
          Callback cb;
          cb.pointer = p + "/callback";
          std::vector<std::string> mine;
          for (std::size_t i = 0; i < b.gates.size(); ++i)
            if (b.gate_agents[i] == agent) mine.push_back(b.gates[i]);
          if (!mine.empty() && *rc::gen::arbitrary<bool>()) {
            Action wait;
            wait.op = Op::Await;
            wait.agent = agent;
            wait.target = *rc::gen::elementOf(mine);
            wait.pointer = cb.pointer + "/body/0";
            cb.body.push_back(wait);
            cb.is_async = true;
          }
          int result = *rc::gen::inRange(0, 6);
          if (result == 0) {
            cb.result = Callback::Result::Throw;
            cb.value = Value::string("oops");
          } else {
            cb.value = Value::number(result);
          }
          a.callback = cb;
        } else if (kind < 55) {
          a = top(agent, Op::NewPromise, p);
          a.id = b.fresh("g");
          b.gates.push_back(a.id);
          b.gate_agents.push_back(agent);
        } else if (kind < 70 && !b.gates.empty()) {
          std::size_t i = *rc::gen::inRange<std::size_t>(0, b.gates.size());
          a = top(b.gate_agents[i], Op::Settle, p);
          a.target = b.gates[i];
          a.fulfill = *rc::gen::arbitrary<bool>();
          b.gates.erase(b.gates.begin() + static_cast<long>(i));
          b.gate_agents.erase(b.gate_agents.begin() + static_cast<long>(i));
        } else if (kind < 78) {
          a = top(agent, Op::NewAbortController, p);
          a.id = b.fresh("c");
          b.controllers.push_back(a.id);
          b.controller_agents.push_back(agent);
        } else if (kind < 85 && !b.controllers.empty()) {
          std::size_t i = *rc::gen::inRange<std::size_t>(0, b.controllers.size());
          a = top(b.controller_agents[i], Op::Abort, p);
          a.signal = b.controllers[i];
        } else if (kind < 88) {
          a = top(agent, Op::Query, p);
          a.id = b.fresh("q");
        } else if (kind < 97 && with_scheduling) {
          const int what = *rc::gen::inRange(0, 3);
          std::vector<std::string> mine;
          for (std::size_t i = 0; i < b.task_controllers.size(); ++i)
            if (b.task_controller_agents[i] == agent) mine.push_back(b.task_controllers[i]);
          if (what == 0 || mine.empty()) {
            a = top(agent, Op::NewTaskController, p);
            a.id = b.fresh("tc");
            a.priority = *rc::gen::element(TaskPriority::Background, TaskPriority::UserVisible,
                                           TaskPriority::UserBlocking);
            b.task_controllers.push_back(a.id);
            b.task_controller_agents.push_back(agent);
            b.controllers.push_back(a.id);
            b.controller_agents.push_back(agent);
          } else if (what == 1) {
            a = top(agent, Op::SetPriority, p);
            a.controller = *rc::gen::elementOf(mine);
            a.priority = *rc::gen::element(TaskPriority::Background, TaskPriority::UserVisible,
                                           TaskPriority::UserBlocking);
          } else {
            // A run body posting a few tasks at once, some yielding, so that priorities decide.
            a = top(agent, Op::Run, p);
            const int n = *rc::gen::inRange(1, 4);
            for (int i = 0; i < n; ++i) {
              Action post;
              post.op = Op::PostTask;
              post.agent = agent;
              post.id = b.fresh("t");
              post.pointer = p + "/body/" + std::to_string(i);
              if (*rc::gen::arbitrary<bool>())
                post.task_options->priority =
                    *rc::gen::element(TaskPriority::Background, TaskPriority::UserVisible,
                                      TaskPriority::UserBlocking);
              else
                post.task_options->signal = *rc::gen::elementOf(mine);
              Callback cb;
              cb.pointer = post.pointer + "/callback";
              if (*rc::gen::arbitrary<bool>()) {
                Action y;
                y.op = Op::Yield;
                y.agent = agent;
                y.id = b.fresh("y");
                y.pointer = cb.pointer + "/body/0";
                cb.body.push_back(y);
                cb.is_async = true;
              }
              post.callback = cb;
              a.body.push_back(post);
            }
          }
        } else {
          a = top(agent, Op::Terminate, p);
          for (std::size_t i = 0; i < b.live.size(); ++i)
            if (b.live[i] == agent) b.live.erase(b.live.begin() + static_cast<long>(i));
          for (std::size_t i = b.gates.size(); i-- > 0;)
            if (b.gate_agents[i] == agent) {
              b.gates.erase(b.gates.begin() + static_cast<long>(i));
              b.gate_agents.erase(b.gate_agents.begin() + static_cast<long>(i));
            }
          for (std::size_t i = b.controllers.size(); i-- > 0;)
            if (b.controller_agents[i] == agent) {
              b.controllers.erase(b.controllers.begin() + static_cast<long>(i));
              b.controller_agents.erase(b.controller_agents.begin() + static_cast<long>(i));
            }
        }
        if (a.op == Op::Mark) continue;  // a branch whose precondition failed
        a.settle = *rc::gen::inRange(0, 4) != 0;
        b.trace.steps.push_back(std::move(a));
      }
      return b.trace;
    });
  });
}

}  // namespace lockstep::gen
