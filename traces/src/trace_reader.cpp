// Reads a lockstep-trace (traces/README.md) into a Trace, checking everything that can be checked
// before replay: types, members, ids and references, sizes. Errors carry the JSON pointer. The
// document is parsed as it is read (json_stream.h): each step is converted once it is complete.
#include <map>
#include <new>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "json_node.h"
#include "json_stream.h"
#include "lockstep/choice_point.h"
#include "lockstep/string_index.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

using detail::child;
using detail::DocumentSink;
using detail::fail;
using detail::Node;

// The JSON pointer of what is being read, as the chain of levels above it. It is spelled out only
// when a message needs it, so that reading a well-formed trace builds no pointer text. A Where
// refers to its parent's: each lives in the frame of the function reading that level.
class Where {
 public:
  explicit Where(std::string_view root) : root_(root) {}
  Where(const Where& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Where(const Where& parent, std::size_t index)
      : parent_(&parent), index_(index), is_index_(true) {}
  std::string str() const {
    if (!parent_) return std::string(root_);
    return is_index_ ? detail::child(parent_->str(), index_) : detail::child(parent_->str(), key_);
  }

 private:
  const Where* parent_ = nullptr;
  std::string_view root_;  // no parent: the pointer's text
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

// Beside detail::child and detail::fail, which take the pointer as text.
Where child(const Where& parent, std::string_view key) {
  return Where(parent, key);
}
Where child(const Where& parent, std::size_t index) {
  return Where(parent, index);
}
[[noreturn]] void fail(const Where& where, const std::string& message) {
  detail::fail(where.str(), message);
}

constexpr std::size_t kDescriptionBytes = 1u << 20;  // the longest string a trace may hold

std::string show(std::string_view s) {
  if (s.size() > 40) return "\"" + std::string(s.substr(0, 40)) + "...\"";
  return "\"" + std::string(s) + "\"";
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

// The op a step's "op" names, by the names the format gives them (op_name).
std::optional<Op> op_named(std::string_view name) {
  static const std::unordered_map<std::string_view, Op> kOps = [] {
    std::unordered_map<std::string_view, Op> ops;
    for (int i = 0; i <= static_cast<int>(Op::Mark); ++i)
      ops.emplace(op_name(static_cast<Op>(i)), static_cast<Op>(i));
    return ops;
  }();
  const auto it = kOps.find(name);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

class TraceReader : public DocumentSink {
 public:
  explicit TraceReader(const ReadLimits& limits) : limits_(limits) {}

  // A top-level member, as the parse completes it (json_stream.h).
  void member(const std::string& key, Node&& value) override {
    if (key == "format") {
      if (value.equals("lockstep-log"))
        fail("/format",
             "expected \"lockstep-trace\": this is an event log (\"lockstep-log\"), "
             "not a trace");
      if (!value.equals("lockstep-trace"))
        fail("/format", "expected \"lockstep-trace\", got " + value.dump());
      seen_format_ = true;
    } else if (key == "version") {
      if (!value.exact_integer(1, 1))
        fail("/version", "this lockstep reads trace format version 1, got " + value.dump());
      seen_version_ = true;
    } else if (key == "name") {
      trace_.name = string_of(value, "/name", limits_.max_string_bytes);
    } else if (key == "description") {
      trace_.description = string_of(value, "/description", kDescriptionBytes);
    } else if (key == "exercises") {
      if (!value.is_array()) fail("/exercises", "expected an array of step ids");
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value.items()[i].is_string())
          fail(child("/exercises", i), "expected a step id string");
        trace_.exercises.push_back(value.items()[i].as_string());
      }
    } else if (key == "agents") {
      read_agents(value);
      seen_agents_ = true;
      for (std::size_t i = 0; i < waiting_steps_.size(); ++i) read_top_level(waiting_steps_[i], i);
      waiting_steps_.clear();
    } else if (key == "steps") {
      flush();
      if (!value.is_array()) fail("/steps", "expected an array of steps, got " + value.type_name());
      seen_steps_ = true;
    } else if (key == "schedule") {
      schedule_ = std::move(value);
    } else if (key == "readings") {
      read_readings(value);
    } else {
      fail(child("", key), "unknown member \"" + key +
                               "\" (allowed here: format, version, name, description, exercises, "
                               "agents, steps, schedule, readings)");
    }
  }

  // A step, as soon as it is parsed; kept as JSON only while the agents are still to come. Each
  // step is read while the next one is parsed: its id's slot in the table of ids, far out of the
  // cache in a large trace, is fetched meanwhile (a tenth of the read's time when it was waited
  // for). The nodes are swapped, not moved, so that the parser keeps their room.
  void item(std::size_t index, Node& value) override {
    if (!seen_agents_) {
      waiting_steps_.push_back(std::move(value));
      return;
    }
    if (value.is_object())
      if (const Node* id = value.find("id"); id && id->is_string()) ids_.prefetch(id->as_string());
    flush();
    std::swap(pending_, value);
    pending_index_ = index;
  }

  // Reads the step held back by `item`, if any: before anything after it in the document, and
  // before a parse error that comes later is reported (read_document).
  void flush() override {
    if (!pending_index_) return;
    const std::size_t index = *pending_index_;
    pending_index_.reset();
    read_top_level(pending_, index);
  }

  void expect(std::size_t steps) {
    // Not advised into huge pages as a log's events are: a trace's steps are a third of what it
    // takes, and zeroing their huge pages made the first read a fifth slower here.
    try {
      trace_.steps.reserve(steps);
    } catch (const std::bad_alloc&) {  // only an estimate: without it the vector grows as usual
    }
  }

  // Once the whole document is parsed: what must be there, and what needs all of it.
  Trace finish() {
    if (!seen_format_) fail("", "missing required member \"format\"");
    if (!seen_version_) fail("", "missing required member \"version\"");
    if (!seen_agents_) fail("", "missing required member \"agents\"");
    if (!seen_steps_) fail("", "missing required member \"steps\"");
    if (schedule_) read_schedule(*schedule_);
    return std::move(trace_);
  }

 private:
  const ReadLimits& limits_;
  const Where steps_at_{"/steps"};
  Trace trace_;
  bool seen_format_ = false, seen_version_ = false, seen_agents_ = false, seen_steps_ = false;
  std::vector<Node> waiting_steps_;  // steps met before the agents
  Node pending_;                     // the step `item` holds back, and its index
  std::optional<std::size_t> pending_index_;
  std::optional<Node> schedule_;  // read last: it names the agents' partitions and loops
  std::size_t action_count_ = 0;
  struct Definition {
    CompactString id;
    TracePointer pointer;
    std::uint32_t owner;  // the index in trace_.agents of the agent whose step defines it
    std::uint8_t kinds;   // IdKind
    Op op;
  };
  // One record for each id of the trace, alive beside its actions until the trace is read: 24
  // bytes each and a flat index, for the reader's peak memory and speed (string_index.h).
  std::vector<Definition> definitions_;
  StringIndex ids_;

  const Definition* definition_of(std::string_view id) const {
    const std::uint32_t i =
        ids_.find(id, [this](std::uint32_t ordinal) { return definitions_[ordinal].id.view(); });
    return i == StringIndex::kNone ? nullptr : &definitions_[i];
  }
  std::unordered_map<std::string_view, const Agent*> agents_;  // by id, into trace_.agents
  std::map<std::string, std::string> terminated_at_;  // agent -> pointer of its terminate step

  const Agent* agent_of(std::string_view id) const {
    const auto it = agents_.find(id);
    return it == agents_.end() ? nullptr : it->second;
  }
  std::uint32_t agent_index(std::string_view id) const {
    return static_cast<std::uint32_t>(agent_of(id) - trace_.agents.data());
  }

  [[noreturn]] void missing(const Where& pointer, std::string_view key) {
    fail(pointer, "missing required member \"" + std::string(key) + "\"");
  }

  const Node& require(const Node& obj, std::string_view key, const Where& pointer) {
    const Node* found = obj.find(key);
    if (!found) missing(pointer, key);
    return *found;
  }

  void check_members(const Node& obj, const Where& pointer,
                     std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, value] : obj.members()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || Node::same_text(key, a);
      if (!known) {
        std::string list;
        for (std::string_view a : allowed) list.append(list.empty() ? "" : ", ").append(a);
        fail(child(pointer, key), "unknown member \"" + key + "\" (allowed here: " + list + ")");
      }
    }
  }

