// Running an external implementation on a trace: the adapter command (`{trace}` in, `{log}` out)
// that `shrink` and `fuzz --target` drive, and check's verdict on the log it writes.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lockstep/check.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::cli {

// What one adapter run gave.
struct AdapterRun {
  enum class Kind {
    Logged,         // exit 0 and a readable log
    CannotExpress,  // exit 4: the target cannot express the trace (stderr says why)
    Failed,   // another exit (a crash of the engine, or of the adapter), no log, or never started
    Stopped,  // SIGINT or SIGTERM asked lockstep to stop (stop_signals.h): the adapter was ended
              // or never started, and the run says nothing of the implementation
  } kind = Kind::Failed;
  int exit_code = 0;  // 128 + the signal's number when a signal killed it
  // "cannot express: ..." (exit 4), the last 40 lines of stderr (a failure), or "could not start
  // PROGRAM: why" (a program not found or not executable)
  std::string message;
  Log log;
};

// An adapter command as its words (command_words.h), placeholders such as {trace} still in them:
// each is filled within its word, so a file name stays one argument whatever it holds.
using CommandWords = std::vector<std::string>;
// A placeholder ("{adapters}") and what it stands for.
using Placeholders = std::map<std::string, std::string>;

class Adapter {
 public:
  // `command` must hold {trace} and {log}; check_options judge its logs. It is started with
  // posix_spawnp, no shell: its first word is the program (looked up on PATH without a `/`), its
  // stdin and stdout are /dev/null and its stderr is kept. Each adapter process leads a process
  // group of its own, so that what it starts (browsers) can be ended with it: on a stop request
  // (stop_signals.h) the group is sent SIGTERM, then SIGKILL if it is still there 2 s later.
  // `serve_command`, when given, runs once and replays every trace the adapter is handed
  // (adapters/README.md, "Serving many traces"): a line of JSON {"trace", "log"} on its stdin per
  // trace, a line {"exit", "message"} on its stdout back, the exit codes `command`'s; it is started
  // again if it ends. `fixed` fills the other placeholders of both ({adapters}), in the same pass
  // as {trace} and {log}.
  // `serve_at_once` > 1: the server takes that many traces in flight at once, each request with
  // an "id" that its answer repeats, answers in any order (submit() and answer()).
  Adapter(CommandWords command, check::Options check_options, CommandWords serve_command = {},
          Placeholders fixed = {}, int serve_at_once = 1);
  ~Adapter();
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;

  // `settle_scale` > 1: the one-shot command (never the server), with LOCKSTEP_SETTLE_SCALE set
  // to it in its environment, so that its settling waits that many times longer
  // (adapters/README.md, "Flaky failures"): how a failure is run again before it is kept.
  AdapterRun run(const Trace& trace, double settle_scale = 1);

  // Traces in flight at once. submit() hands the trace to the server and returns its ticket (once
  // the server has fewer than at_once() traces unanswered); answer() waits for the next trace to be
  // done, whichever it is. Where the server takes one trace at a time (or there is none) submit()
  // runs the trace to its end, and answer() gives the runs back in the order submitted. A server
  // that ends fails every trace in flight on it (or, on a stop request, ends them as Stopped).
  // run() may be called between the two: its trace goes beside those in flight, and their answers
  // wait for answer().
  // `settle_scale` > 1 on such a server is the request's "settleScale" (its re-runs, as run()'s
  // LOCKSTEP_SETTLE_SCALE is the one-shot command's).
  using Ticket = std::uint64_t;
  static constexpr int kMaxAtOnce = 64;
  Ticket submit(const Trace& trace, double settle_scale = 1);
  std::pair<Ticket, AdapterRun> answer();  // only with a trace in flight (in_flight() > 0)
  std::size_t in_flight() const { return unanswered_.size() + ready_.size(); }
  // How many traces may be in flight on the server (1 without one that takes several).
  int at_once() const { return at_once_; }

  // A run that check judged: the adapter's log and check's report on it.
  struct Judged {
    Log log;
    check::Report report;
  };
  // The run and check's report on its log; none when the adapter did not log or check could not
  // read the log against the trace.
  std::optional<Judged> judge(const Trace& trace);

  const check::Options& check_options() const { return options_; }
  bool served() const { return !serve_command_.empty(); }

 private:
  class Server;
  // Runs the adapter on the files: exit code and message, as `command` would give them.
  std::pair<int, std::string> run_command(const std::filesystem::path& trace_file,
                                          const std::filesystem::path& log_file,
                                          double settle_scale);
  // What an exit code and message come to, the log read from `log_file` when it logged.
  static AdapterRun outcome(int exit_code, std::string message,
                            const std::filesystem::path& log_file);
  // One answer of the server's, placed in ready_ by its id (or every trace in flight failed).
  void read_answer();
  void server_ended();
  void fail_unanswered(const std::string& why, int exit_code);

  CommandWords command_;
  check::Options options_;
  std::filesystem::path dir_;
  CommandWords serve_command_;
  Placeholders fixed_;
  std::unique_ptr<Server> server_;  // started on first use
  int at_once_;
  Ticket next_ticket_ = 0;
  // Sent to the server and not answered yet: ticket -> its trace and log files.
  std::map<Ticket, std::pair<std::filesystem::path, std::filesystem::path>> unanswered_;
  std::deque<std::pair<Ticket, AdapterRun>> ready_;  // done, not yet taken by answer()
};

// The test a shrink keeps a candidate by: the adapter's log of it is not allowed and its
// divergence has the original failure's signature (lockstep/signature.h), so that shrinking
// does not drift from one bug to another. The last candidate that failed so is kept with its
// run: once the shrink is done, the minimal trace's log and report.
class KeepsItsFailure {
 public:
  KeepsItsFailure(Adapter& adapter, std::string signature)
      : adapter_(adapter), signature_(std::move(signature)) {}
  bool operator()(const Trace& candidate);
  const std::optional<Adapter::Judged>& last() const { return last_; }
  // Candidates whose log was not allowed with another signature: not taken.
  std::uint64_t other_failures() const { return other_failures_; }

 private:
  Adapter& adapter_;
  std::string signature_;
  std::optional<Adapter::Judged> last_;
  std::uint64_t other_failures_ = 0;
};

// A child's exit code from its waitpid status, or 128 + the signal's number when a signal ended
// it, as a shell reports it.
int exit_code_of(int wait_status);

// Some word holds {trace} and some word {log}.
bool command_has_placeholders(const CommandWords& command);

}  // namespace lockstep::cli
