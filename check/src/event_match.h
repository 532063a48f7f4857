// Whether an event the model logged is the event an implementation logged, up to what the specs
// leave open: a query() snapshot's held list is unordered and its pending list is ordered only
// within a name (web-locks#snapshot-the-lock-state); clientIds are opaque strings, mapped one to
// one onto the trace's agents as the log reveals them; DOMExceptions compare by name.
#pragma once

#include <map>
#include <set>
#include <string>

#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::check {

// The ids of the trace's query() requests: the values they settle with are snapshots.
std::set<std::string> query_ids(const Trace& trace);

// One per replay: the clientIds it learns hold for that replay only.
class EventMatcher {
 public:
  // `queries` (query_ids of the trace) must outlive the matcher.
  EventMatcher(const std::set<std::string>& queries, bool compare_steps);

  // True when `observed` is what `model` logged; may learn clientIds from a query snapshot.
  bool matches(const Event& model, const Event& observed);

 private:
  bool same_members(const Event& model, const Event& observed);
  bool same_snapshot(const Value& model, const Value& observed);
  bool same_held(const Value& model, const Value& observed);
  bool same_pending(const Value& model, const Value& observed);
  bool bind(const std::string& model_agent, const std::string& observed_id);

  const std::set<std::string>* queries_;  // a pointer: a matcher is copied and assigned
  bool compare_steps_;
  std::map<std::string, std::string> agent_of_client_, client_of_agent_;
};

}  // namespace lockstep::check
