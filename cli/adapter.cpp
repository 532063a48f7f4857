#include "adapter.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>  // mkdtemp
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lockstep/trace_io.h"

extern char** environ;

namespace lockstep::cli {
namespace {

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

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

constexpr int kCannotExpress = 4;  // adapters/README.md
constexpr int kAdapterFailed = 1;

}  // namespace

// The serve command's process: `sh -c COMMAND` with its stdin and stdout on pipes and its stderr
// appended to a file. A request is written and its answer read in turn, so neither side can
// fill a pipe the other is not reading.
class Adapter::Server {
 public:
  Server(const std::string& command, const std::filesystem::path& stderr_file)
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
    const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
    const int spawned =
        posix_spawn(&pid_, "/bin/sh", &actions, nullptr, const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    to_ = fdopen(to_child[1], "w");
    from_ = fdopen(from_child[0], "r");
    if (spawned != 0 || !to_ || !from_) {
      ended_ = true;
      pid_ = spawned != 0 ? 0 : pid_;
    }
  }

  ~Server() {
    if (to_) fclose(to_);  // end of input: the server finishes and exits
    if (from_) fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  // The answer's line, or nothing once the server has ended (it then answers nothing more).
  std::optional<std::string> ask(const std::string& request) {
    if (ended_) return std::nullopt;
    // A server that has ended closes its stdin: writing to it must fail, not kill lockstep.
    signal(SIGPIPE, SIG_IGN);
    if (std::fputs(request.c_str(), to_) < 0 || std::fputc('\n', to_) < 0 ||
        std::fflush(to_) != 0) {
      ended_ = true;
      return std::nullopt;
    }
    std::string line;
    for (int c; (c = std::fgetc(from_)) != '\n';) {
      if (c == EOF) {
        ended_ = true;
        return std::nullopt;
      }
      line += static_cast<char>(c);
    }
    return line;
  }

  bool ended() const { return ended_; }
  const std::filesystem::path& stderr_file() const { return stderr_file_; }

 private:
  std::filesystem::path stderr_file_;
  pid_t pid_ = 0;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  bool ended_ = false;
};

std::string substitute(std::string command, const std::string& key, const std::string& value) {
  for (std::size_t at = command.find(key); at != std::string::npos;
       at = command.find(key, at + value.size()))
    command.replace(at, key.size(), value);
  return command;
}

bool command_has_placeholders(const std::string& command) {
  return command.find("{trace}") != std::string::npos && command.find("{log}") != std::string::npos;
}

Adapter::Adapter(std::string command, check::Options check_options, std::string serve_command)
    : command_(std::move(command)),
      options_(check_options),
      serve_command_(std::move(serve_command)) {
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

AdapterRun Adapter::run(const Trace& trace) {
  const auto trace_file = dir_ / "candidate.trace.json";
  const auto log_file = dir_ / "candidate.log.json";
  std::error_code ignored;
  std::filesystem::remove(log_file, ignored);
  std::ofstream(trace_file) << write_trace(trace);
  AdapterRun out;
  std::tie(out.exit_code, out.message) = run_command(trace_file, log_file);
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

std::pair<int, std::string> Adapter::run_command(const std::filesystem::path& trace_file,
                                                 const std::filesystem::path& log_file) {
  if (served()) {
    if (!server_ || server_->ended())
      server_ = std::make_unique<Server>(serve_command_, dir_ / "server.stderr");
    const nlohmann::json request{{"trace", trace_file.string()}, {"log", log_file.string()}};
    if (auto line = server_->ask(request.dump())) {
      const auto answer = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
      if (answer.is_object() && answer.contains("exit") && answer["exit"].is_number_integer())
        return {answer["exit"].get<int>(), answer.value("message", std::string())};
      return {kAdapterFailed,
              "the adapter's server answered what is not {\"exit\", \"message\"}: " +
                  line->substr(0, 200)};
    }
    // It ended: what it said last is the failure's message; the next trace starts it again.
    std::string said = stderr_text(server_->stderr_file());
    server_.reset();
    std::error_code ignored;
    std::filesystem::remove(dir_ / "server.stderr", ignored);
    return {kAdapterFailed, "the adapter's server ended" + (said.empty() ? "" : ": " + said)};
  }
  const auto err_file = dir_ / "candidate.stderr";
  std::string command = substitute(command_, "{trace}", shell_quote(trace_file.string()));
  command = substitute(command, "{log}", shell_quote(log_file.string()));
  const int status =
      std::system((command + " >/dev/null 2>" + shell_quote(err_file.string())).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), stderr_text(err_file)};
}

std::optional<check::Report> Adapter::judge(const Trace& trace) {
  AdapterRun ran = run(trace);
  if (ran.kind != AdapterRun::Kind::Logged) return std::nullopt;
  auto report = check::check(trace, ran.log, options_);
  if (!report) return std::nullopt;
  return report.value();
}

bool Adapter::fails(const Trace& trace) {
  auto report = judge(trace);
  return report && report->verdict == check::Verdict::NotAllowed;
}

}  // namespace lockstep::cli
