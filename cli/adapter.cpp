#include "adapter.h"

#include <stdlib.h>  // mkdtemp
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "lockstep/trace_io.h"

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

}  // namespace

std::string substitute(std::string command, const std::string& key, const std::string& value) {
  for (std::size_t at = command.find(key); at != std::string::npos;
       at = command.find(key, at + value.size()))
    command.replace(at, key.size(), value);
  return command;
}

bool command_has_placeholders(const std::string& command) {
  return command.find("{trace}") != std::string::npos && command.find("{log}") != std::string::npos;
}

Adapter::Adapter(std::string command, check::Options check_options)
    : command_(std::move(command)), options_(check_options) {
  // A fresh folder of its own (mkdtemp), so that adapters running side by side never share one.
  std::string pattern =
      (std::filesystem::temp_directory_path() / "lockstep-adapter-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("cannot make a temporary folder under " +
                             std::filesystem::temp_directory_path().string());
  dir_ = pattern;
}

Adapter::~Adapter() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

AdapterRun Adapter::run(const Trace& trace) {
  const auto trace_file = dir_ / "candidate.trace.json";
  const auto log_file = dir_ / "candidate.log.json";
  const auto err_file = dir_ / "candidate.stderr";
  std::error_code ignored;
  std::filesystem::remove(log_file, ignored);
  std::ofstream(trace_file) << write_trace(trace);
  std::string command = substitute(command_, "{trace}", shell_quote(trace_file.string()));
  command = substitute(command, "{log}", shell_quote(log_file.string()));
  const int status =
      std::system((command + " >/dev/null 2>" + shell_quote(err_file.string())).c_str());
  AdapterRun out;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.message = stderr_text(err_file);
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
