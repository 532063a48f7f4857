#include "event_match.h"

#include <algorithm>
#include <vector>

#include "lockstep/check.h"

namespace lockstep::check {
namespace {

struct Entry {
  std::string name, mode, client;
};

// A snapshot list as (name, mode, clientId) entries; false when it has another shape.
bool entries_of(const Value* list, std::vector<Entry>& out) {
  if (!list || list->kind() != Value::Kind::Array) return false;
  for (const Value& item : list->items()) {
    const Value* name = item.member("name");
    const Value* mode = item.member("mode");
    const Value* client = item.member("clientId");
    if (!name || !mode || !client || name->kind() != Value::Kind::String ||
        mode->kind() != Value::Kind::String || client->kind() != Value::Kind::String)
      return false;
    out.push_back(Entry{name->as_string(), mode->as_string(), client->as_string()});
  }
  return true;
}

}  // namespace

std::set<std::string> query_ids(const Trace& trace) {
  std::set<std::string> ids;
  for_each_action(trace.steps, [&](const Action& a) {
    if (a.op == Op::Query) ids.insert(a.id);
  });
  return ids;
}

EventMatcher::EventMatcher(const std::set<std::string>& queries, bool compare_steps)
    : queries_(&queries), compare_steps_(compare_steps) {}

bool EventMatcher::matches(const Event& model, const Event& observed) {
  if (model.agent != observed.agent || model.event != observed.event) return false;
  if (compare_steps_ && model.step != observed.step) return false;
  return same_members(model, observed);
}

bool EventMatcher::same_members(const Event& model, const Event& observed) {
  if (model.members.size() != observed.members.size()) return false;
  const Value* target = model.member("target");
  const bool snapshot = model.event == "settled" && target &&
                        target->kind() == Value::Kind::String &&
                        queries_->count(target->as_string()) > 0;
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

bool EventMatcher::same_snapshot(const Value& model, const Value& observed) {
  if (model.kind() != Value::Kind::Object || observed.kind() != Value::Kind::Object)
    return model == observed;
  return same_held(model, observed) && same_pending(model, observed);
}

// web-locks#snapshot-the-lock-state: held locks come in no particular order, so the lists compare
// as multisets per (name, mode). Which client is which is learnt where the snapshot leaves no
// doubt (one client left on each side of a (name, mode) group); where several unlearnt clients
// share a group, any pairing is taken as consistent (docs/interpretations.md I-23).
bool EventMatcher::same_held(const Value& model, const Value& observed) {
  std::vector<Entry> m, o;
  if (!entries_of(model.member("held"), m) || !entries_of(observed.member("held"), o)) return false;
  if (m.size() != o.size()) return false;
  std::map<std::pair<std::string, std::string>,
           std::pair<std::vector<std::string>, std::vector<std::string>>>
      groups;
  for (const Entry& e : m) groups[{e.name, e.mode}].first.push_back(e.client);
  for (const Entry& e : o) groups[{e.name, e.mode}].second.push_back(e.client);
  for (auto& [key, sides] : groups) {
    auto& [agents, clients] = sides;
    if (agents.size() != clients.size()) return false;
    std::vector<std::string> free_clients;
    for (const std::string& client : clients) {
      auto known = agent_of_client_.find(client);
      if (known == agent_of_client_.end()) {
        free_clients.push_back(client);
        continue;
      }
      auto at = std::find(agents.begin(), agents.end(), known->second);
      if (at == agents.end()) return false;
      agents.erase(at);
    }
    for (const std::string& agent : agents)
      if (client_of_agent_.count(agent)) return false;  // its client is elsewhere in the snapshot
    // The same shape of repeats on both sides (a client holding a shared lock twice).
    const auto shape = [](std::vector<std::string> ids) {
      std::sort(ids.begin(), ids.end());
      std::vector<std::size_t> runs;
      for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j < ids.size() && ids[j] == ids[i]) ++j;
        runs.push_back(j - i);
        i = j;
      }
      std::sort(runs.begin(), runs.end());
      return runs;
    };
    if (shape(agents) != shape(free_clients)) return false;
    std::set<std::string> distinct_agents(agents.begin(), agents.end());
    std::set<std::string> distinct_clients(free_clients.begin(), free_clients.end());
    if (distinct_agents.size() == 1 && distinct_clients.size() == 1)
      if (!bind(*distinct_agents.begin(), *distinct_clients.begin())) return false;
  }
  return true;
}

// web-locks#snapshot-the-lock-state: pending requests keep their queue order within one name;
// the order between names is open.
bool EventMatcher::same_pending(const Value& model, const Value& observed) {
  std::vector<Entry> m, o;
  if (!entries_of(model.member("pending"), m) || !entries_of(observed.member("pending"), o))
    return false;
  if (m.size() != o.size()) return false;
  const auto by_name = [](const Entry& a, const Entry& b) { return a.name < b.name; };
  std::stable_sort(m.begin(), m.end(), by_name);
  std::stable_sort(o.begin(), o.end(), by_name);
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i].name != o[i].name || m[i].mode != o[i].mode || !bind(m[i].client, o[i].client))
      return false;
  return true;
}

bool same_observations(const Trace& trace, const Log& model, const Log& observed,
                       bool compare_steps) {
  if (model.events.size() != observed.events.size()) return false;
  std::map<std::string, std::vector<const Event*>> observed_by_agent;
  for (const Event& e : observed.events) observed_by_agent[e.agent].push_back(&e);
  // In the model's order, as a replay matches: the clientIds a snapshot reveals bind from then on.
  const std::set<std::string> queries = query_ids(trace);
  EventMatcher matcher(queries, compare_steps);
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

bool EventMatcher::bind(const std::string& model_agent, const std::string& observed_id) {
  auto known = agent_of_client_.find(observed_id);
  if (known != agent_of_client_.end()) return known->second == model_agent;
  if (client_of_agent_.count(model_agent)) return false;
  agent_of_client_[observed_id] = model_agent;
  client_of_agent_[model_agent] = observed_id;
  return true;
}

}  // namespace lockstep::check
