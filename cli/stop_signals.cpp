#include "stop_signals.h"

#include <signal.h>

#include <csignal>

namespace lockstep::cli {
namespace {

volatile std::sig_atomic_t received = 0;
struct sigaction previous_int {
}, previous_term{};

void record(int signal) {
  received = signal;
}

}  // namespace

StopSignals::StopSignals() {
  received = 0;
  struct sigaction action {};
  action.sa_handler = record;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking waits return EINTR
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

int stop_signal() {
  return received;
}

bool stop_requested() {
  return received != 0;
}

const char* stop_signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return nullptr;
}

}  // namespace lockstep::cli

namespace lockstep::cli {

int stop_signal_named(const std::string& name) {
  for (int signal : {SIGINT, SIGTERM})
    if (name == stop_signal_name(signal)) return signal;
  return 0;
}

}  // namespace lockstep::cli
