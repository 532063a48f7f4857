// check's measure of what a unit did (check/src/unit_meter.h), on counters the test moves by
// hand: a unit is said to have given steps exactly to the queues whose counts moved while it ran.
#include "unit_meter.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>

namespace lockstep::check {
namespace {

Agent agent(const std::string& id, const std::string& partition, const std::string& loop) {
  Agent a;
  a.id = id;
  a.partition = partition;
  a.event_loop = loop;
  return a;
}

// Loop L hosts an agent of partition p and one of q; loop M one of p only.
Trace two_partitions() {
  Trace trace;
  trace.agents = {agent("A", "p", "L"), agent("B", "q", "L"), agent("C", "p", "M")};
  return trace;
}

std::uint64_t bit_of(const Independence& independence, const std::string& unit,
                     const std::string& partition) {
  for (const auto& [bit, name] : independence.lock_queues_reached_by(unit))
    if (name == partition) return bit;
  return 0;
}

struct Counters {
  std::map<std::string, std::uint64_t> steps;  // a queue exists once it has an entry
  UnitMeter::StepCounter counter() {
    return [this](const std::string& partition) -> const std::uint64_t* {
      const auto found = steps.find(partition);
      return found == steps.end() ? nullptr : &found->second;
    };
  }
};

TEST(UnitMeter, NamesTheQueuesWhoseCountsMovedWhileTheUnitRan) {
  const Trace trace = two_partitions();
  const Independence independence(trace);
  Counters counters;
  counters.steps = {{"p", 3}, {"q", 7}};
  UnitMeter meter(independence, counters.counter());

  meter.began("loop:L/web-locks");
  EXPECT_TRUE(meter.running());
  ++counters.steps["q"];
  UnitEffect did = meter.ended();
  EXPECT_FALSE(meter.running());
  EXPECT_EQ(meter.unit(), "loop:L/web-locks");
  EXPECT_TRUE(did.known);
  const std::uint64_t q = bit_of(independence, "loop:L/web-locks", "q");
  ASSERT_EQ(std::popcount(q), 1);
  EXPECT_EQ(did.lock_queues, q);

  // Steps given between units count for neither; a unit that gives none is known to touch none.
  ++counters.steps["p"];
  meter.began("loop:L/scheduler");
  did = meter.ended();
  EXPECT_TRUE(did.known);
  EXPECT_EQ(did.lock_queues, 0u);

  // Both queues moved.
  meter.began("loop:L/trace");
  ++counters.steps["p"];
  counters.steps["q"] += 2;
  did = meter.ended();
  EXPECT_EQ(did.lock_queues, q | bit_of(independence, "loop:L/trace", "p"));
}

TEST(UnitMeter, AQueueMadeWhileTheUnitRanCountsAsGivenSteps) {
  const Trace trace = two_partitions();
  const Independence independence(trace);
  Counters counters;  // no queue exists yet
  UnitMeter meter(independence, counters.counter());
  meter.began("loop:M/trace");
  counters.steps["p"] = 1;
  const UnitEffect did = meter.ended();
  EXPECT_TRUE(did.known);
  EXPECT_EQ(did.lock_queues, bit_of(independence, "loop:M/trace", "p"));
  EXPECT_NE(did.lock_queues, 0u);
}

TEST(UnitMeter, ALockQueuesUnitHasNoKnownEffect) {
  const Trace trace = two_partitions();
  const Independence independence(trace);
  Counters counters;
  counters.steps = {{"p", 0}};
  UnitMeter meter(independence, counters.counter());
  meter.began("locks:p");
  ++counters.steps["p"];
  const UnitEffect did = meter.ended();
  EXPECT_FALSE(did.known);  // Independence::dependent keeps its rule without effects
  EXPECT_EQ(did.lock_queues, 0u);
}

}  // namespace
}  // namespace lockstep::check
