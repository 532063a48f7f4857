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

class EventMatcher {
 public:
  EventMatcher(const Trace& trace, bool compare_steps);

  // Forgets the clientIds learnt so far (each replay learns them afresh).
  void reset();
  // True when `observed` is what `model` logged; may learn clientIds from a query snapshot.
  bool matches(const Event& model, const Event& observed);

 private:
  bool same_members(const Event& model, const Event& observed);
  bool same_snapshot(const Value& model, const Value& observed);
  bool same_held(const Value& model, const Value& observed);
  bool same_pending(const Value& model, const Value& observed);
  bool bind(const std::string& model_agent, const std::string& observed_id);

  std::set<std::string> queries_;  // ids of query() requests: their values are snapshots
  bool compare_steps_;
  std::map<std::string, std::string> agent_of_client_, client_of_agent_;
};

}  // namespace lockstep::check
