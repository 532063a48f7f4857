#include "command_words.h"

namespace lockstep::cli {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// "character 7": 1-based, as an editor counts the command's characters (bytes here).
std::string at_character(std::size_t index) {
  return "character " + std::to_string(index + 1);
}

}  // namespace

Result<std::vector<std::string>> command_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // '' makes a word of nothing, so the word's text alone cannot tell
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 == command.size())
        return Error{"", "the \\ at " + at_character(i) + " escapes nothing (it ends the command)"};
      word += command[++i];
    } else if (c == '\'' || c == '"') {
      const std::size_t open = i;
      for (++i; i < command.size() && command[i] != c; ++i) {
        if (c == '"' && command[i] == '\\' && i + 1 < command.size() &&
            (command[i + 1] == '"' || command[i + 1] == '\\'))
          ++i;
        word += command[i];
      }
      if (i == command.size())
        return Error{
            "", std::string("the ") + c + " quote at " + at_character(open) + " is never closed"};
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return Error{"", "the command is empty (no program to run)"};
  return words;
}

std::string fill_placeholders(const std::string& word,
                              const std::map<std::string, std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < word.size();) {
    bool replaced = false;
    if (word[i] == '{')
      for (const auto& [key, value] : values)
        if (word.compare(i, key.size(), key) == 0) {
          out += value;
          i += key.size();
          replaced = true;
          break;
        }
    if (!replaced) out += word[i++];
  }
  return out;
}

bool has_placeholder(const std::vector<std::string>& words, const std::string& placeholder) {
  for (const std::string& word : words)
    if (word.find(placeholder) != std::string::npos) return true;
  return false;
}

}  // namespace lockstep::cli
