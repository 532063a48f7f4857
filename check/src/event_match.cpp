#include "event_match.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "lockstep/check.h"

namespace lockstep::check {
namespace {

struct Entry {
  std::string name, mode, client;
};

// An object with exactly these members, no other.
bool has_exactly(const Value& object, std::initializer_list<const char*> keys) {
  if (object.kind() != Value::Kind::Object || object.members().size() != keys.size()) return false;
  return std::all_of(keys.begin(), keys.end(),
                     [&](const char* key) { return object.member(key) != nullptr; });
}

bool is_string(const Value* v) {
  return v && v->kind() == Value::Kind::String;
}

// A snapshot list as (name, mode, clientId) entries; false when it has another shape, an entry
// with another member included (web-locks#dictdef-lockinfo has no other).
bool entries_of(const Value* list, std::vector<Entry>& out) {
  if (!list || list->kind() != Value::Kind::Array) return false;
  for (const Value& item : list->items()) {
    if (!has_exactly(item, {"name", "mode", "clientId"})) return false;
    const Value* name = item.member("name");
    const Value* mode = item.member("mode");
    const Value* client = item.member("clientId");
    if (!is_string(name) || !is_string(mode) || !is_string(client)) return false;
    out.push_back(Entry{name->as_string(), mode->as_string(), client->as_string()});
  }
  return true;
}

struct Snapshot {
  std::vector<Entry> held, pending;
};

// A snapshot as web-locks#dictdef-lockmanagersnapshot has it: held and pending, nothing else.
bool snapshot_of(const Value& value, Snapshot& out) {
  return has_exactly(value, {"held", "pending"}) && entries_of(value.member("held"), out.held) &&
         entries_of(value.member("pending"), out.pending);
}

// The value of a settled event of one of `queries`, if it has one.
const Value* snapshot_value(const std::set<std::string>& queries, const Event& e) {
  if (e.event != "settled") return nullptr;
  const Value* target = e.member("target");
  if (!is_string(target) || !queries.count(target->as_string())) return nullptr;
  return e.member("value");
}

// Calls f(clientId) for every string clientId in the held and pending entries of `observed`'s
// snapshots, whatever else is wrong with them (the matcher refuses those).
template <class F>
void for_each_observed_client(const std::set<std::string>& queries, const Log& observed, F&& f) {
  for (const Event& e : observed.events) {
    const Value* value = snapshot_value(queries, e);
    if (!value || value->kind() != Value::Kind::Object) continue;
    for (const char* list : {"held", "pending"}) {
      const Value* entries = value->member(list);
      if (!entries || entries->kind() != Value::Kind::Array) continue;
      for (const Value& entry : entries->items()) {
        const Value* client =
            entry.kind() == Value::Kind::Object ? entry.member("clientId") : nullptr;
        if (is_string(client)) f(client->as_string());
      }
    }
  }
}

// The clients of one group of a snapshot: the model's (agent ids) and the observed ones, which the
// pairing must make the same multiset.
struct ClientGroup {
  std::vector<std::string> model, observed;
};

// web-locks#snapshot-the-lock-state: held locks come in no particular order, so each (name, mode)
// is one group, its clients a multiset (an agent may hold one shared lock twice).
bool add_held_groups(const Snapshot& model, const Snapshot& observed,
                     std::vector<ClientGroup>& groups) {
  std::map<std::pair<std::string, std::string>, ClientGroup> by_lock;
  for (const Entry& e : model.held) by_lock[{e.name, e.mode}].model.push_back(e.client);
  for (const Entry& e : observed.held) by_lock[{e.name, e.mode}].observed.push_back(e.client);
  for (auto& [lock, group] : by_lock) {
    if (group.model.size() != group.observed.size()) return false;
    groups.push_back(std::move(group));
  }
  return true;
}

// web-locks#snapshot-the-lock-state: pending requests keep their queue order within one name, the
// order between names is open; so each place of a name's queue is a group of one.
bool add_pending_groups(Snapshot model, Snapshot observed, std::vector<ClientGroup>& groups) {
  if (model.pending.size() != observed.pending.size()) return false;
  const auto by_name = [](const Entry& a, const Entry& b) { return a.name < b.name; };
  std::stable_sort(model.pending.begin(), model.pending.end(), by_name);
  std::stable_sort(observed.pending.begin(), observed.pending.end(), by_name);
  for (std::size_t i = 0; i < model.pending.size(); ++i) {
    const Entry& m = model.pending[i];
    const Entry& o = observed.pending[i];
    if (m.name != o.name || m.mode != o.mode) return false;
    groups.push_back(ClientGroup{{m.client}, {o.client}});
  }
  return true;
}

// The groups of two snapshots; nothing when their names and modes differ.
std::optional<std::vector<ClientGroup>> client_groups(const Snapshot& model,
                                                      const Snapshot& observed) {
  std::vector<ClientGroup> groups;
  if (!add_held_groups(model, observed, groups) || !add_pending_groups(model, observed, groups))
    return std::nullopt;
  return groups;
}

bool same_multiset(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// How often each member appears in a group.
std::map<int, int> counts(const std::vector<int>& members) {
  std::map<int, int> times;
  for (int m : members) ++times[m];
  return times;
}

}  // namespace

std::set<std::string> query_ids(const Trace& trace) {
  std::set<std::string> ids;
  for_each_action(trace.steps, [&](const Action& a) {
    if (a.op == Op::Query) ids.insert(a.id);
  });
  return ids;
}

ClientIdForm client_id_form(const Trace& trace, const Log& observed) {
  std::set<std::string> agents;
  for (const Agent& a : trace.agents) agents.insert(a.id);
  bool agent_ids = true;
  for_each_observed_client(query_ids(trace), observed, [&](const std::string& client) {
    agent_ids = agent_ids && agents.count(client) > 0;
  });
  return agent_ids ? ClientIdForm::AgentIds : ClientIdForm::Opaque;
}

ObservedSnapshots::ObservedSnapshots(const Trace& trace, const Log& observed, ClientIdForm form)
    : queries_(query_ids(trace)), form_(form) {
  if (form_ != ClientIdForm::Opaque) return;
  for (const Agent& a : trace.agents) agents_.emplace(a.id, static_cast<int>(agents_.size()));
  for_each_observed_client(queries_, observed, [&](const std::string& client) {
    clients_.emplace(client, static_cast<int>(clients_.size()));
  });
}

std::optional<int> ObservedSnapshots::agent_number(const std::string& agent) const {
  const auto found = agents_.find(agent);
  if (found == agents_.end()) return std::nullopt;
  return found->second;
}

std::optional<int> ObservedSnapshots::client_number(const std::string& client) const {
  const auto found = clients_.find(client);
  if (found == clients_.end()) return std::nullopt;
  return found->second;
}

ClientClasses::ClientClasses(std::size_t agents, std::size_t clients)
    : agent_class_(agents, 0), client_class_(clients, 0) {}

// Every member of the group leaves its class k for the class of those that came from k and appear
// as often as it does here, one new class per (k, times) and group, shared by agents and clients.
// Only the classes left and entered can have lost their balance.
bool ClientClasses::refine(const std::vector<int>& agents, const std::vector<int>& clients) {
  if (agents.size() != clients.size()) return false;
  std::map<std::pair<int, int>, int> entered;  // (class left, times in the group) -> class entered
  std::set<int> touched;
  const auto move = [&](std::vector<int>& class_of, const std::vector<int>& members) {
    for (const auto& [member, times] : counts(members)) {
      int& cls = class_of.at(static_cast<std::size_t>(member));
      touched.insert(cls);
      const auto [it, added] = entered.try_emplace({cls, times}, classes_);
      if (added) ++classes_;
      cls = it->second;
      touched.insert(cls);
    }
  };
  move(agent_class_, agents);
  move(client_class_, clients);
  return std::all_of(touched.begin(), touched.end(),
                     [&](int cls) { return cls == 0 || balanced(cls); });
}

bool ClientClasses::balanced(int cls) const {
  return std::count(agent_class_.begin(), agent_class_.end(), cls) ==
         std::count(client_class_.begin(), client_class_.end(), cls);
}

EventMatcher::EventMatcher(const ObservedSnapshots& snapshots, bool compare_steps)
    : snapshots_(&snapshots),
      compare_steps_(compare_steps),
      pairing_(snapshots.agent_count(), snapshots.client_count()) {}

bool EventMatcher::matches(const Event& model, const Event& observed) {
  if (model.agent != observed.agent || model.event != observed.event) return false;
  if (compare_steps_ && model.step != observed.step) return false;
  return same_members(model, observed);
}

bool EventMatcher::same_members(const Event& model, const Event& observed) {
  if (model.members.size() != observed.members.size()) return false;
  const Value* target = model.member("target");
  const bool snapshot =
      model.event == "settled" && is_string(target) && snapshots_->is_query(target->as_string());
  for (const auto& [key, value] : model.members) {
    const Value* other = observed.member(key);
    if (!other) return false;
    if (snapshot && key == "value") {
      if (!same_snapshot(value, *other)) return false;
    } else if (!(value == *other)) {
      return false;
    }
  }
  return true;
}

// I-23: under the agent-id form each group's clients are the model's; under the opaque form the
// pairing must explain them together with every snapshot matched before (refined on a copy, kept
// only if the whole snapshot matches).
bool EventMatcher::same_snapshot(const Value& model, const Value& observed) {
  Snapshot m, o;
  if (!snapshot_of(model, m)) return model == observed;  // not a snapshot the model would make
  if (!snapshot_of(observed, o)) return false;
  const std::optional<std::vector<ClientGroup>> groups = client_groups(m, o);
  if (!groups) return false;
  if (snapshots_->form() == ClientIdForm::AgentIds)
    return std::all_of(groups->begin(), groups->end(),
                       [](const ClientGroup& g) { return same_multiset(g.model, g.observed); });
  ClientClasses pairing = pairing_;
  for (const ClientGroup& group : *groups) {
    std::vector<int> agents, clients;
    for (const std::string& agent : group.model) {
      const std::optional<int> n = snapshots_->agent_number(agent);
      if (!n) return false;  // the model names only the trace's agents
      agents.push_back(*n);
    }
    for (const std::string& client : group.observed) {
      const std::optional<int> n = snapshots_->client_number(client);
      if (!n) return false;  // a log other than the one the matcher was made for
      clients.push_back(*n);
    }
    if (!pairing.refine(agents, clients)) return false;
  }
  pairing_ = std::move(pairing);
  return true;
}

bool same_observations(const Trace& trace, const Log& model, const Log& observed,
                       bool compare_steps, ClientIdForm form) {
  if (model.events.size() != observed.events.size()) return false;
  std::map<std::string, std::vector<const Event*>> observed_by_agent;
  for (const Event& e : observed.events) observed_by_agent[e.agent].push_back(&e);
  // In the model's order, as a replay matches: each snapshot refines the pairing from then on.
  const ObservedSnapshots snapshots(trace, observed, form);
  EventMatcher matcher(snapshots, compare_steps);
  std::map<std::string, std::size_t> next;
  for (const Event& e : model.events) {
    const auto mine = observed_by_agent.find(e.agent);
    std::size_t& k = next[e.agent];
    if (mine == observed_by_agent.end() || k >= mine->second.size() ||
        !matcher.matches(e, *mine->second[k]))
      return false;
    ++k;
  }
  return true;  // as many events in all, each observed one matched once
}

bool same_observations(const Trace& trace, const Log& model, const Log& observed,
                       bool compare_steps) {
  return same_observations(trace, model, observed, compare_steps, client_id_form(trace, observed));
}

}  // namespace lockstep::check
