// Whether an event the model logged is the event an implementation logged, up to what the specs
// leave open: a query() snapshot's held list is unordered and its pending list is ordered only
// within a name (web-locks#snapshot-the-lock-state); its clientIds are the agents' own ids when
// the observed log writes only those, and otherwise the implementation's own, paired one to one
// with the trace's agents over the whole log (docs/interpretations.md I-23); DOMExceptions compare
// by name.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::check {

// The ids of the trace's query() requests: the values they settle with are snapshots.
std::set<std::string> query_ids(const Trace& trace);

// How an observed log's query() snapshots name their clients (I-23).
enum class ClientIdForm {
  AgentIds,  // every clientId is an agent id of the trace: each must be its own agent's
  Opaque,    // ids of the implementation's own (a browser's UUIDs): paired one to one with agents
};

// AgentIds when every clientId in `observed`'s snapshots (the held and pending entries of the
// settled events of the trace's queries) is an agent id of `trace`, Opaque otherwise. check()
// decides it once for the observed log and holds every search to it, the parts' too.
ClientIdForm client_id_form(const Trace& trace, const Log& observed);

// What every matcher of one search shares, made once per search: which events are snapshots, the
// form of the observed clientIds and, for the opaque form, the trace's agents and the observed
// log's clients numbered.
class ObservedSnapshots {
 public:
  ObservedSnapshots(const Trace& trace, const Log& observed, ClientIdForm form);

  ClientIdForm form() const { return form_; }
  bool is_query(const std::string& target) const { return queries_.count(target) > 0; }
  std::size_t agent_count() const { return agents_.size(); }
  std::size_t client_count() const { return clients_.size(); }
  // The number of an agent of the trace, of a client of the observed log's snapshots.
  std::optional<int> agent_number(const std::string& agent) const;
  std::optional<int> client_number(const std::string& client) const;

 private:
  std::set<std::string> queries_;
  ClientIdForm form_;
  std::map<std::string, int> agents_, clients_;
};

// The opaque form's pairing (I-23), by partition refinement: agents and clients (by number) fall
// into classes of those that appeared alike in every snapshot group so far, as often in each. An
// injective pairing f makes "the model's agents A of a group are the clients C observed there"
// hold iff each agent appears in A as often as f(agent) in C, so one that explains every group
// exists iff each class has as many agents as clients (class 0, those in no group yet, aside:
// the rest of the agents may stand for clients never observed). Small, as a matcher is copied at
// every search node: two vectors of class numbers.
class ClientClasses {
 public:
  ClientClasses(std::size_t agents, std::size_t clients);

  // Refines the classes by one group (members repeated as often as they appear in it); false when
  // no one-to-one pairing explains it together with the groups before it.
  bool refine(const std::vector<int>& agents, const std::vector<int>& clients);

 private:
  bool balanced(int cls) const;

  std::vector<int> agent_class_, client_class_;
  int classes_ = 1;  // class numbers handed out so far; 0 is that of the unseen
};

// One per replay: the pairing it learns from the snapshots holds for that replay only.
class EventMatcher {
 public:
  // `snapshots` must outlive the matcher.
  EventMatcher(const ObservedSnapshots& snapshots, bool compare_steps);

  // True when `observed` is what `model` logged; may refine the pairing from a query snapshot
  // (only when it matches).
  bool matches(const Event& model, const Event& observed);

 private:
  bool same_members(const Event& model, const Event& observed);
  bool same_snapshot(const Value& model, const Value& observed);

  const ObservedSnapshots* snapshots_;  // a pointer: a matcher is copied and assigned
  bool compare_steps_;
  ClientClasses pairing_;  // the opaque form's
};

// same_observations (check.h) with the form of the observed clientIds given: the merge of the
// parts' runs compares under the whole log's.
bool same_observations(const Trace& trace, const Log& model, const Log& observed,
                       bool compare_steps, ClientIdForm form);

}  // namespace lockstep::check
