// Agents as the trace has them: one global (Window or WorkerGlobalScope) with its environment
// settings object. See docs/interpretations.md I-5 for why this stands for the spec's "agent".
#pragma once

#include <string>

#include "lockstep/trace.h"

namespace lockstep::spec {

class EventLoop;

struct Environment {
  const Agent* trace_agent = nullptr;
  std::string id;  // https://html.spec.whatwg.org/#concept-environment-id (the clientId)
  std::string origin;
  std::string partition;            // the user agent (profile or private session) it lives in, I-11
  EventLoop* event_loop = nullptr;  // its responsible event loop
  bool is_window = true;
  // https://html.spec.whatwg.org/#fully-active for the associated Document (windows only, I-9).
  bool document_fully_active = true;
  bool terminated = false;  // the agent ended: nothing of it runs again (I-10)
};

}  // namespace lockstep::spec
