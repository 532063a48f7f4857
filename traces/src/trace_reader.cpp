// Reads a lockstep-trace (traces/README.md) into a Trace, checking everything that can be checked
// before replay: types, members, ids and references, sizes. Errors carry the JSON pointer.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "json_value.h"
#include "lockstep/choice_point.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

using detail::Json;

struct Failure {
  Error error;
};

[[noreturn]] void fail(const std::string& pointer, const std::string& message) {
  throw Failure{Error{pointer, message}};
}

std::string type_name(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::string show(const std::string& s) {
  if (s.size() > 40) return "\"" + s.substr(0, 40) + "...\"";
  return "\"" + s + "\"";
}

std::string child(const std::string& pointer, const std::string& key) {
  return pointer + "/" + key;
}
std::string child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

// Which kinds of object an id names (an id can be several: a TaskController is a controller, and
// its signal is a TaskSignal).
enum IdKind : unsigned {
  kPromise = 1,
  kSignal = 2,
  kAbortController = 4,
  kTaskController = 8,
  kTaskSignal = 16,
  kSettleable = 32,
  kTimer = 64,
  kIdle = 128,
};

unsigned kinds_of(const Action& a) {
  switch (a.op) {
    case Op::Request:
    case Op::PostTask:
      return kPromise |
             (a.callback && a.callback->result == Callback::Result::Pending ? unsigned{kSettleable}
                                                                            : 0u);
    case Op::Query:
    case Op::Yield:
      return kPromise;
    case Op::NewPromise:
      return kPromise | kSettleable;
    case Op::NewAbortController:
      return kSignal | kAbortController;
    case Op::TimeoutSignal:
      return kSignal;
    case Op::NewTaskController:
      return kSignal | kAbortController | kTaskController | kTaskSignal;
    case Op::TaskSignalAny:
      return kSignal | kTaskSignal;
    case Op::SetTimeout:
      return kTimer;
    case Op::RequestIdleCallback:
      return kIdle;
    default:
      return 0;
  }
}

class TraceReader {
 public:
  explicit TraceReader(const ReadLimits& limits) : limits_(limits) {}

  Trace read(const Json& doc) {
    if (!doc.is_object()) fail("", "a trace is a JSON object, got " + type_name(doc));
    check_members(doc, "",
                  {"format", "version", "name", "description", "exercises", "agents", "steps",
                   "schedule", "readings"});
    if (get_string(doc, "format", "", true) != "lockstep-trace")
      fail("/format", "expected \"lockstep-trace\"");
    const Json& version = require(doc, "version", "");
    if (!version.is_number_integer() || version.get<long long>() != 1)
      fail("/version", "this lockstep reads trace format version 1, got " + version.dump());
    trace_.name = get_string(doc, "name", "", false);
    trace_.description = get_string(doc, "description", "", false, 1u << 20);
    if (doc.contains("exercises")) {
      const Json& ex = doc["exercises"];
      if (!ex.is_array()) fail("/exercises", "expected an array of step ids");
      for (std::size_t i = 0; i < ex.size(); ++i) {
        if (!ex[i].is_string()) fail(child("/exercises", i), "expected a step id string");
        trace_.exercises.push_back(ex[i].get<std::string>());
      }
    }
    read_agents(require(doc, "agents", ""));
    const Json& steps = require(doc, "steps", "");
    if (!steps.is_array()) fail("/steps", "expected an array of steps, got " + type_name(steps));
    for (std::size_t i = 0; i < steps.size(); ++i)
      trace_.steps.push_back(read_top_level(steps[i], child("/steps", i)));
    if (doc.contains("schedule")) read_schedule(doc["schedule"]);
    if (doc.contains("readings")) read_readings(doc["readings"]);
    return std::move(trace_);
  }

 private:
  const ReadLimits& limits_;
  Trace trace_;
  std::size_t action_count_ = 0;
  struct Definition {
    unsigned kinds;
    std::string agent;
    std::string pointer;
    Op op;
  };
  std::map<std::string, Definition> ids_;
  std::map<std::string, std::string> terminated_at_;  // agent -> pointer of its terminate step

  const Json& require(const Json& obj, const char* key, const std::string& pointer) {
    auto it = obj.find(key);
    if (it == obj.end()) fail(pointer, std::string("missing required member \"") + key + "\"");
    return *it;
  }

  void check_members(const Json& obj, const std::string& pointer,
                     std::initializer_list<const char*> allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = false;
      for (const char* a : allowed) known = known || it.key() == a;
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(child(pointer, it.key()),
             "unknown member \"" + it.key() + "\" (allowed here: " + list + ")");
      }
    }
  }

  std::string get_string(const Json& obj, const char* key, const std::string& pointer,
                         bool required, std::size_t max_bytes = 0) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(pointer, std::string("missing required member \"") + key + "\"");
      return {};
    }
    if (!it->is_string()) fail(child(pointer, key), "expected a string, got " + type_name(*it));
    const auto& s = it->get_ref<const std::string&>();
    std::size_t limit = max_bytes ? max_bytes : limits_.max_string_bytes;
    if (s.size() > limit)
      fail(child(pointer, key), "string of " + std::to_string(s.size()) +
                                    " bytes exceeds the limit of " + std::to_string(limit));
    return s;
  }

  std::string get_id(const Json& obj, const char* key, const std::string& pointer) {
    std::string id = get_string(obj, key, pointer, true, limits_.max_id_bytes);
    if (id.empty()) fail(child(pointer, key), "an id must not be empty");
    return id;
  }

  bool get_bool(const Json& obj, const char* key, const std::string& pointer, bool fallback) {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (!it->is_boolean())
      fail(child(pointer, key), "expected true or false, got " + type_name(*it));
    return it->get<bool>();
  }

  std::uint64_t get_ms(const Json& obj, const char* key, const std::string& pointer,
                       std::uint64_t max) {
    const Json& v = require(obj, key, pointer);
    if (!v.is_number_integer() ||
        (v.is_number_integer() && !v.is_number_unsigned() && v.get<long long>() < 0))
      fail(child(pointer, key), "expected a whole number of milliseconds >= 0, got " + v.dump());
    std::uint64_t ms = v.get<std::uint64_t>();
    if (ms > max)
      fail(child(pointer, key),
           std::to_string(ms) + " ms exceeds the limit of " + std::to_string(max));
    return ms;
  }

  TaskPriority get_priority(const Json& v, const std::string& pointer) {
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "user-blocking") return TaskPriority::UserBlocking;
      if (s == "user-visible") return TaskPriority::UserVisible;
      if (s == "background") return TaskPriority::Background;
    }
    fail(pointer,
         "expected one of \"user-blocking\", \"user-visible\", \"background\", got " + v.dump());
  }

  Value read_value(const Json& j, const std::string& pointer, std::size_t depth) {
    if (depth > limits_.max_depth)
      fail(pointer, "value nested deeper than " + std::to_string(limits_.max_depth));
    switch (j.type()) {
      case Json::value_t::null:
        return Value::null();
      case Json::value_t::boolean:
        return Value::boolean(j.get<bool>());
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
      case Json::value_t::number_float:
        return Value::number(j.get<double>());
      case Json::value_t::string: {
        if (j.get_ref<const std::string&>().size() > limits_.max_string_bytes)
          fail(pointer, "string exceeds the limit of " + std::to_string(limits_.max_string_bytes) +
                            " bytes");
        return Value::string(j.get<std::string>());
      }
      case Json::value_t::array: {
        std::vector<Value> items;
        for (std::size_t i = 0; i < j.size(); ++i)
          items.push_back(read_value(j[i], child(pointer, i), depth + 1));
        return Value::array(std::move(items));
      }
      case Json::value_t::object: {
        if (j.size() == 1 && j.contains("DOMException")) {
          const Json& name = j["DOMException"];
          if (!name.is_string() || name.get_ref<const std::string&>().empty())
            fail(child(pointer, "DOMException"),
                 "expected the DOMException's name, e.g. \"AbortError\"");
          return Value::dom_exception(name.get<std::string>());
        }
        std::vector<std::pair<std::string, Value>> members;
        for (auto it = j.begin(); it != j.end(); ++it)
          members.emplace_back(it.key(), read_value(*it, child(pointer, it.key()), depth + 1));
        return Value::object(std::move(members));
      }
      default:
        fail(pointer, "unsupported JSON value");
    }
  }

  void read_agents(const Json& agents) {
    if (!agents.is_array())
      fail("/agents", "expected an array of agents, got " + type_name(agents));
    if (agents.empty()) fail("/agents", "a trace needs at least one agent");
    if (agents.size() > limits_.max_agents)
      fail("/agents", std::to_string(agents.size()) + " agents exceed the limit of " +
                          std::to_string(limits_.max_agents));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      std::string p = child("/agents", i);
      const Json& a = agents[i];
      if (!a.is_object()) fail(p, "an agent is an object, got " + type_name(a));
      check_members(a, p, {"id", "kind", "origin", "partition", "eventLoop"});
      Agent agent;
      agent.pointer = p;
      agent.id = get_id(a, "id", p);
      if (!seen.insert(agent.id).second)
        fail(child(p, "id"), "duplicate agent id " + show(agent.id));
      std::string kind = get_string(a, "kind", p, true);
      if (kind == "window")
        agent.kind = AgentKind::Window;
      else if (kind == "worker")
        agent.kind = AgentKind::Worker;
      else
        fail(child(p, "kind"), "expected \"window\" or \"worker\", got " + show(kind));
      agent.origin = get_string(a, "origin", p, true);
      if (agent.origin.empty())
        fail(child(p, "origin"), "an origin must not be empty (use \"opaque\")");
      if (a.contains("partition")) {
        agent.partition = get_string(a, "partition", p, true, limits_.max_id_bytes);
        if (agent.partition.empty())
          fail(child(p, "partition"), "a partition name must not be empty");
      }
      agent.event_loop = agent.id;
      if (a.contains("eventLoop")) {
        if (agent.kind != AgentKind::Window)
          fail(child(p, "eventLoop"), "only windows share event loops; a worker has its own");
        agent.event_loop = get_string(a, "eventLoop", p, true, limits_.max_id_bytes);
        if (agent.event_loop.empty())
          fail(child(p, "eventLoop"), "an event loop name must not be empty");
      }
      trace_.agents.push_back(std::move(agent));
    }
    // An explicit event loop name must not be another agent's own id (its default loop name).
    for (const Agent& a : trace_.agents)
      for (const Agent& b : trace_.agents)
        if (&a != &b && a.event_loop == b.id && b.event_loop == b.id)
          fail(child(a.pointer, "eventLoop"), "event loop name " + show(a.event_loop) +
                                                  " is agent " + show(b.id) + "'s own event loop");
  }

  Action read_top_level(const Json& j, const std::string& p) {
    if (!j.is_object()) fail(p, "a step is an object, got " + type_name(j));
    std::string op = get_string(j, "op", p, true);
    std::string agent;
    if (op == "advanceTime") {
      if (j.contains("agent"))
        fail(child(p, "agent"), "advanceTime moves the world's clock and takes no agent");
    } else {
      agent = get_string(j, "agent", p, true, limits_.max_id_bytes);
      if (!trace_.agent(agent)) fail(child(p, "agent"), "no agent with id " + show(agent));
      auto t = terminated_at_.find(agent);
      if (t != terminated_at_.end())
        fail(child(p, "agent"),
             "agent " + show(agent) + " was terminated by " + Error{t->second, ""}.path());
    }
    Action a = read_action(j, p, agent, /*top_level=*/true, 0);
    a.settle = get_bool(j, "settle", p, true);
    if (a.op == Op::Terminate) terminated_at_[agent] = p;
    return a;
  }

  Action read_action(const Json& j, const std::string& p, const std::string& agent, bool top_level,
                     std::size_t depth) {
    if (!j.is_object()) fail(p, "an action is an object, got " + type_name(j));
    if (++action_count_ > limits_.max_actions)
      fail(p, "more than " + std::to_string(limits_.max_actions) + " actions in one trace");
    if (depth > limits_.max_depth)
      fail(p, "bodies nested deeper than " + std::to_string(limits_.max_depth));
    if (!top_level && j.contains("agent"))
      fail(child(p, "agent"), "inside a body the running agent is implied; remove \"agent\"");
    if (!top_level && j.contains("settle"))
      fail(child(p, "settle"), "\"settle\" applies to top-level steps only");
    Action a;
    a.pointer = p;
    a.agent = agent;
    std::string op = get_string(j, "op", p, true);
    const auto members = [&](std::initializer_list<const char*> own) {
      std::vector<const char*> allowed{"op", "note"};
      if (top_level) {
        allowed.push_back("agent");
        allowed.push_back("settle");
      }
      allowed.insert(allowed.end(), own.begin(), own.end());
      for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const char* k : allowed) known = known || it.key() == k;
        if (!known)
          fail(child(p, it.key()), "unknown member \"" + it.key() + "\" for op \"" + op + "\"");
      }
    };
    const auto body_only = [&] {
      if (top_level) fail(child(p, "op"), "\"" + op + "\" is only allowed inside a body");
    };
    const auto body = [&](const char* key, bool required) {
      if (!j.contains(key)) {
        if (required) fail(p, std::string("missing required member \"") + key + "\"");
        return;
      }
      a.body = read_body(j[key], child(p, key), agent, depth + 1);
    };

    if (op == "request") {
      a.op = Op::Request;
      members({"id", "name", "options", "callback"});
      define(a, j, p);
      a.name = get_string(j, "name", p, true);
      if (j.contains("options"))
        a.lock_options = read_lock_options(j["options"], child(p, "options"), agent);
      a.callback = read_callback(j, p, agent, depth);
    } else if (op == "query") {
      a.op = Op::Query;
      members({"id"});
      define(a, j, p);
    } else if (op == "newAbortController") {
      a.op = Op::NewAbortController;
      members({"id"});
      define(a, j, p);
    } else if (op == "abort") {
      a.op = Op::Abort;
      members({"signal", "reason"});
      a.signal = reference(j, "signal", p, agent, kAbortController,
                           "an AbortController or TaskController");
      if (j.contains("reason")) a.reason = read_value(j["reason"], child(p, "reason"), 0);
    } else if (op == "timeoutSignal") {
      a.op = Op::TimeoutSignal;
      members({"id", "ms"});
      a.ms = get_ms(j, "ms", p, 9007199254740991ull);
      define(a, j, p);
    } else if (op == "settle") {
      a.op = Op::Settle;
      members({"target", "outcome", "value"});
      a.target = reference(
          j, "target", p, agent, kSettleable,
          "a newPromise, or a request or postTask whose callback result is {\"pending\": true}");
      std::string outcome = get_string(j, "outcome", p, true);
      if (outcome == "fulfill")
        a.fulfill = true;
      else if (outcome == "reject")
        a.fulfill = false;
      else
        fail(child(p, "outcome"), "expected \"fulfill\" or \"reject\", got " + show(outcome));
      if (j.contains("value")) a.value = read_value(j["value"], child(p, "value"), 0);
    } else if (op == "terminate") {
      a.op = Op::Terminate;
      members({});
    } else if (op == "unload") {
      a.op = Op::Unload;
      members({});
      if (trace_.agent(agent)->kind != AgentKind::Window)
        fail(child(p, "op"),
             "unload applies to a window's document; " + show(agent) + " is a worker");
    } else if (op == "postTask") {
      a.op = Op::PostTask;
      members({"id", "options", "callback"});
      define(a, j, p);
      if (j.contains("options"))
        read_post_task_options(a, j["options"], child(p, "options"), agent);
      a.callback = read_callback(j, p, agent, depth);
    } else if (op == "newTaskController") {
      a.op = Op::NewTaskController;
      members({"id", "priority"});
      define(a, j, p);
      if (j.contains("priority")) a.priority = get_priority(j["priority"], child(p, "priority"));
    } else if (op == "setPriority") {
      a.op = Op::SetPriority;
      members({"controller", "priority"});
      a.controller = reference(j, "controller", p, agent, kTaskController, "a TaskController");
      a.priority = get_priority(require(j, "priority", p), child(p, "priority"));
    } else if (op == "taskSignalAny") {
      a.op = Op::TaskSignalAny;
      members({"id", "signals", "priority"});
      const Json& signals = require(j, "signals", p);
      if (!signals.is_array()) fail(child(p, "signals"), "expected an array of signal ids");
      for (std::size_t i = 0; i < signals.size(); ++i) {
        std::string sp = child(child(p, "signals"), i);
        if (!signals[i].is_string()) fail(sp, "expected a signal id, got " + type_name(signals[i]));
        a.signals.push_back(
            check_reference(signals[i].get<std::string>(), sp, agent, kSignal, "a signal"));
      }
      if (j.contains("priority")) {
        const Json& pr = j["priority"];
        std::string pp = child(p, "priority");
        if (pr.is_object()) {
          check_members(pr, pp, {"signal"});
          a.any_priority.signal = reference(pr, "signal", pp, agent, kTaskSignal, "a TaskSignal");
        } else {
          a.any_priority.priority = get_priority(pr, pp);
        }
      }
      define(a, j, p);
    } else if (op == "onPriorityChange") {
      a.op = Op::OnPriorityChange;
      members({"signal", "body"});
      a.signal = reference(j, "signal", p, agent, kTaskSignal, "a TaskSignal");
      body("body", false);
    } else if (op == "requestIdleCallback") {
      a.op = Op::RequestIdleCallback;
      members({"id", "callback"});
      if (trace_.agent(agent)->kind != AgentKind::Window)
        fail(child(p, "op"),
             "requestIdleCallback is exposed on windows only; " + show(agent) + " is a worker");
      define(a, j, p);
      a.callback = read_callback(j, p, agent, depth);
    } else if (op == "run") {
      a.op = Op::Run;
      members({"body"});
      body("body", true);
    } else if (op == "setTimeout") {
      a.op = Op::SetTimeout;
      members({"id", "ms", "body"});
      a.ms = get_ms(j, "ms", p, 2147483647ull);
      define(a, j, p);
      body("body", false);
    } else if (op == "newPromise") {
      a.op = Op::NewPromise;
      members({"id"});
      define(a, j, p);
    } else if (op == "then") {
      a.op = Op::Then;
      members({"target", "body"});
      a.target = reference(j, "target", p, agent, kPromise,
                           "a promise (request, query, postTask, yield, newPromise)");
      body("body", false);
    } else if (op == "queueMicrotask") {
      a.op = Op::QueueMicrotask;
      members({"body"});
      body("body", false);
    } else if (op == "advanceTime") {
      a.op = Op::AdvanceTime;
      if (!top_level) fail(child(p, "op"), "advanceTime moves the world's clock: top level only");
      members({"ms"});
      a.ms = get_ms(j, "ms", p, 9007199254740991ull);
    } else if (op == "await") {
      a.op = Op::Await;
      body_only();
      members({"target"});
      a.target = reference(j, "target", p, agent, kPromise,
                           "a promise (request, query, postTask, yield, newPromise)");
    } else if (op == "yield") {
      a.op = Op::Yield;
      body_only();
      members({"id"});
      define(a, j, p);
    } else if (op == "mark") {
      a.op = Op::Mark;
      body_only();
      members({"label"});
      a.label = get_string(j, "label", p, true);
    } else {
      fail(child(p, "op"), "unknown op " + show(op));
    }
    return a;
  }

  std::vector<Action> read_body(const Json& j, const std::string& p, const std::string& agent,
                                std::size_t depth) {
    if (!j.is_array()) fail(p, "a body is an array of actions, got " + type_name(j));
    std::vector<Action> out;
    for (std::size_t i = 0; i < j.size(); ++i)
      out.push_back(read_action(j[i], child(p, i), agent, false, depth));
    return out;
  }

  std::optional<Callback> read_callback(const Json& j, const std::string& p,
                                        const std::string& agent, std::size_t depth) {
    Callback cb;
    cb.pointer = child(p, "callback");
    if (!j.contains("callback")) return cb;  // I-14: an empty plain function
    const Json& c = j["callback"];
    if (!c.is_object())
      fail(cb.pointer, "a callback is an object {\"body\"?, \"result\"?}, got " + type_name(c));
    check_members(c, cb.pointer, {"body", "result"});
    // The result is read first so that ids defined in the body cannot shadow it; the body is read
    // in document order after the callback's own promise id was defined by the caller.
    if (c.contains("result")) {
      std::string rp = child(cb.pointer, "result");
      const Json& r = c["result"];
      if (!r.is_object() || r.size() != 1)
        fail(rp, "a result is {\"return\": V}, {\"throw\": V} or {\"pending\": true}");
      if (r.contains("return")) {
        cb.result = Callback::Result::Return;
        cb.value = read_value(r["return"], child(rp, "return"), 0);
      } else if (r.contains("throw")) {
        cb.result = Callback::Result::Throw;
        cb.value = read_value(r["throw"], child(rp, "throw"), 0);
      } else if (r.contains("pending")) {
        if (r["pending"] != true) fail(child(rp, "pending"), "expected true");
        cb.result = Callback::Result::Pending;
      } else {
        fail(child(rp, r.begin().key()),
             "unknown result \"" + r.begin().key() + "\" (return, throw, pending)");
      }
    }
    if (c.contains("body"))
      cb.body = read_body(c["body"], child(cb.pointer, "body"), agent, depth + 1);
    for (const Action& a : cb.body)
      cb.is_async = cb.is_async || a.op == Op::Await || a.op == Op::Yield;
    return cb;
  }

  LockOptionsSpec read_lock_options(const Json& j, const std::string& p, const std::string& agent) {
    if (!j.is_object()) fail(p, "options is an object, got " + type_name(j));
    check_members(j, p, {"mode", "ifAvailable", "steal", "signal"});
    LockOptionsSpec o;
    if (j.contains("mode")) {
      const Json& m = j["mode"];
      if (m == "exclusive")
        o.mode = LockMode::Exclusive;
      else if (m == "shared")
        o.mode = LockMode::Shared;
      else
        fail(child(p, "mode"), "expected \"exclusive\" or \"shared\", got " + m.dump());
    }
    o.if_available = get_bool(j, "ifAvailable", p, false);
    o.steal = get_bool(j, "steal", p, false);
    if (j.contains("signal")) o.signal = reference(j, "signal", p, agent, kSignal, "a signal");
    return o;
  }

  void read_post_task_options(Action& a, const Json& j, const std::string& p,
                              const std::string& agent) {
    if (!j.is_object()) fail(p, "options is an object, got " + type_name(j));
    check_members(j, p, {"priority", "signal", "delay"});
    if (j.contains("priority"))
      a.task_options.priority = get_priority(j["priority"], child(p, "priority"));
    if (j.contains("signal"))
      a.task_options.signal = reference(j, "signal", p, agent, kSignal, "a signal");
    if (j.contains("delay")) a.task_options.delay = get_ms(j, "delay", p, 9007199254740991ull);
  }

  void define(Action& a, const Json& j, const std::string& p) {
    a.id = get_id(j, "id", p);
    unsigned kinds = kinds_of(a);
    // A request or task whose callback result is pending can be settled; known before its body is
    // read, so that the body may already name it.
    if ((a.op == Op::Request || a.op == Op::PostTask) && j.contains("callback") &&
        j["callback"].is_object() && j["callback"].contains("result") &&
        j["callback"]["result"].is_object() && j["callback"]["result"].contains("pending"))
      kinds |= kSettleable;
    auto [it, inserted] = ids_.try_emplace(a.id, Definition{kinds, a.agent, p, a.op});
    if (!inserted)
      fail(child(p, "id"), "duplicate id " + show(a.id) + " (first defined by " +
                               Error{it->second.pointer, ""}.path() + ")");
  }

  std::string reference(const Json& j, const char* key, const std::string& p,
                        const std::string& agent, unsigned kinds, const std::string& what) {
    std::string id = get_string(j, key, p, true, limits_.max_id_bytes);
    return check_reference(id, child(p, key), agent, kinds, what);
  }

  // I-16: a reference names an id defined earlier in document order, of the right kind, owned by
  // an agent on the same event loop as the one using it.
  std::string check_reference(const std::string& id, const std::string& p, const std::string& agent,
                              unsigned kinds, const std::string& what) {
    auto it = ids_.find(id);
    if (it == ids_.end()) fail(p, "no earlier step creates " + show(id) + "; expected " + what);
    if (!(it->second.kinds & kinds))
      fail(p, show(id) + " is made by " + std::string(op_name(it->second.op)) + " at " +
                  Error{it->second.pointer, ""}.path() + "; expected " + what);
    const Agent* user = trace_.agent(agent);
    const Agent* owner = trace_.agent(it->second.agent);
    if (user && owner && user->event_loop != owner->event_loop)
      fail(p, show(id) + " belongs to agent " + show(owner->id) + ", whose event loop script on " +
                  show(user->id) + " cannot reach");
    return id;
  }

  // Extension `readings` (docs/interpretations.md): which reading of an ambiguous step to follow.
  void read_readings(const Json& j) {
    if (!j.is_object())
      fail("/readings", "expected an object such as {\"released-promise\": \"note\"}");
    check_members(j, "/readings", {"released-promise", "stale-removal", "closed-window-jobs"});
    read_reading(j, "released-promise",
                 {ReleasedPromiseReading::Steps, ReleasedPromiseReading::Note},
                 released_promise_reading_name, trace_.readings.released_promise);
    read_reading(j, "stale-removal", {StaleRemovalReading::Literal, StaleRemovalReading::Fixed},
                 stale_removal_reading_name, trace_.readings.stale_removal);
    read_reading(j, "closed-window-jobs",
                 {ClosedWindowJobsReading::Dropped, ClosedWindowJobsReading::Run},
                 closed_window_jobs_reading_name, trace_.readings.closed_window_jobs);
  }

  // One member of `readings`, if present: the reading of the two whose name (trace.h) it gives.
  template <class Reading>
  void read_reading(const Json& j, const char* key, const Reading (&both)[2],
                    const char* (*name)(Reading), Reading& reading) {
    if (!j.contains(key)) return;
    const std::string given = get_string(j, key, "/readings", true);
    for (Reading r : both)
      if (given == name(r)) {
        reading = r;
        return;
      }
    fail(child("/readings", key), std::string("expected \"") + name(both[0]) + "\" or \"" +
                                      name(both[1]) + "\", got \"" + given + "\"");
  }

  void read_schedule(const Json& j) {
    if (!j.is_array())
      fail("/schedule", "expected an array of choices such as \"locks\", \"loop:A\"");
    for (std::size_t i = 0; i < j.size(); ++i) {
      std::string p = child("/schedule", i);
      if (!j[i].is_string()) fail(p, "a choice is a string, got " + type_name(j[i]));
      const std::string pin = j[i].get<std::string>();
      // I-26: "early:<choice>" runs that unit before the next step instead of at a choice point.
      const std::string c(pins::unit_of(pin));
      bool ok = false;
      // I-27: idle periods put off or started; I-26: the step begins
      if (pin == pins::kSettled || pin == pins::kIdle || pin == pins::kStep)
        ok = true;
      else if (c == pins::kAnyLockQueue)
        ok = true;
      else if (c.rfind("locks:", 0) == 0) {
        std::string part = c.substr(6);
        for (const Agent& a : trace_.agents) ok = ok || a.partition == part;
        if (!ok) fail(p, "no agent is in partition " + show(part));
      } else if (c.rfind("loop:", 0) == 0) {
        std::string loop = c.substr(5);
        loop = loop.substr(0, loop.find('/'));
        for (const Agent& a : trace_.agents) ok = ok || a.event_loop == loop;
        if (!ok) fail(p, "no event loop named " + show(loop));
      } else {
        fail(p, "unknown choice " + show(pin) +
                    " (expected \"locks\", \"locks:<partition>\", \"loop:<L>\" or \"loop:<L>/<task "
                    "source>\", each also after \"early:\", \"step\", \"settled\" or \"idle\")");
      }
      trace_.schedule.push_back(pin);
    }
  }
};