  // The string `value`, viewed in its node; `pointer` is where it is.
  std::string_view string_of(const Node& value, const std::string& pointer, std::size_t limit) {
    if (!value.is_string()) fail(pointer, "expected a string, got " + value.type_name());
    const std::string& s = value.as_string();
    if (s.size() > limit)
      fail(pointer, "string of " + std::to_string(s.size()) + " bytes exceeds the limit of " +
                        std::to_string(limit));
    return s;
  }

  // The same for the member `key` of the object at `parent`.
  std::string_view string_of(const Node& value, const Where& parent, std::string_view key,
                             std::size_t limit) {
    if (!value.is_string()) fail(child(parent, key), "expected a string, got " + value.type_name());
    const std::string& s = value.as_string();
    if (s.size() > limit)
      fail(child(parent, key), "string of " + std::to_string(s.size()) +
                                   " bytes exceeds the limit of " + std::to_string(limit));
    return s;
  }

  std::string_view get_string(const Node& obj, std::string_view key, const Where& pointer,
                              bool required, std::size_t max_bytes = 0) {
    const Node* found = obj.find(key);
    if (!found) {
      if (required) missing(pointer, key);
      return {};
    }
    return string_of(*found, pointer, key, max_bytes ? max_bytes : limits_.max_string_bytes);
  }

