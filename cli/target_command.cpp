#include "target_command.h"

#include "command_words.h"

namespace lockstep::cli {

namespace fs = std::filesystem;

fs::path own_adapters() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path())
    if (fs::exists(dir / "adapters/targets.json")) return dir / "adapters";
  return {};
}

fs::path find_targets(const std::string& given) {
  if (!given.empty()) return given;
  if (fs::exists("adapters/targets.json")) return "adapters/targets.json";
  const fs::path own = own_adapters();
  return own.empty() ? "adapters/targets.json" : own / "targets.json";
}

std::string ResolvedTarget::shown(const std::string& words) const {
  return fill_placeholders(words, fixed);
}

std::variant<ResolvedTarget, std::string> resolve_target(const std::string& name,
                                                         const std::string& targets) {
  ResolvedTarget t;
  t.targets_file = find_targets(targets);
  auto registry = read_targets_file(t.targets_file.string());
  if (!registry)
    return "--targets " + t.targets_file.string() + ": " + registry.error().to_string();
  const TargetEntry* found = registry->find(name);
  if (!found) {
    std::string known;
    for (const TargetEntry& e : registry->targets) known += " " + e.name;
    return "--target: no target \"" + name + "\" in " + t.targets_file.string() +
           " (known:" + known + ")";
  }
  t.entry = *found;
  // "--targets FILE: /targets/node/command: why"
  const auto refuse = [&](const std::string& member, const std::string& why) {
    return "--targets " + t.targets_file.string() + ": " +
           Error{t.entry.pointer + (member.empty() ? "" : "/" + member), why}.to_string();
  };
  // Split once; {adapters} is filled within its word as {trace} and {log} are, so a folder with
  // a space or a `$(...)` in its name stays one argument.
  auto command = command_words(t.entry.command);
  if (!command) return refuse("command", command.error().message);
  if (!command_has_placeholders(command.value()))
    return refuse("command", "needs {trace} and {log}");
  t.command = std::move(command.value());
  // {lockstep} lets a targets file of one's own, anywhere, run lockstep's runners
  // (adapters/templates/).
  const fs::path own = own_adapters();
  // {bin}: this binary's folder, where the build puts the programs beside it
  // (lockstep-lockservice).
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  t.fixed = {{"{adapters}", fs::absolute(t.targets_file).parent_path().string()},
             {"{lockstep}", own.string()},
             {"{bin}", ec ? std::string() : exe.parent_path().string()}};
  const auto unfillable = [&](const CommandWords& words) {
    return own.empty() && has_placeholder(words, "{lockstep}");
  };
  const std::string no_own =
      "{lockstep} stands for lockstep's own adapters folder, and none was found above this binary";
  if (unfillable(t.command)) return refuse("command", no_own);
  // A command that replays many traces in one process (a browser kept open): adapters/README.md.
  if (t.entry.serve) {
    if (t.entry.serve->empty()) return refuse("serve", "expected the serving command");
    auto words = command_words(*t.entry.serve);
    if (!words) return refuse("serve", words.error().message);
    if (has_placeholder(words.value(), "{trace}") || has_placeholder(words.value(), "{log}"))
      return refuse("serve", "takes its traces on stdin, not {trace} and {log}");
    if (unfillable(words.value())) return refuse("serve", no_own);
    t.serve = std::move(words.value());
  }
  return t;
}

}  // namespace lockstep::cli
