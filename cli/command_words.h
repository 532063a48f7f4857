// An adapter command (`shrink --cmd`, targets.json's "command" and "serve") as the words of the
// program it starts: split once, here, and never by a shell, so that a file name put in for a
// placeholder stays one argument whatever it holds (a space, a quote, `$(...)`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lockstep/error.h"

namespace lockstep::cli {

// The words of `command`: separated by blanks (spaces, tabs, newlines); '...' groups its
// characters as they are; "..." groups them too, a backslash in it escaping only " and \; outside
// quotes a backslash escapes any next character. Quotes and escaping backslashes are removed, and
// '' or "" alone is an empty word. Nothing else is special: no variables, `$(...)`, backquotes,
// globs, `~`, `;`, `|`, `&`, `<` or `>` (the rules of Python's shlex.split, which the tests'
// scripts use on the same commands). Refused, with where: a quote never closed, a backslash that
// ends the command, and a command of no words.
Result<std::vector<std::string>> command_words(const std::string& command);

// `word` with each placeholder (a key of `values`, such as "{trace}") replaced by its value, in
// one pass from the left: a value put in is never searched for placeholders itself.
std::string fill_placeholders(const std::string& word,
                              const std::map<std::string, std::string>& values);

// Whether some word holds `placeholder`.
bool has_placeholder(const std::vector<std::string>& words, const std::string& placeholder);

}  // namespace lockstep::cli