  std::string_view get_id(const Node& obj, std::string_view key, const Where& pointer) {
    const std::string_view id = get_string(obj, key, pointer, true, limits_.max_id_bytes);
    if (id.empty()) fail(child(pointer, key), "an id must not be empty");
    return id;
  }

  bool get_bool(const Node& obj, std::string_view key, const Where& pointer, bool fallback) {
    const Node* found = obj.find(key);
    if (!found) return fallback;
    if (!found->is_boolean())
      fail(child(pointer, key), "expected true or false, got " + found->type_name());
    return found->as_boolean();
  }

  std::uint64_t get_ms(const Node& obj, std::string_view key, const Where& pointer,
                       std::uint64_t max) {
    const Node& v = require(obj, key, pointer);
    if (auto ms = v.exact_unsigned(max)) return *ms;
    if (v.exact_unsigned(~std::uint64_t{0}))
      fail(child(pointer, key), v.dump() + " ms exceeds the limit of " + std::to_string(max));
    fail(child(pointer, key), "expected a whole number of milliseconds >= 0, got " + v.dump());
  }

  TaskPriority get_priority(const Node& v, const Where& pointer) {
    if (v.equals("user-blocking")) return TaskPriority::UserBlocking;
    if (v.equals("user-visible")) return TaskPriority::UserVisible;
    if (v.equals("background")) return TaskPriority::Background;
    fail(pointer,
         "expected one of \"user-blocking\", \"user-visible\", \"background\", got " + v.dump());
  }

  Value read_value(const Node& j, const Where& pointer) {
    return value_of(j, pointer.str(), limits_.max_string_bytes, limits_.max_depth);
  }

  void read_agents(const Node& agents) {
    if (!agents.is_array())
      fail("/agents", "expected an array of agents, got " + agents.type_name());
    if (agents.size() == 0) fail("/agents", "a trace needs at least one agent");
    if (agents.size() > limits_.max_agents)
      fail("/agents", std::to_string(agents.size()) + " agents exceed the limit of " +
                          std::to_string(limits_.max_agents));
    std::set<std::string> seen;
    const Where agents_at("/agents");
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const Where p(agents_at, i);
      const Node& a = agents[i];
      if (!a.is_object()) fail(p, "an agent is an object, got " + a.type_name());
      check_members(a, p, {"id", "kind", "origin", "partition", "eventLoop"});
      Agent agent;
      agent.pointer = p.str();
      agent.id = get_id(a, "id", p);
      if (!seen.insert(agent.id).second)
        fail(child(p, "id"), "duplicate agent id " + show(agent.id));
      const std::string_view kind = get_string(a, "kind", p, true);
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
    for (const Agent& a : trace_.agents) agents_.emplace(a.id, &a);
    // An explicit event loop name must not be another agent's own id (its default loop name).
    for (const Agent& a : trace_.agents)
      for (const Agent& b : trace_.agents)
        if (&a != &b && a.event_loop == b.id && b.event_loop == b.id)
          fail(child(a.pointer, "eventLoop"), "event loop name " + show(a.event_loop) +
                                                  " is agent " + show(b.id) + "'s own event loop");
  }

