// The compact members of a trace's actions (traces/include/lockstep/compact_string.h,
// trace_pointer.h, box.h): each must behave as the std::string, JSON pointer text or
// std::optional it replaced, whatever its length or shape.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "lockstep/box.h"
#include "lockstep/compact_string.h"
#include "lockstep/trace.h"
#include "lockstep/trace_pointer.h"

namespace lockstep {
namespace {

TEST(CompactString, KeepsEveryLengthAroundTheInlineRoom) {
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += static_cast<char>('a' + (i * 7) % 26);
    const CompactString s(text);
    EXPECT_EQ(s.view(), text) << n;
    EXPECT_EQ(s.size(), n);
    EXPECT_EQ(s.empty(), n == 0);
    const CompactString copy = s;  // a copy owns its own bytes
    CompactString moved = CompactString(text);
    EXPECT_EQ(copy.view(), text);
    EXPECT_EQ(moved.view(), text);
    EXPECT_EQ(std::string(moved), text);
  }
}

TEST(CompactString, BytesOfAnyValueIncludingNulAreKept) {
  const std::string bytes("\0\xff\x01 \x80z", 6);
  EXPECT_EQ(CompactString(bytes).view(), bytes);
  const std::string long_bytes = bytes + bytes + bytes;
  EXPECT_EQ(CompactString(long_bytes).view(), long_bytes);
}

TEST(CompactString, AssigningFromItsOwnTextKeepsIt) {
  for (const char* text : {"short", "a string past the inline room"}) {
    CompactString s(text);
    s = s.view();
    EXPECT_EQ(s.view(), text);
    s = s.view().substr(1);
    EXPECT_EQ(s.view(), std::string(text).substr(1));
    CompactString& alias = s;
    s = alias;
    EXPECT_EQ(s.view(), std::string(text).substr(1));
  }
}

TEST(CompactString, AssignmentsBetweenLengthsReleaseAndKeepTheRightText) {
  CompactString s;
  const std::vector<std::string> texts = {
      "", "x", "seven77", "eight888", "", "a much longer text", "ab", "another long text here",
      "z"};
  for (const std::string& t : texts) {
    s = t;
    EXPECT_EQ(s.view(), t);
    EXPECT_EQ(s.empty(), t.empty());
  }
}

TEST(CompactString, ComparesAndHashesAsItsText) {
  const CompactString a("lock-name-long"), b("lock-name-long"), c("r1");
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == std::string("lock-name-long"));
  EXPECT_TRUE(c == "r1");
  EXPECT_FALSE(c == "r2");
  EXPECT_TRUE(a < c);  // "l" before "r"
  EXPECT_EQ(std::hash<CompactString>{}(a), std::hash<std::string_view>{}("lock-name-long"));
  std::unordered_set<CompactString> set{a, c};
  EXPECT_EQ(set.count(b), 1u);
  EXPECT_EQ("id " + c + "!", "id r1!");
  EXPECT_EQ(a + std::string("/x"), "lock-name-long/x");
}

// The pointer's text is what it was made from, whether kept encoded or as text.
TEST(TracePointer, EveryPointerReadsBackAsItsText) {
  const std::vector<std::string> pointers = {
      "",
      "/steps/0",
      "/steps/199999",
      "/steps/12/callback",
      "/steps/12/callback/body/0",
      "/steps/3/body/2/callback/body/15/body/1",
      "/agents/3",
      "/steps/268435455",  // the largest index kept encoded
      "/steps/268435456",  // one more: kept as text
      "/steps/99999999999999999999",
      "/steps/01",  // not an index as pointers write it
      "/steps/-1",
      "/steps/",
      "/steps",
      "/steps/1/callbacks",
      "/steps/1/callback/",
      "/steps/1/body",
      "/steps/1/body/x",
      "/steps/1/options/signal",
      "/schedule/2",
      "/a~1b/c~0d",
      "relative",
      std::string("\x80\x01", 2),  // begins as the encoded form does
      std::string("\x82/steps/1", 9),
  };
  for (const std::string& p : pointers) {
    const TracePointer pointer(p);
    EXPECT_EQ(pointer.str(), p);
    EXPECT_EQ(pointer.empty(), p.empty());
    EXPECT_TRUE(pointer == p);
    EXPECT_EQ(pointer + "/op", p + "/op");
    EXPECT_EQ(std::string(TracePointer(pointer)), p);  // copied
  }
}

TEST(TracePointer, RandomPathsOfTheReadersShapesReadBack) {
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string text = "/steps/" + std::to_string(random() % 3000000);
    TracePointer built = TracePointer::step(std::stoul(text.substr(7)));
    const int segments = static_cast<int>(random() % 6);
    for (int s = 0; s < segments; ++s) {
      if (random() % 2) {
        text += "/callback";
        built = built.callback();
      } else {
        const std::size_t i = random() % (random() % 2 ? 5 : 400000000);
        text += "/body/" + std::to_string(i);
        built = built.body(i);
      }
      EXPECT_EQ(TracePointer(text).str(), text);
      EXPECT_EQ(built.str(), text);
    }
  }
}

TEST(TracePointer, TheReadersShapesFitInOneWord) {
  static_assert(sizeof(TracePointer) == 8);
  EXPECT_EQ(TracePointer::step(199999).callback().body(0).str(), "/steps/199999/callback/body/0");
  // Built from a pointer kept as text, the children are text too.
  EXPECT_EQ(TracePointer("/steps/01").callback().body(2).str(), "/steps/01/callback/body/2");
}

TEST(Box, AbsentReadsTheDefaultAndPresentHoldsItsValue) {
  Box<Value> value;
  EXPECT_FALSE(value);
  EXPECT_TRUE(value->is_undefined());
  value = Value::string("x");
  EXPECT_TRUE(value);
  EXPECT_EQ(*value, Value::string("x"));
  value = std::nullopt;
  EXPECT_FALSE(value.has_value());
}

TEST(Box, CopiesAreDeepAndWritingThroughMakesItPresent) {
  Box<PostTaskOptionsSpec> options;
  const Box<PostTaskOptionsSpec>& read = options;
  EXPECT_FALSE(read->delay.has_value());
  EXPECT_FALSE(options.has_value());  // reading did not make it present
  options->delay = 5;
  EXPECT_TRUE(options.has_value());
  Box<PostTaskOptionsSpec> copy = options;
  copy->delay = 9;
  EXPECT_EQ(*options->delay, 5u);
  EXPECT_EQ(*copy->delay, 9u);
}

TEST(Action, StaysSmall) {
  // What a trace's reading memory rests on (docs/performance.md, "Reading traces and logs").
  EXPECT_LE(sizeof(Action), 168u);
  EXPECT_LE(sizeof(Callback), 48u);
}

}  // namespace
}  // namespace lockstep
