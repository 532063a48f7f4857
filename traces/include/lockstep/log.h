// The event log: what script could observe while a trace replayed. Format: traces/README.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lockstep/event_members.h"
#include "lockstep/value.h"

namespace lockstep {

struct Event {
  int step = 0;
  std::string agent;
  std::string event;     // callback, task, idle, settled, prioritychange, threw, mark
  EventMembers members;  // in the order the format lists them

  const Value* member(const std::string& key) const;
  friend bool operator==(const Event& a, const Event& b);
};

struct Log {
  std::vector<Event> events;
  // Extension: the implementation that logged this may lose events of an agent that was
  // terminated or unloaded (`check --partial`); check reads the log so whatever it is told.
  bool partial = false;
};

}  // namespace lockstep