  // Reads the step into a new last element of the trace's steps, built in place (a failed read
  // discards the whole trace).
  void read_top_level(const Node& j, std::size_t index) {
    const Where p(steps_at_, index);
    if (!j.is_object()) fail(p, "a step is an object, got " + j.type_name());
    const std::string_view op = get_string(j, "op", p, true);
    std::string agent;
    if (op == "advanceTime") {
      if (j.contains("agent"))
        fail(child(p, "agent"), "advanceTime moves the world's clock and takes no agent");
    } else {
      agent = get_string(j, "agent", p, true, limits_.max_id_bytes);
      if (!agent_of(agent)) fail(child(p, "agent"), "no agent with id " + show(agent));
      auto t = terminated_at_.find(agent);
      if (t != terminated_at_.end())
        fail(child(p, "agent"),
             "agent " + show(agent) + " was terminated by " + Error{t->second, ""}.path());
    }
    Action& a = trace_.steps.emplace_back();
    read_action(a, j, p, TracePointer::step(index), agent, /*top_level=*/true, 0);
    a.settle = get_bool(j, "settle", p, true);
    if (a.op == Op::Terminate) terminated_at_[agent] = p.str();
  }

  // Fills `a`, a default Action.
  void read_action(Action& a, const Node& j, const Where& p, const TracePointer& at,
                   const std::string& agent, bool top_level, std::size_t depth) {
    if (!j.is_object()) fail(p, "an action is an object, got " + j.type_name());
    if (++action_count_ > limits_.max_actions)
      fail(p, "more than " + std::to_string(limits_.max_actions) + " actions in one trace");
    if (depth > limits_.max_depth)
      fail(p, "bodies nested deeper than " + std::to_string(limits_.max_depth));
    if (!top_level && j.contains("agent"))
      fail(child(p, "agent"), "inside a body the running agent is implied; remove \"agent\"");
    if (!top_level && j.contains("settle"))
      fail(child(p, "settle"), "\"settle\" applies to top-level steps only");
    a.pointer = at;
    a.agent = agent;
    const std::string_view op = get_string(j, "op", p, true);
    const std::optional<Op> named = op_named(op);
    if (!named) fail(child(p, "op"), "unknown op " + show(op));
    a.op = *named;
    const auto members = [&](std::initializer_list<std::string_view> own) {
      using namespace std::string_view_literals;
      for (const auto& [key, value] : j.members()) {
        bool known =
            Node::same_text(key, "op"sv) || Node::same_text(key, "note"sv) ||
            (top_level && (Node::same_text(key, "agent"sv) || Node::same_text(key, "settle"sv)));
        for (std::string_view k : own) known = known || Node::same_text(key, k);
        if (!known)
          fail(child(p, key), "unknown member \"" + key + "\" for op \"" + std::string(op) + "\"");
      }
    };
    const auto body_only = [&] {
      if (top_level)
        fail(child(p, "op"), "\"" + std::string(op) + "\" is only allowed inside a body");
    };
    const auto body = [&](const char* key, bool required) {
      const Node* given = j.find(key);
      if (!given) {
        if (required) missing(p, key);
        return;
      }
      a.body = read_body(*given, child(p, key), at, agent, depth + 1);
    };

    if (a.op == Op::Request) {
      members({"id", "name", "options", "callback"});
      define(a, j, p);
      a.name = get_string(j, "name", p, true);
      if (const Node* options = j.find("options"))
        a.lock_options = read_lock_options(*options, child(p, "options"), agent);
      a.callback = read_callback(j, p, at, agent, depth);
    } else if (a.op == Op::Query) {
      members({"id"});
      define(a, j, p);
    } else if (a.op == Op::NewAbortController) {
      members({"id"});
      define(a, j, p);
    } else if (a.op == Op::Abort) {
      members({"signal", "reason"});
      a.signal = reference(j, "signal", p, agent, kAbortController,
                           "an AbortController or TaskController");
      if (j.contains("reason")) a.reason = read_value(j["reason"], child(p, "reason"));
    } else if (a.op == Op::TimeoutSignal) {
      members({"id", "ms"});
      a.ms = get_ms(j, "ms", p, 9007199254740991ull);
      define(a, j, p);
    } else if (a.op == Op::Settle) {
      members({"target", "outcome", "value"});
      a.target = reference(
          j, "target", p, agent, kSettleable,
          "a newPromise, or a request or postTask whose callback result is {\"pending\": true}");
      const std::string_view outcome = get_string(j, "outcome", p, true);
      if (outcome == "fulfill")
        a.fulfill = true;
      else if (outcome == "reject")
        a.fulfill = false;
      else
        fail(child(p, "outcome"), "expected \"fulfill\" or \"reject\", got " + show(outcome));
      if (j.contains("value")) a.value = read_value(j["value"], child(p, "value"));
    } else if (a.op == Op::Terminate) {
      members({});
    } else if (a.op == Op::Unload) {
      members({});
      if (agent_of(agent)->kind != AgentKind::Window)
        fail(child(p, "op"),
             "unload applies to a window's document; " + show(agent) + " is a worker");
    } else if (a.op == Op::PostTask) {
      members({"id", "options", "callback"});
      define(a, j, p);
      if (j.contains("options"))
        read_post_task_options(a, j["options"], child(p, "options"), agent);
      a.callback = read_callback(j, p, at, agent, depth);
    } else if (a.op == Op::NewTaskController) {
      members({"id", "priority"});
      define(a, j, p);
      if (j.contains("priority")) a.priority = get_priority(j["priority"], child(p, "priority"));
    } else if (a.op == Op::SetPriority) {
      members({"controller", "priority"});
      a.controller = reference(j, "controller", p, agent, kTaskController, "a TaskController");
      a.priority = get_priority(require(j, "priority", p), child(p, "priority"));
    } else if (a.op == Op::TaskSignalAny) {
      members({"id", "signals", "priority"});
      const Node& signals = require(j, "signals", p);
      const Where signals_at = child(p, "signals");
      if (!signals.is_array()) fail(signals_at, "expected an array of signal ids");
      for (std::size_t i = 0; i < signals.size(); ++i) {
        const Where sp = child(signals_at, i);
        if (!signals[i].is_string())
          fail(sp, "expected a signal id, got " + signals[i].type_name());
        a.signals->push_back(
            check_reference(signals[i].as_string(), sp, agent, kSignal, "a signal"));
      }
      if (j.contains("priority")) {
        const Node& pr = j["priority"];
        const Where pp = child(p, "priority");
        if (pr.is_object()) {
          check_members(pr, pp, {"signal"});
          a.any_priority->signal = reference(pr, "signal", pp, agent, kTaskSignal, "a TaskSignal");
        } else {
          a.any_priority->priority = get_priority(pr, pp);
        }
      }
      define(a, j, p);
    } else if (a.op == Op::OnPriorityChange) {
      members({"signal", "body"});
      a.signal = reference(j, "signal", p, agent, kTaskSignal, "a TaskSignal");
      body("body", false);
    } else if (a.op == Op::RequestIdleCallback) {
      members({"id", "callback"});
      if (agent_of(agent)->kind != AgentKind::Window)
        fail(child(p, "op"),
             "requestIdleCallback is exposed on windows only; " + show(agent) + " is a worker");
      define(a, j, p);
      a.callback = read_callback(j, p, at, agent, depth);
    } else if (a.op == Op::Run) {
      members({"body"});
      body("body", true);
    } else if (a.op == Op::SetTimeout) {
      members({"id", "ms", "body"});
      a.ms = get_ms(j, "ms", p, 2147483647ull);
      define(a, j, p);
      body("body", false);
    } else if (a.op == Op::NewPromise) {
      members({"id"});
      define(a, j, p);
    } else if (a.op == Op::Then) {
      members({"target", "body"});
      a.target = reference(j, "target", p, agent, kPromise,
                           "a promise (request, query, postTask, yield, newPromise)");
      body("body", false);
    } else if (a.op == Op::QueueMicrotask) {
      members({"body"});
      body("body", false);
    } else if (a.op == Op::AdvanceTime) {
      if (!top_level) fail(child(p, "op"), "advanceTime moves the world's clock: top level only");
      members({"ms"});
      a.ms = get_ms(j, "ms", p, 9007199254740991ull);
    } else if (a.op == Op::Await) {
      body_only();
      members({"target"});
      a.target = reference(j, "target", p, agent, kPromise,
                           "a promise (request, query, postTask, yield, newPromise)");
    } else if (a.op == Op::Yield) {
      body_only();
      members({"id"});
      define(a, j, p);
    } else if (a.op == Op::Mark) {
      body_only();
      members({"label"});
      a.label = get_string(j, "label", p, true);
    }
  }

