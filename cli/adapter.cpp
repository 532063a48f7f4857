#include "adapter.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>  // mkdtemp
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "command_words.h"
#include "lockstep/trace_io.h"
#include "stop_signals.h"

extern char** environ;

namespace lockstep::cli {

int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

namespace {

constexpr int kCannotExpress = 4;  // adapters/README.md
constexpr int kAdapterFailed = 1;
constexpr int kStopped = -1;  // run_command's code for a run a stop request ended

// What the adapter wrote to stderr, its last 40 lines at most: a crash's own message often comes
// after warnings (Node's PromiseRejectionHandledWarning, say), so the first line is not enough.
std::string stderr_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::size_t from = lines.size() > 40 ? lines.size() - 40 : 0;
  std::string text;
  for (std::size_t i = from; i < lines.size(); ++i) text += (i > from ? "\n" : "") + lines[i];
  return text;
}

CommandWords filled(const CommandWords& command, const Placeholders& values) {
  CommandWords words;
  for (const std::string& word : command) words.push_back(fill_placeholders(word, values));
  return words;
}

// Starts `words` (the program, then its arguments) with posix_spawnp: no shell, so nothing in a
// word is expanded. SIGPIPE goes back to its default in the child (lockstep ignores it, for the
// server's pipe, and an ignored signal would stay ignored across exec). The error says why the
// program could not start (glibc reports a failed exec as posix_spawnp's result).
// `extra_environment` ("NAME=value" each) is added to lockstep's own environment.
Result<pid_t> spawn(const CommandWords& words, const posix_spawn_file_actions_t& actions,
                    const std::vector<std::string>& extra_environment = {}) {
  std::vector<char*> envp;
  for (const std::string& entry : extra_environment)
    envp.push_back(const_cast<char*>(entry.c_str()));
  for (char** e = environ; *e; ++e) {  // lockstep's own, less what the extra entries replace
    bool replaced = false;
    for (const std::string& entry : extra_environment)
      replaced = replaced || std::strncmp(*e, entry.c_str(), entry.find('=') + 1) == 0;
    if (!replaced) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const std::string& word : words) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, which end_group() ends
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) return Error{"", "could not start " + words[0] + ": " + std::strerror(error)};
  return pid;
}

