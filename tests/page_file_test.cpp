// The file export --wpt writes a trace's page to (cli/page_file.h): one plain file name whatever
// the trace's name, so that no page lands outside the output folder.
#include "page_file.h"

#include <gtest/gtest.h>

namespace lockstep::cli {
namespace {

TEST(PageFileName, KeepsPlainNames) {
  EXPECT_EQ(page_file_name("basic-exclusive"), "basic-exclusive.html");
  EXPECT_EQ(page_file_name("A_b.9-c"), "A_b.9-c.html");
}

TEST(PageFileName, PathsBecomeOneFileName) {
  EXPECT_EQ(page_file_name("../x"), "-.-x.html");
  EXPECT_EQ(page_file_name("/abs/x"), "-abs-x.html");
  EXPECT_EQ(page_file_name("a/b"), "a-b.html");
  EXPECT_EQ(page_file_name(".."), "-..html");
  EXPECT_EQ(page_file_name("."), "-.html");
  EXPECT_EQ(page_file_name(".hidden"), "-hidden.html");
  EXPECT_EQ(page_file_name("a\\b"), "a-b.html");
}

TEST(PageFileName, OtherCharactersBecomeADashEach) {
  EXPECT_EQ(page_file_name("two words"), "two-words.html");
  EXPECT_EQ(page_file_name("caf\xc3\xa9 \xe2\x9c\x93"), "caf---.html");  // "café ✓"
  EXPECT_EQ(page_file_name(std::string("a\0b\n", 4)), "a-b-.html");
}

TEST(PageFileName, NeverEmptyNorLong) {
  EXPECT_EQ(page_file_name(""), "trace.html");
  EXPECT_EQ(page_file_name(std::string(300, 'x')), std::string(kMaxPageNameLength, 'x') + ".html");
}

}  // namespace
}  // namespace lockstep::cli
