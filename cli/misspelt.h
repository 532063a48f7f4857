// What a user meant by a command or option lockstep does not have: the nearest one it has, for
// the message that refuses the command line ("did you mean ...?").
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::cli {

// The candidate nearest to `word` by edit distance (a transposition counts as one edit), when it
// is near enough to be a slip (at most a third of the word's letters, at least one) and no other
// candidate is as near.
std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates);

// The first word of `argv` that names no command or no option of the command it follows, said
// as "unknown command \"chek\" (did you mean \"check\"?)" or "check: unknown option
// \"--partail\" (did you mean \"--partial\"?)"; none when every word is known.
std::optional<std::string> misspelling(CLI::App& app, int argc, char** argv);

}  // namespace lockstep::cli