// `pid` has exited and is reaped within `limit` (or was reaped already).
bool reaped_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (true) {
    const pid_t r = waitpid(pid, nullptr, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Ends the process group `pid` leads, the adapter and what it started, and reaps `pid`: SIGTERM
// first, so that it can close what it opened (browser/launch.py closes its browsers on it), then
// SIGKILL for whatever of the group is left after `grace`.
void end_group(pid_t pid, std::chrono::milliseconds grace = std::chrono::milliseconds(2000)) {
  kill(-pid, SIGTERM);
  const bool reaped = reaped_within(pid, grace);
  kill(-pid, SIGKILL);  // the rest of the group, if any (ESRCH otherwise)
  if (!reaped)
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

// Its exit code, or 128 + the signal's number when a signal killed it, as a shell reports it;
// kStopped when a stop request came first (the group is then ended).
int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kAdapterFailed;  // not our child: cannot happen
    if (stop_requested()) {
      end_group(pid);
      return kStopped;
    }
  }
  return exit_code_of(status);
}

// An answer's "message", or nothing where it has none or not a string.
std::string message_of(const nlohmann::json& answer) {
  const auto it = answer.find("message");
  return it != answer.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

// The serve command's process, its stdin and stdout on pipes and its stderr appended to a file.
// Requests are lines of a few hundred bytes and at most kMaxAtOnce are unanswered, so neither
// side can fill a pipe the other is not reading.
class Adapter::Server {
 public:
  Server(const CommandWords& command, const std::filesystem::path& stderr_file)
      : stderr_file_(stderr_file) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0)
      throw std::runtime_error("cannot make pipes for the adapter's server");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]})
      posix_spawn_file_actions_addclose(&actions, fd);
    const Result<pid_t> spawned = spawn(command, actions);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    to_ = fdopen(to_child[1], "w");
    from_ = fdopen(from_child[0], "r");
    if (spawned) pid_ = spawned.value();
    if (!spawned) start_error_ = spawned.error().message;
    if (!spawned || !to_ || !from_) ended_ = true;
  }

  // End of input: the server finishes and exits (closing its browsers takes a few seconds); on a
  // stop request, or if it is still there 10 s later, its group is ended.
  ~Server() {
    if (to_) fclose(to_);
    if (from_) fclose(from_);
    if (pid_ <= 0) return;
    if (stop_requested() || !reaped_within(pid_, std::chrono::seconds(10))) end_group(pid_);
  }

  // Sends a request's line; false once the server has ended (it then answers nothing more).
  bool send(const std::string& request) {
    if (ended_) return false;
    // A server that has ended closes its stdin: writing to it must fail, not kill lockstep.
    signal(SIGPIPE, SIG_IGN);
    if (std::fputs(request.c_str(), to_) < 0 || std::fputc('\n', to_) < 0 ||
        std::fflush(to_) != 0) {
      ended_ = true;
      return false;
    }
    return true;
  }

  // The next answer's line, or nothing once the server has ended or a stop request came
  // (stopped() then says so, and the server is ended with the Server).
  std::optional<std::string> receive() {
    if (ended_) return std::nullopt;
    std::string line;
    for (int c; (c = std::fgetc(from_)) != '\n';) {
      if (c == EOF && std::ferror(from_) && errno == EINTR && !stop_requested()) {
        std::clearerr(from_);  // another signal: go on reading
        continue;
      }
      if (c == EOF) {
        ended_ = true;
        stopped_ = stop_requested();
        return std::nullopt;
      }
      line += static_cast<char>(c);
    }
    return line;
  }

  // A request and its answer, for a server that takes one trace at a time.
  std::optional<std::string> ask(const std::string& request) {
    if (!send(request)) return std::nullopt;
    return receive();
  }

  bool stopped() const { return stopped_; }

  bool ended() const { return ended_; }
  // Why it never started ("could not start PROGRAM: why"); empty when it did.
  const std::string& start_error() const { return start_error_; }
  const std::filesystem::path& stderr_file() const { return stderr_file_; }

 private:
  std::string start_error_;
  std::filesystem::path stderr_file_;
  pid_t pid_ = 0;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  bool ended_ = false;
  bool stopped_ = false;
};

bool command_has_placeholders(const CommandWords& command) {
  return has_placeholder(command, "{trace}") && has_placeholder(command, "{log}");
}

Adapter::Adapter(CommandWords command, check::Options check_options, CommandWords serve_command,
                 Placeholders fixed, int serve_at_once)
    : command_(std::move(command)),
      options_(check_options),
      serve_command_(std::move(serve_command)),
      fixed_(std::move(fixed)),
      at_once_(serve_command_.empty() ? 1 : std::clamp(serve_at_once, 1, kMaxAtOnce)) {
  // A fresh folder of its own (mkdtemp), so that adapters running side by side never share one.
  std::string pattern =
      (std::filesystem::temp_directory_path() / "lockstep-adapter-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("cannot make a temporary folder under " +
                             std::filesystem::temp_directory_path().string());
  dir_ = pattern;
}

