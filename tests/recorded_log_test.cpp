// The impl runtime's log records (impl/engine/recorded_log.h): what it hands out must be the shared
// log format with the members in the order traces/README.md lists them, whether it is read once at
// the end of a replay or after every unit, as check's search reads it.
#include "../impl/engine/recorded_log.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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
  recorded.record_callback(0, &kA, "callback", "request", "r1", true, lock_info("x"));
  recorded.record_callback(1, &kW, "callback", "request", "r2", true, Value::null());
  recorded.record_callback(2, &kA, "task", "task", "t1", false, {});
  recorded.record_settled(3, &kA, "r1", true, Value::number(5));
  recorded.record_settled(4, &kW, "r2", false, Value::dom_exception("AbortError"));
  recorded.record_settled(5, &kA, "p", true, Value());
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
  recorded.record_callback(0, &kA, "task", "task", "t1", false, {});
  ASSERT_EQ(recorded.log().events.size(), 1u);
  EXPECT_EQ(recorded.log().events[0].member("task")->as_string(), "t1");

  // The ids are views: like the trace's, they outlive the records.
  const std::vector<std::string> ids = {"i0", "i1", "i2"};
  for (int i = 0; i < 100; ++i) {  // many small reads, as check's search makes them
    recorded.record_callback(1 + i, &kW, "idle", "id", ids[i % 3], false, {});
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

  recorded.record_settled(200, &kA, "t1", true, Value::string("ok"));
  const Log taken = recorded.take();
  ASSERT_EQ(taken.events.size(), 102u);
  EXPECT_EQ(taken.events.back().event, "settled");
  EXPECT_TRUE(recorded.log().events.empty());  // taken: nothing left behind
}

}  // namespace
}  // namespace lockstep::impl
