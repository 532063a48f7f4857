// An adapter command's words (cli/command_words.h): split once, as a shell would quote but with
// nothing expanded, and placeholders filled within their words.
#include "command_words.h"

#include <gtest/gtest.h>

namespace lockstep::cli {
namespace {

using Words = std::vector<std::string>;

Words split(const std::string& command) {
  auto words = command_words(command);
  EXPECT_TRUE(words.ok()) << command << ": " << words.error().message;
  return words.ok() ? words.value() : Words{};
}

std::string refusal(const std::string& command) {
  auto words = command_words(command);
  EXPECT_FALSE(words.ok()) << command;
  return words.ok() ? "" : words.error().message;
}

TEST(CommandWords, BlanksSeparateWords) {
  EXPECT_EQ(split("node run.mjs {trace} {log}"), (Words{"node", "run.mjs", "{trace}", "{log}"}));
  EXPECT_EQ(split("  a \t b\n c  "), (Words{"a", "b", "c"}));
}

TEST(CommandWords, QuotesGroupAndAreRemoved) {
  EXPECT_EQ(split("sh -c 'echo one >&2; exit 1' {trace}"),
            (Words{"sh", "-c", "echo one >&2; exit 1", "{trace}"}));
  EXPECT_EQ(split(R"("a b"'c d'e)"), (Words{"a bc de"}));
  EXPECT_EQ(split(R"('' "" x)"), (Words{"", "", "x"}));  // empty words are words
  EXPECT_EQ(split(R"('it"s' "it's")"), (Words{"it\"s", "it's"}));
}

TEST(CommandWords, BackslashEscapes) {
  EXPECT_EQ(split(R"(a\ b \'c \\)"), (Words{"a b", "'c", "\\"}));
  // In double quotes only " and \ are escaped, as in a shell (and Python's shlex.split).
  EXPECT_EQ(split(R"("a\"b\\c\d")"), (Words{R"(a"b\c\d)"}));
  // In single quotes nothing is.
  EXPECT_EQ(split(R"('a\b')"), (Words{R"(a\b)"}));
}

TEST(CommandWords, NothingIsExpanded) {
  EXPECT_EQ(
      split("echo $(touch P) `id` $HOME *.json ~ a;b a|b >x &"),
      (Words{"echo", "$(touch", "P)", "`id`", "$HOME", "*.json", "~", "a;b", "a|b", ">x", "&"}));
}

TEST(CommandWords, RefusesWhatCannotBeSplit) {
  EXPECT_EQ(refusal("node 'run.mjs {trace} {log}"), "the ' quote at character 6 is never closed");
  EXPECT_EQ(refusal(R"(a "b\")"), "the \" quote at character 3 is never closed");
  EXPECT_EQ(refusal("run \\"), "the \\ at character 5 escapes nothing (it ends the command)");
  EXPECT_EQ(refusal(""), "the command is empty (no program to run)");
  EXPECT_EQ(refusal(" \t\n"), "the command is empty (no program to run)");
}

TEST(FillPlaceholders, EachStaysWithinItsWord) {
  const std::map<std::string, std::string> values{
      {"{trace}", "/tmp/a b/$(touch P).json"}, {"{log}", "L"}, {"{adapters}", "/x/{log}"}};
  EXPECT_EQ(fill_placeholders("{trace}", values), "/tmp/a b/$(touch P).json");
  EXPECT_EQ(fill_placeholders("--log={log},{log}", values), "--log=L,L");
  // One pass: what a value holds is not filled again.
  EXPECT_EQ(fill_placeholders("{adapters}/run", values), "/x/{log}/run");
  EXPECT_EQ(fill_placeholders("{other} {", values), "{other} {");
}

TEST(FillPlaceholders, HasPlaceholder) {
  EXPECT_TRUE(has_placeholder({"a", "x{trace}y"}, "{trace}"));
  EXPECT_FALSE(has_placeholder({"a", "{trace"}, "{trace}"));
}

}  // namespace
}  // namespace lockstep::cli