Adapter::~Adapter() {
  server_.reset();  // before its folder goes
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

// The trace in its file, or why it could not be written.
static std::optional<std::string> write_trace_file(const Trace& trace,
                                                   const std::filesystem::path& file) {
  std::ofstream written(file);
  written << write_trace(trace);
  written.close();  // a failed close (a full disk) fails the stream too
  if (!written) return "cannot write the trace file " + file.string();
  return std::nullopt;
}

AdapterRun Adapter::outcome(int exit_code, std::string message,
                            const std::filesystem::path& log_file) {
  AdapterRun out;
  out.exit_code = exit_code;
  out.message = std::move(message);
  if (out.exit_code == kStopped) {
    out.kind = AdapterRun::Kind::Stopped;
    return out;
  }
  if (out.exit_code == kCannotExpress) {
    out.message = out.message.substr(0, out.message.find('\n'));  // "cannot express: why"
    out.kind = AdapterRun::Kind::CannotExpress;
    return out;
  }
  if (out.exit_code != 0) return out;
  auto log = read_log_file(log_file.string());
  if (!log) {
    out.message = "no readable log: " + log.error().to_string();
    return out;
  }
  out.kind = AdapterRun::Kind::Logged;
  out.log = std::move(log.value());
  return out;
}

AdapterRun Adapter::run(const Trace& trace, double settle_scale) {
  if (stop_requested()) return AdapterRun{AdapterRun::Kind::Stopped, kStopped, "stopped", {}};
  if (at_once_ > 1 && settle_scale == 1) {  // through the server, beside what is in flight
    const Ticket mine = submit(trace);
    for (;;) {
      for (auto it = ready_.begin(); it != ready_.end(); ++it)
        if (it->first == mine) {
          AdapterRun out = std::move(it->second);
          ready_.erase(it);
          return out;
        }
      read_answer();
    }
  }
  const auto trace_file = dir_ / "candidate.trace.json";
  const auto log_file = dir_ / "candidate.log.json";
  std::error_code ignored;
  std::filesystem::remove(log_file, ignored);
  if (auto why = write_trace_file(trace, trace_file))
    return AdapterRun{AdapterRun::Kind::Failed, kAdapterFailed, *why, {}};
  auto [exit_code, message] = run_command(trace_file, log_file, settle_scale);
  return outcome(exit_code, std::move(message), log_file);
}

Adapter::Ticket Adapter::submit(const Trace& trace, double settle_scale) {
  const Ticket ticket = next_ticket_++;
  if (at_once_ == 1 || stop_requested()) {
    ready_.emplace_back(ticket, run(trace, settle_scale));
    return ticket;
  }
  // The server takes at_once_ traces at a time: a further one (a shrink's candidate beside a
  // campaign's traces) waits for an answer.
  while (unanswered_.size() >= static_cast<std::size_t>(at_once_)) read_answer();
  const auto trace_file = dir_ / (std::to_string(ticket) + ".trace.json");
  const auto log_file = dir_ / (std::to_string(ticket) + ".log.json");
  if (auto why = write_trace_file(trace, trace_file)) {
    ready_.emplace_back(ticket, AdapterRun{AdapterRun::Kind::Failed, kAdapterFailed, *why, {}});
    return ticket;
  }
  if (!server_ || server_->ended())
    server_ = std::make_unique<Server>(filled(serve_command_, fixed_), dir_ / "server.stderr");
  if (!server_->start_error().empty()) {
    const std::string why = server_->start_error();
    server_.reset();  // tried again for the next trace, as a server that ended is
    ready_.emplace_back(ticket, AdapterRun{AdapterRun::Kind::Failed, kAdapterFailed, why, {}});
    return ticket;
  }
  unanswered_.emplace(ticket, std::make_pair(trace_file, log_file));
  nlohmann::json request{
      {"id", ticket}, {"trace", trace_file.string()}, {"log", log_file.string()}};
  if (settle_scale != 1) request["settleScale"] = settle_scale;
  if (!server_->send(request.dump())) server_ended();
  return ticket;
}

std::pair<Adapter::Ticket, AdapterRun> Adapter::answer() {
  while (ready_.empty()) read_answer();
  auto next = std::move(ready_.front());
  ready_.pop_front();
  return next;
}

void Adapter::read_answer() {
  if (unanswered_.empty()) throw std::logic_error("Adapter::answer: no trace is in flight");
  const std::optional<std::string> line = server_ ? server_->receive() : std::nullopt;
  if (!line) return server_ended();
  const auto answer = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
  const bool well_formed = answer.is_object() && answer.contains("exit") &&
                           answer["exit"].is_number_integer() && answer.contains("id") &&
                           answer["id"].is_number_unsigned();
  const auto it = well_formed ? unanswered_.find(answer["id"].get<Ticket>()) : unanswered_.end();
  if (it == unanswered_.end()) {
    // An answer lockstep cannot place fails every trace in flight: which one it meant is unknown.
    fail_unanswered(
        "the adapter's server answered what is not {\"id\", \"exit\", \"message\"} "
        "of a trace in flight: " +
            line->substr(0, 200),
        kAdapterFailed);
    server_.reset();
    return;
  }
  const auto [trace_file, log_file] = it->second;
  ready_.emplace_back(it->first, outcome(answer["exit"].get<int>(), message_of(answer), log_file));
  unanswered_.erase(it);
  std::error_code ignored;
  std::filesystem::remove(trace_file, ignored);
  std::filesystem::remove(log_file, ignored);
}

void Adapter::server_ended() {
  if (server_ && server_->stopped()) {
    fail_unanswered("stopped", kStopped);
  } else {
    const std::string said = server_ ? stderr_text(server_->stderr_file()) : "";
    fail_unanswered("the adapter's server ended" + (said.empty() ? "" : ": " + said),
                    kAdapterFailed);
  }
  server_.reset();  // ends its group; the next trace starts it again
  std::error_code ignored;
  std::filesystem::remove(dir_ / "server.stderr", ignored);
}

void Adapter::fail_unanswered(const std::string& why, int exit_code) {
  // In ticket order (unanswered_ is ordered), so that what fails together is listed in order.
  for (const auto& [ticket, files] : unanswered_) {
    ready_.emplace_back(ticket, outcome(exit_code, why, files.second));
    std::error_code ignored;
    std::filesystem::remove(files.first, ignored);
    std::filesystem::remove(files.second, ignored);
  }
  unanswered_.clear();
}

std::pair<int, std::string> Adapter::run_command(const std::filesystem::path& trace_file,
                                                 const std::filesystem::path& log_file,
                                                 double settle_scale) {
  // A longer settling is the one-shot command's: a server was started with its own.
  if (served() && settle_scale == 1) {
    if (!server_ || server_->ended())
      server_ = std::make_unique<Server>(filled(serve_command_, fixed_), dir_ / "server.stderr");
    if (!server_->start_error().empty()) {
      const std::string why = server_->start_error();
      server_.reset();  // tried again for the next trace, as a server that ended is
      return {kAdapterFailed, why};
    }
    const nlohmann::json request{{"trace", trace_file.string()}, {"log", log_file.string()}};
    if (auto line = server_->ask(request.dump())) {
      const auto answer = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
      if (answer.is_object() && answer.contains("exit") && answer["exit"].is_number_integer())
        return {answer["exit"].get<int>(), message_of(answer)};
      return {kAdapterFailed,
              "the adapter's server answered what is not {\"exit\", \"message\"}: " +
                  line->substr(0, 200)};
    }
    if (server_->stopped()) {
      server_.reset();  // ends its group
      return {kStopped, "stopped"};
    }
    // It ended: what it said last is the failure's message; the next trace starts it again.
    std::string said = stderr_text(server_->stderr_file());
    server_.reset();
    std::error_code ignored;
    std::filesystem::remove(dir_ / "server.stderr", ignored);
    return {kAdapterFailed, "the adapter's server ended" + (said.empty() ? "" : ": " + said)};
  }
  const auto err_file = dir_ / "candidate.stderr";
  Placeholders values = fixed_;
  values["{trace}"] = trace_file.string();
  values["{log}"] = log_file.string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // No terminal input: the adapter's group is not the terminal's foreground group.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> environment;
  if (settle_scale != 1) {
    std::ostringstream scale;
    scale << settle_scale;
    environment.push_back("LOCKSTEP_SETTLE_SCALE=" + scale.str());
  }
  const Result<pid_t> pid = spawn(filled(command_, values), actions, environment);
  posix_spawn_file_actions_destroy(&actions);
  if (!pid) return {kAdapterFailed, pid.error().message};
  const int exit_code = wait_for(pid.value());
  return {exit_code, stderr_text(err_file)};
}

std::optional<Adapter::Judged> Adapter::judge(const Trace& trace) {
  AdapterRun ran = run(trace);
  if (ran.kind != AdapterRun::Kind::Logged) return std::nullopt;
  auto report = check::check(trace, ran.log, options_);
  if (!report) return std::nullopt;
  return Judged{std::move(ran.log), std::move(report.value())};
}

bool KeepsItsFailure::operator()(const Trace& candidate) {
  auto judged = adapter_.judge(candidate);
  if (!judged || judged->report.verdict != check::Verdict::NotAllowed) return false;
  const check::Divergence* d = judged->report.divergence ? &*judged->report.divergence : nullptr;
  if (!d || d->signature != signature_) {
    ++other_failures_;
    return false;
  }
  last_ = std::move(judged);
  return true;
}

}  // namespace lockstep::cli
