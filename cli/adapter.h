// Running an external implementation on a trace: the adapter command (`{trace}` in, `{log}` out)
// that `shrink` and `fuzz --target` drive, and check's verdict on the log it writes.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "lockstep/check.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::cli {

// What one adapter run gave.
struct AdapterRun {
  enum class Kind {
    Logged,         // exit 0 and a readable log
    CannotExpress,  // exit 4: the target cannot express the trace (stderr says why)
    Failed,         // another exit (a crash of the engine, or of the adapter), or no log
  } kind = Kind::Failed;
  int exit_code = 0;
  // "cannot express: ..." (exit 4), or the last 40 lines of stderr (a failure)
  std::string message;
  Log log;
};

class Adapter {
 public:
  // `command` must hold {trace} and {log}; check_options judge its logs. `serve_command`, when
  // given, runs once and replays every trace the adapter is handed (adapters/README.md, "Serving
  // many traces"): a line of JSON {"trace", "log"} on its stdin per trace, a line {"exit",
  // "message"} on its stdout back, the exit codes `command`'s; it is started again if it ends.
  Adapter(std::string command, check::Options check_options, std::string serve_command = {});
  ~Adapter();
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;

  AdapterRun run(const Trace& trace);
  // check's report on the adapter's log; none when the adapter did not log.
  std::optional<check::Report> judge(const Trace& trace);
  // A candidate still fails: logged, and check does not allow it.
  bool fails(const Trace& trace);

  const check::Options& check_options() const { return options_; }
  bool served() const { return !serve_command_.empty(); }

 private:
  class Server;
  // Runs the adapter on the files: exit code and message, as `command` would give them.
  std::pair<int, std::string> run_command(const std::filesystem::path& trace_file,
                                          const std::filesystem::path& log_file);

  std::string command_;
  check::Options options_;
  std::filesystem::path dir_;
  std::string serve_command_;
  std::unique_ptr<Server> server_;  // started on first use
};

bool command_has_placeholders(const std::string& command);
// `command` with every `key` (a placeholder such as {trace}) replaced by `value`.
std::string substitute(std::string command, const std::string& key, const std::string& value);

}  // namespace lockstep::cli
