#include "misspelt.h"

#include <algorithm>
#include <string_view>

namespace lockstep::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// neighbours, each one edit.
std::size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

std::string with_hint(const std::string& what, const std::string& word,
                      const std::vector<std::string>& known) {
  const auto near = nearest(word, known);
  return "unknown " + what + " " + quoted(word) +
         (near ? " (did you mean " + quoted(*near) + "?)" : "");
}

// "fuzz merge: " for a command's words, nothing for the program's own.
std::string prefix_of(const CLI::App* command) {
  std::string path;
  for (; command && command->get_parent(); command = command->get_parent())
    path = command->get_name() + (path.empty() ? "" : " " + path);
  return path.empty() ? "" : path + ": ";
}

std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* option : app.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

}  // namespace

std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_edits = allowed + 1;
  bool tied = false;
  for (const std::string& c : candidates) {
    const std::size_t e = edits(word, c);
    if (e < best_edits) {
      best = c;
      best_edits = e;
      tied = false;
    } else if (e == best_edits && c != *best) {
      tied = true;
    }
  }
  if (tied) return std::nullopt;
  return best;
}

std::optional<std::string> misspelling(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  bool chose_command = false;  // a word after the program named one of its commands
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;  // what follows is positional
    if (word.rfind("--", 0) == 0) {
      const std::string name = word.substr(0, word.find('='));
      const CLI::Option* option = command->get_option_no_throw(name);
      if (!option) {
        return prefix_of(command) + with_hint("option", name, long_options(*command));
      }
      if (word.find('=') == std::string::npos && option->get_items_expected_min() > 0) ++i;
      continue;
    }
    if (word.size() > 1 && word[0] == '-') continue;  // short options: CLI11's message suffices
    const auto subcommands = command->get_subcommands([](CLI::App*) { return true; });
    const auto named = std::find_if(subcommands.begin(), subcommands.end(),
                                    [&](CLI::App* s) { return s->check_name(word); });
    if (named != subcommands.end()) {
      command = *named;
      chose_command = true;
      continue;
    }
    std::vector<std::string> names;
    for (CLI::App* s : subcommands) names.push_back(s->get_name());
    // The program's first word must be a command.
    if (!chose_command) return with_hint("command", word, names);
    // A command that takes no positional arguments names its own commands here.
    const bool positionals =
        !command->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
    if (!positionals && !names.empty())
      return prefix_of(command) + with_hint("command", word, names);
  }
  return std::nullopt;
}

}  // namespace lockstep::cli
