// The impl runtime's log records (impl/engine/recorded_log.h): what it hands out must be the shared
// log format with the members in the order traces/README.md lists them, whether it is read once at
// the end of a replay or after every unit, as check's search reads it.
#include "../impl/engine/recorded_log.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../impl/engine/huge_pages.h"

namespace lockstep::impl {
namespace {

Event event(int step, std::string agent, std::string name,
            std::vector<std::pair<std::string, Value>> members) {
  Event e;
  e.step = step;
  e.agent = std::move(agent);
  e.event = std::move(name);
  e.members = std::move(members);
  return e;
}

Value lock_info(const std::string& name) {
  return Value::object({{"name", Value::string(name)}, {"mode", Value::string("exclusive")}});
}

const std::string kA = "A";
const std::string kW = "W";

TEST(RecordedLog, EachShapeBecomesItsEventWithTheMembersInTheFormatsOrder) {
  RecordedLog recorded;
  recorded.record_callback(0, &kA, "callback", "request", ShortId("r1"), true, lock_info("x"));
  recorded.record_callback(1, &kW, "callback", "request", ShortId("r2"), true, Value::null());
  recorded.record_callback(2, &kA, "task", "task", ShortId("t1"), false, {});
  recorded.record_settled(3, &kA, ShortId("r1"), true, Value::number(5));
  recorded.record_settled(4, &kW, ShortId("r2"), false, Value::dom_exception("AbortError"));
  recorded.record_settled(5, &kA, ShortId("p"), true, Value());
  recorded.record(6, &kW, "mark", {{"label", Value::string("done")}});

  const std::vector<Event> expected = {
      event(0, "A", "callback", {{"request", Value::string("r1")}, {"lock", lock_info("x")}}),
      event(1, "W", "callback", {{"request", Value::string("r2")}, {"lock", Value::null()}}),
      event(2, "A", "task", {{"task", Value::string("t1")}}),
      event(3, "A", "settled",
            {{"target", Value::string("r1")},
             {"state", Value::string("fulfilled")},
             {"value", Value::number(5)}}),
      event(4, "W", "settled",
            {{"target", Value::string("r2")},
             {"state", Value::string("rejected")},
             {"reason", Value::dom_exception("AbortError")}}),
      event(5, "A", "settled",
            {{"target", Value::string("p")}, {"state", Value::string("fulfilled")}}),
      event(6, "W", "mark", {{"label", Value::string("done")}}),
  };
  const Log log = recorded.take();
  ASSERT_EQ(log.events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(log.events[i], expected[i]) << "event " << i;
    // operator== compares members as a set: the order is the format's, so check it too.
    ASSERT_EQ(log.events[i].members.size(), expected[i].members.size()) << "event " << i;
    for (std::size_t m = 0; m < expected[i].members.size(); ++m)
      EXPECT_EQ(log.events[i].members[m].first, expected[i].members[m].first)
          << "event " << i << " member " << m;
  }
}

TEST(RecordedLog, ReadingAsItGrowsKeepsWhatWasReadAndAddsTheRestInOrder) {
  RecordedLog recorded;
  recorded.record_callback(0, &kA, "task", "task", ShortId("t1"), false, {});
  ASSERT_EQ(recorded.log().events.size(), 1u);
  EXPECT_EQ(recorded.log().events[0].member("task")->as_string(), "t1");

  const std::vector<std::string> ids = {"i0", "i1", "i2"};
  for (int i = 0; i < 100; ++i) {  // many small reads, as check's search makes them
    recorded.record_callback(1 + i, &kW, "idle", "id", ShortId(ids[i % 3]), false, {});
    if (i % 7 == 0) {
      EXPECT_EQ(recorded.log().events.size(), static_cast<std::size_t>(2 + i));
    }
  }
  const Log& read = recorded.log();
  ASSERT_EQ(read.events.size(), 101u);
  EXPECT_EQ(read.events[0].event, "task");
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(read.events[1 + i].step, 1 + i);
    EXPECT_EQ(read.events[1 + i].member("id")->as_string(), ids[i % 3]);
  }

  recorded.record_settled(200, &kA, ShortId("t1"), true, Value::string("ok"));
  const Log taken = recorded.take();
  ASSERT_EQ(taken.events.size(), 102u);
  EXPECT_EQ(taken.events.back().event, "settled");
  EXPECT_TRUE(recorded.log().events.empty());  // taken: nothing left behind
}

// A short id is copied when it is recorded, so the log does not read the trace's text again (which
// would be out of the cache by then); a long one is kept as a view of the trace's text.
TEST(RecordedLog, AShortIdIsCopiedWhenRecordedAndALongOneIsAView) {
  std::string short_id = "r12345678901234567890ab";  // 23 characters: the most a ShortId holds
  const std::string long_id = "a-request-id-of-twenty-eight";
  ASSERT_EQ(short_id.size(), 23u);
  RecordedLog recorded;
  recorded.record_callback(0, &kA, "task", "task", ShortId(short_id), false, {});
  recorded.record_settled(1, &kA, ShortId(long_id), true, Value());
  short_id.assign(short_id.size(), 'x');  // the recorded copy must not see this

  const Log log = recorded.take();
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].member("task")->as_string(), "r12345678901234567890ab");
  EXPECT_EQ(log.events[1].member("target")->as_string(), long_id);
}

TEST(ShortId, HoldsUpToTwentyThreeCharactersAndViewsLongerOnes) {
  const std::string empty, one = "r", most(23, 'm'), longer(24, 'l');
  EXPECT_EQ(ShortId(empty).view(), "");
  EXPECT_EQ(ShortId().view(), "");
  EXPECT_EQ(ShortId(one).view(), "r");
  const ShortId held(most);
  EXPECT_EQ(held.view(), most);
  EXPECT_NE(held.view().data(), most.data());  // a copy
  const ShortId viewed(longer);
  EXPECT_EQ(viewed.view(), longer);
  EXPECT_EQ(viewed.view().data(), longer.data());  // the trace's own text
  const ShortId copied = viewed;
  EXPECT_EQ(copied.view().data(), longer.data());
}

}  // namespace
}  // namespace lockstep::impl

#if defined(__linux__)
namespace lockstep::impl {
namespace {

// The advice marks the whole 2 MiB pages inside a large buffer for transparent huge pages: the
// kernel lists the mapping that holds them with the "hg" flag (proc(5), VmFlags).
bool mapping_has_huge_page_advice(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &from, &to) == 2 && line.find('-') < 17) {
      inside = from <= address && address < to;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

TEST(HugePages, TheWholeHugePagesOfALargeBufferAreAdvised) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::vector<char> buffer(5 * kHuge);  // mmapped by the allocator, not yet advised
  const auto start = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t first_whole = (start + kHuge - 1) & ~(kHuge - 1);
  EXPECT_FALSE(mapping_has_huge_page_advice(first_whole));
  advise_huge_pages(buffer.data(), buffer.size());
  EXPECT_TRUE(mapping_has_huge_page_advice(first_whole));
  EXPECT_TRUE(mapping_has_huge_page_advice(first_whole + 2 * kHuge));
}
}  // namespace
}  // namespace lockstep::impl
#endif