std::string line_and_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace

Result<Json> parse_json(const std::string& text, std::size_t max_depth);

namespace {

// A first pass that checks nesting without building anything, so that a hostile document is
// refused before a deep tree exists (the callback form of nlohmann's parser is quadratic on
// large arrays, hence a SAX pass of our own).
class DepthCheck : public nlohmann::json_sax<Json> {
 public:
  explicit DepthCheck(std::size_t limit) : limit_(limit) {}
  bool too_deep = false;
  std::size_t error_byte = 0;
  std::string error;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_byte = position;
    error = e.what();
    return false;
  }

 private:
  bool enter() {
    if (++depth_ > limit_) too_deep = true;
    return !too_deep;
  }
  bool leave() {
    --depth_;
    return true;
  }
  std::size_t limit_;
  std::size_t depth_ = 0;
};

}  // namespace

Result<Json> parse_json(const std::string& text, std::size_t max_depth) {
  const std::size_t depth_limit = max_depth * 2 + 8;
  DepthCheck check(depth_limit);
  if (!Json::sax_parse(text, &check)) {
    if (check.too_deep)
      return Error{"", "JSON nested deeper than " + std::to_string(depth_limit) + " levels"};
    auto pos = check.error.find("parse error");
    return Error{"", "malformed JSON at " +
                         line_and_column(text, check.error_byte > 0 ? check.error_byte - 1 : 0) +
                         ": " + (pos == std::string::npos ? check.error : check.error.substr(pos))};
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Error{"", std::string("malformed JSON: ") + e.what()};
  }
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"", path + ": cannot open the file"};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{"", path + ": read error"};
  return ss.str();
}

Result<Trace> read_trace(const std::string& text, const ReadLimits& limits) {
  if (text.size() > limits.max_document_bytes)
    return Error{"", "document of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                         std::to_string(limits.max_document_bytes)};
  auto doc = parse_json(text, limits.max_depth);
  if (!doc) return doc.error();
  try {
    return TraceReader(limits).read(doc.value());
  } catch (const Failure& f) {
    return f.error;
  } catch (const std::exception& e) {  // a JSON type error we did not foresee: still a value
    return Error{"", std::string("unexpected input: ") + e.what()};
  }
}

Result<Trace> read_trace_file(const std::string& path, const ReadLimits& limits) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return read_trace(text.value(), limits);
}

}  // namespace lockstep