  // `owner_at`: the action or callback whose "body" this is.
  std::vector<Action> read_body(const Node& j, const Where& p, const TracePointer& owner_at,
                                const std::string& agent, std::size_t depth) {
    if (!j.is_array()) fail(p, "a body is an array of actions, got " + j.type_name());
    std::vector<Action> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i)
      read_action(out.emplace_back(), j[i], child(p, i), owner_at.body(i), agent, false, depth);
    return out;
  }

  Callback read_callback(const Node& j, const Where& p, const TracePointer& at,
                         const std::string& agent, std::size_t depth) {
    Callback cb;
    const Where cp = child(p, "callback");
    cb.pointer = at.callback();
    const Node* given = j.find("callback");
    if (!given) return cb;  // I-14: an empty plain function
    const Node& c = *given;
    if (!c.is_object())
      fail(cp, "a callback is an object {\"body\"?, \"result\"?}, got " + c.type_name());
    check_members(c, cp, {"body", "result"});
    // The result is read first so that ids defined in the body cannot shadow it; the body is read
    // in document order after the callback's own promise id was defined by the caller.
    if (const Node* result = c.find("result")) {
      const Where rp = child(cp, "result");
      const Node& r = *result;
      if (!r.is_object() || r.size() != 1)
        fail(rp, "a result is {\"return\": V}, {\"throw\": V} or {\"pending\": true}");
      if (r.contains("return")) {
        cb.result = Callback::Result::Return;
        *cb.value = read_value(r["return"], child(rp, "return"));
      } else if (r.contains("throw")) {
        cb.result = Callback::Result::Throw;
        *cb.value = read_value(r["throw"], child(rp, "throw"));
      } else if (r.contains("pending")) {
        if (!(r["pending"].is_boolean() && r["pending"].as_boolean()))
          fail(child(rp, "pending"), "expected true");
        cb.result = Callback::Result::Pending;
      } else {
        fail(child(rp, r.members()[0].first),
             "unknown result \"" + r.members()[0].first + "\" (return, throw, pending)");
      }
    }
    if (const Node* body = c.find("body"))
      cb.body = read_body(*body, child(cp, "body"), cb.pointer, agent, depth + 1);
    for (const Action& a : cb.body)
      cb.is_async = cb.is_async || a.op == Op::Await || a.op == Op::Yield;
    return cb;
  }

  LockOptionsSpec read_lock_options(const Node& j, const Where& p, const std::string& agent) {
    if (!j.is_object()) fail(p, "options is an object, got " + j.type_name());
    check_members(j, p, {"mode", "ifAvailable", "steal", "signal"});
    LockOptionsSpec o;
    if (j.contains("mode")) {
      const Node& m = j["mode"];
      if (m.equals("exclusive"))
        o.mode = LockMode::Exclusive;
      else if (m.equals("shared"))
        o.mode = LockMode::Shared;
      else
        fail(child(p, "mode"), "expected \"exclusive\" or \"shared\", got " + m.dump());
    }
    o.if_available = get_bool(j, "ifAvailable", p, false);
    o.steal = get_bool(j, "steal", p, false);
    if (j.contains("signal")) o.signal = reference(j, "signal", p, agent, kSignal, "a signal");
    return o;
  }

  void read_post_task_options(Action& a, const Node& j, const Where& p, const std::string& agent) {
    if (!j.is_object()) fail(p, "options is an object, got " + j.type_name());
    check_members(j, p, {"priority", "signal", "delay"});
    if (j.contains("priority"))
      a.task_options->priority = get_priority(j["priority"], child(p, "priority"));
    if (j.contains("signal"))
      a.task_options->signal = reference(j, "signal", p, agent, kSignal, "a signal");
    if (j.contains("delay")) a.task_options->delay = get_ms(j, "delay", p, 9007199254740991ull);
  }

  void define(Action& a, const Node& j, const Where& p) {
    a.id = get_id(j, "id", p);
    unsigned kinds = kinds_of(a);
    // A request or task whose callback result is pending can be settled; known before its body is
    // read, so that the body may already name it.
    if (a.op == Op::Request || a.op == Op::PostTask)
      if (const Node* c = j.find("callback"); c && c->is_object())
        if (const Node* r = c->find("result"); r && r->is_object() && r->contains("pending"))
          kinds |= kSettleable;
    const std::uint32_t first =
        ids_.find_or_insert(a.id.view(), static_cast<std::uint32_t>(definitions_.size()),
                            [this](std::uint32_t i) { return definitions_[i].id.view(); });
    if (first != StringIndex::kNone)
      fail(child(p, "id"), "duplicate id " + show(a.id) + " (first defined by " +
                               Error{definitions_[first].pointer.str(), ""}.path() + ")");
    definitions_.push_back(
        Definition{a.id, a.pointer, agent_index(a.agent), static_cast<std::uint8_t>(kinds), a.op});
  }

  std::string_view reference(const Node& j, std::string_view key, const Where& p,
                             const std::string& agent, unsigned kinds, const std::string& what) {
    const std::string_view id = get_string(j, key, p, true, limits_.max_id_bytes);
    return check_reference(id, child(p, key), agent, kinds, what);
  }

  // I-16: a reference names an id defined earlier in document order, of the right kind, owned by
  // an agent on the same event loop as the one using it.
  std::string_view check_reference(std::string_view id, const Where& p, const std::string& agent,
                                   unsigned kinds, const std::string& what) {
    const Definition* made = definition_of(id);
    if (!made) fail(p, "no earlier step creates " + show(id) + "; expected " + what);
    if (!(made->kinds & kinds))
      fail(p, show(id) + " is made by " + std::string(op_name(made->op)) + " at " +
                  Error{made->pointer.str(), ""}.path() + "; expected " + what);
    const Agent* user = agent_of(agent);
    const Agent* owner = &trace_.agents[made->owner];
    if (user && owner && user->event_loop != owner->event_loop)
      fail(p, show(id) + " belongs to agent " + show(owner->id) + ", whose event loop script on " +
                  show(user->id) + " cannot reach");
    return id;
  }

  // Extension `readings` (docs/interpretations.md): which reading of an ambiguous step to follow.
  void read_readings(const Node& j) {
    if (!j.is_object())
      fail("/readings", "expected an object such as {\"released-promise\": \"note\"}");
    const Where readings_at("/readings");
    check_members(j, readings_at, {"released-promise", "stale-removal", "closed-window-jobs"});
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
  void read_reading(const Node& j, const char* key, const Reading (&both)[2],
                    const char* (*name)(Reading), Reading& reading) {
    if (!j.contains(key)) return;
    const std::string given(get_string(j, key, Where("/readings"), true));
    for (Reading r : both)
      if (given == name(r)) {
        reading = r;
        return;
      }
    fail(child("/readings", key), std::string("expected \"") + name(both[0]) + "\" or \"" +
                                      name(both[1]) + "\", got \"" + given + "\"");
  }

  void read_schedule(const Node& j) {
    if (!j.is_array())
      fail("/schedule", "expected an array of choices such as \"locks\", \"loop:A\"");
    for (std::size_t i = 0; i < j.size(); ++i) {
      std::string p = child("/schedule", i);
      if (!j[i].is_string()) fail(p, "a choice is a string, got " + j[i].type_name());
      const std::string pin = j[i].as_string();
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

// The JSON nesting a trace may have: its bodies and values up to max_depth each, and the few
// levels of a step around them.
detail::ParseLimits parse_limits(const ReadLimits& limits) {
  return {limits.max_depth * 2 + 8, std::max(limits.max_string_bytes, kDescriptionBytes)};
}

Result<Trace> read_trace_from(detail::ByteSource& source, const ReadLimits& limits) {
  TraceReader reader(limits);
  // The steps are sized once from the document's size, as a log's events are (log_reader.cpp):
  // an Action is large, and growing the vector moves every one read so far.
  constexpr std::size_t kFewestBytesPerStep = 64;
  reader.expect(std::min(source.size_hint() / kFewestBytesPerStep, limits.max_actions));
  return detail::read_document(source, parse_limits(limits), "a trace", "steps", reader);
}

}  // namespace

Result<Trace> read_trace(const std::string& text, const ReadLimits& limits) {
  return read_trace_from(*detail::ByteSource::of_text(text, limits.max_document_bytes), limits);
}

Result<Trace> read_trace_file(const std::string& path, const ReadLimits& limits) {
  return detail::read_path(path, limits.max_document_bytes, [&](detail::ByteSource& source) {
    return read_trace_from(source, limits);
  });
}

}  // namespace lockstep
