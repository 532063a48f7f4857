// SIGINT and SIGTERM as a request to stop a campaign (`fuzz --target`): while a StopSignals is in
// scope, either signal only records itself, so that the campaign stops between traces, ends the
// adapters in flight (Adapter, adapter.h) and writes what it has. Handlers are installed without
// SA_RESTART, so a wait for an adapter returns (EINTR) as soon as one arrives.
#pragma once

#include <string>

namespace lockstep::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // puts the previous ones back
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

// The signal that asked to stop (SIGINT or SIGTERM), or 0.
int stop_signal();
bool stop_requested();
// "SIGINT", "SIGTERM"; nullptr for 0.
const char* stop_signal_name(int signal);
// The signal of that name (summary.json's "stoppedBy"), or 0.
int stop_signal_named(const std::string& name);

}  // namespace lockstep::cli
