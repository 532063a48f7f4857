// The impl engine's own containers (impl/engine/inline_function.h, ring_queue.h, stable_pool.h,
// traces/include/lockstep/string_index.h) and Value's shared compound parts: they replace
// std::function, std::deque, std::unordered_map and deep copies on the replay's hot path, so each
// must keep the behaviour of what it replaces.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../impl/engine/inline_function.h"
#include "../impl/engine/ring_queue.h"
#include "../impl/engine/stable_pool.h"
#include "lockstep/event_members.h"
#include "lockstep/string_index.h"
#include "lockstep/value.h"

namespace lockstep::impl {
namespace {

// Counts live instances, so that a leak or a double destruction shows.
struct Tracked {
  static inline int live = 0;
  int value;
  explicit Tracked(int v) : value(v) { ++live; }
  Tracked(const Tracked& o) : value(o.value) { ++live; }
  Tracked(Tracked&& o) noexcept : value(o.value) { ++live; }
  ~Tracked() { --live; }
};

TEST(InlineFunction, SmallCapturesRunAndAreDestroyedOnce) {
  Tracked::live = 0;
  {
    Tracked t(7);
    InlineFunction<int(int)> f = [t](int x) { return t.value + x; };
    EXPECT_EQ(f(1), 8);
    InlineFunction<int(int)> g = std::move(f);
    EXPECT_FALSE(f);
    EXPECT_EQ(g(2), 9);
    EXPECT_EQ(Tracked::live, 2);  // t and the one capture moved into g
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(InlineFunction, CapturesLargerThanTheBufferGoToTheHeapAndStillWork) {
  Tracked::live = 0;
  {
    std::array<int, 64> big{};
    big[63] = 5;
    Tracked t(1);
    InlineFunction<int()> f = [big, t] { return big[63] + t.value; };
    InlineFunction<int()> g;
    g = std::move(f);
    EXPECT_EQ(g(), 6);
    g = [] { return 0; };  // the heap capture is released on assignment
    EXPECT_EQ(Tracked::live, 1);
    EXPECT_EQ(g(), 0);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(InlineFunction, ACallMayChangeItsOwnCaptures) {
  InlineFunction<int()> counter = [n = 0]() mutable { return ++n; };
  counter();
  EXPECT_EQ(counter(), 2);
}

TEST(InlineFunction, NullIsEmpty) {
  InlineFunction<void()> f = nullptr;
  EXPECT_FALSE(f);
}

TEST(RingQueue, FirstInFirstOutAcrossGrowthAndWrapAround) {
  RingQueue<std::string> q;
  std::vector<std::string> expected, seen;
  int next = 0;
  // Interleave pushes and pops so that the head wraps around the buffer before and after growth.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round % 7 + 3; ++i) {
      q.push_back("item-" + std::to_string(next));
      expected.push_back("item-" + std::to_string(next++));
    }
    for (int i = 0; i < round % 5 + 1 && !q.empty(); ++i) {
      seen.push_back(q.front());
      q.pop_front();
    }
  }
  while (!q.empty()) {
    seen.push_back(q.front());
    q.pop_front();
  }
  EXPECT_EQ(seen, expected);
}

TEST(RingQueue, EraseIfKeepsTheOthersInOrder) {
  RingQueue<int> q;
  for (int i = 0; i < 40; ++i) q.push_back(int{i});
  for (int i = 0; i < 13; ++i) q.pop_front();  // the head is no longer at slot 0
  q.erase_if([](int v) { return v % 3 == 0; });
  std::vector<int> rest;
  for (std::size_t i = 0; i < q.size(); ++i) rest.push_back(q[i]);
  std::vector<int> expected;
  for (int i = 13; i < 40; ++i)
    if (i % 3 != 0) expected.push_back(i);
  EXPECT_EQ(rest, expected);
}

TEST(RingQueue, DestroysWhatItHolds) {
  Tracked::live = 0;
  {
    RingQueue<Tracked> q;
    for (int i = 0; i < 100; ++i) q.emplace_back(i);
    for (int i = 0; i < 30; ++i) q.pop_front();
    EXPECT_EQ(Tracked::live, 70);
    RingQueue<Tracked> moved = std::move(q);
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(moved.front().value, 30);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(StablePool, ObjectsNeverMoveAndAreDestroyedWithThePool) {
  Tracked::live = 0;
  {
    StablePool<Tracked> pool;
    std::vector<Tracked*> made;
    for (int i = 0; i < 10'000; ++i) made.push_back(&pool.emplace(i));  // many block doublings
    EXPECT_EQ(pool.size(), 10'000u);
    EXPECT_EQ(Tracked::live, 10'000);
    for (int i = 0; i < 10'000; ++i) ASSERT_EQ(made[static_cast<std::size_t>(i)]->value, i);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(StablePool, AThrowingConstructorLeavesNothingToDestroy) {
  struct Picky {
    explicit Picky(bool fail) {
      if (fail) throw std::runtime_error("refused");
      ++Tracked::live;
    }
    ~Picky() { --Tracked::live; }
  };
  Tracked::live = 0;
  {
    StablePool<Picky> pool;
    pool.emplace(false);
    EXPECT_THROW(pool.emplace(true), std::runtime_error);
    EXPECT_EQ(pool.size(), 1u);
    pool.emplace(false);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(StringIndex, FindsEveryKeyAndNothingElseAcrossGrowth) {
  // Keys that differ in one character, as trace ids and lock names do ("r9", "r10", "lock-9").
  std::vector<std::string> keys;
  for (int i = 0; i < 5'000; ++i) keys.push_back((i % 2 ? "lock-" : "r") + std::to_string(i));
  StringIndex index;
  const auto key_of = [&](std::uint32_t i) -> const std::string& { return keys[i]; };
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(index.find(keys[i], key_of), StringIndex::kNone) << keys[i];
    index.insert(keys[i], i);
  }
  EXPECT_EQ(index.size(), keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) ASSERT_EQ(index.find(keys[i], key_of), i);
  EXPECT_EQ(index.find("lock-", key_of), StringIndex::kNone);
  EXPECT_EQ(index.find("r5000", key_of), StringIndex::kNone);
  EXPECT_EQ(index.find("", key_of), StringIndex::kNone);
}

TEST(StringIndex, KeysOfEveryLengthThatDifferInOneByteAreToldApart) {
  // The hash reads a key in words, halves or single bytes by its length, the last word
  // overlapping: a key and its copies with one byte changed, at every position and length up to
  // three words, must all be found, each under its own ordinal.
  std::vector<std::string> keys;
  for (std::size_t length = 0; length <= 24; ++length) {
    const std::string base(length, 'k');
    keys.push_back(base);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = base;
      changed[at] = 'q';
      keys.push_back(changed);
    }
  }
  StringIndex index;
  const auto key_of = [&](std::uint32_t i) -> const std::string& { return keys[i]; };
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(index.find(keys[i], key_of), StringIndex::kNone) << keys[i];
    index.insert(keys[i], i);
  }
  for (std::uint32_t i = 0; i < keys.size(); ++i) ASSERT_EQ(index.find(keys[i], key_of), i);
  EXPECT_EQ(index.find(std::string(25, 'k'), key_of), StringIndex::kNone);
  EXPECT_EQ(index.find("kkkkkkkz", key_of), StringIndex::kNone);
}

TEST(StringIndex, TheCallersStringsMayMove) {
  // The index keeps ordinals, not views: a vector of names that reallocates stays findable.
  std::vector<std::string> names;
  StringIndex index;
  const auto key_of = [&](std::uint32_t i) -> const std::string& { return names[i]; };
  for (std::uint32_t i = 0; i < 1'000; ++i) {
    names.push_back("n" + std::to_string(i));
    index.insert(names.back(), i);
  }
  for (std::uint32_t i = 0; i < names.size(); ++i) ASSERT_EQ(index.find(names[i], key_of), i);
}

}  // namespace
}  // namespace lockstep::impl

namespace lockstep {
namespace {

TEST(ValueSharing, CopiesOfCompoundValuesAreEqualAndIndependentOfTheOriginal) {
  Value copy;
  {
    Value original = Value::object({{"held", Value::array({Value::string("a"), Value::number(1)})},
                                    {"pending", Value::null()}});
    copy = original;
    EXPECT_EQ(copy, original);
  }  // the original is gone: the copy still holds its members
  ASSERT_NE(copy.member("held"), nullptr);
  EXPECT_EQ(copy.member("held")->items().size(), 2u);
  EXPECT_EQ(copy.member("held")->items()[0].as_string(), "a");
}

TEST(ValueSharing, EmptyCompoundsAndMessagesReadAsEmpty) {
  EXPECT_TRUE(Value::array({}).items().empty());
  EXPECT_TRUE(Value::object({}).members().empty());
  EXPECT_EQ(Value::dom_exception("AbortError").message(), "");
  EXPECT_EQ(Value::dom_exception("AbortError", "why").message(), "why");
  EXPECT_EQ(Value::array({}), Value::array({}));
  EXPECT_FALSE(Value::array({}) == Value::object({}));
  EXPECT_TRUE(Value::string("x").members().empty());
}

// Number and the compound kinds keep their part in one word (value.h): every way of copying or
// moving must carry the part the kind uses, whatever the target held before.
TEST(ValueSharing, AssignmentsCarryTheNumberOrTheBlockTheKindUses) {
  Value v = Value::object({{"name", Value::string("a")}});
  v = Value::number(2.5);  // an object's block let go, a number taken
  EXPECT_EQ(v.kind(), Value::Kind::Number);
  EXPECT_EQ(v.as_number(), 2.5);
  const Value number = Value::number(-1);
  v = number;
  EXPECT_EQ(v.as_number(), -1);
  v = Value::dom_exception("AbortError", "why");
  EXPECT_EQ(v.message(), "why");
  Value moved = std::move(v);
  EXPECT_EQ(moved.message(), "why");
  EXPECT_EQ(moved.as_string(), "AbortError");
  Value copied(moved);
  moved = Value::array({Value::number(7)});
  EXPECT_EQ(copied.message(), "why");  // the copy kept the block the original let go of
  ASSERT_EQ(moved.items().size(), 1u);
  EXPECT_EQ(moved.items()[0].as_number(), 7);
  // The word holds the block's pointer for these kinds: as_number() does not read it.
  EXPECT_EQ(moved.as_number(), 0);
  EXPECT_EQ(Value::object({{"n", Value::number(1)}}).as_number(), 0);
  EXPECT_EQ(copied.as_number(), 0);
}

// Copies and moves leave a kind without text alone (value.h): a value that had text and takes
// one without must not keep its old text.
TEST(ValueSharing, AssignmentsTakeTheTextOfTheValueTheyTakeAndDropTheirOwn) {
  Value v = Value::string("a-lock-name-longer-than-sso");
  v = Value::null();
  EXPECT_EQ(v.kind(), Value::Kind::Null);
  EXPECT_EQ(v.as_string(), "");
  EXPECT_EQ(v, Value::null());
  const Value undefined;
  v = Value::string("short");
  v = undefined;  // a copy of a value without text
  EXPECT_TRUE(v.is_undefined());
  EXPECT_EQ(v.as_string(), "");
  v = Value::dom_exception("AbortError", "why");
  Value name = Value::string("lock");
  v = std::move(name);
  EXPECT_EQ(v, Value::string("lock"));
  const Value copy(v);
  Value moved(std::move(v));
  EXPECT_EQ(copy.as_string(), "lock");
  EXPECT_EQ(moved.as_string(), "lock");
  Value& same = moved;
  moved = std::move(same);  // a move onto itself keeps the value
  EXPECT_EQ(moved.as_string(), "lock");
  moved = Value::number(4);
  EXPECT_EQ(moved, Value::number(4));
  EXPECT_EQ(moved.as_string(), "");
}

TEST(ValueSharing, AValueCanBeAssignedAPartOfItself) {
  // The member lives only in v's block, which the assignment lets go of.
  Value v =
      Value::object({{"lock", Value::object({{"name", Value::string("a-name-longer-than-sso")}})}});
  v = *v.member("lock");
  ASSERT_NE(v.member("name"), nullptr);
  EXPECT_EQ(v.member("name")->as_string(), "a-name-longer-than-sso");
  Value items = Value::array({Value::array({Value::number(3)})});
  items = items.items()[0];
  ASSERT_EQ(items.items().size(), 1u);
  EXPECT_EQ(items.items()[0].as_number(), 3);
}

// object_of builds its members straight into the object's block, in the order given.
TEST(ValueSharing, ObjectOfHoldsItsMembersInOrderLikeAnObjectFromAVector) {
  const Value nested = Value::array({Value::number(1)});
  const Value built = Value::object_of("name", Value::string("a-name-longer-than-sso"), "mode",
                                       Value::string("shared"), "nested", nested);
  ASSERT_EQ(built.members().size(), 3u);
  EXPECT_EQ(built.members()[0].first, "name");
  EXPECT_EQ(built.members()[1].first, "mode");
  EXPECT_EQ(built.members()[2].first, "nested");
  EXPECT_EQ(built.member("mode")->as_string(), "shared");
  EXPECT_EQ(*built.member("nested"), nested);  // copied in: the original is untouched
  EXPECT_EQ(nested.items().size(), 1u);
  EXPECT_EQ(built, Value::object({{"nested", nested},
                                  {"mode", Value::string("shared")},
                                  {"name", Value::string("a-name-longer-than-sso")}}));
  EXPECT_FALSE(built == Value::object_of("name", Value::string("a-name-longer-than-sso"), "mode",
                                         Value::string("shared")));
}

TEST(ValueSharing, StringsFromAViewOrACharPointerCopyTheirText) {
  const std::string text = "request-42 and more";
  const Value from_view = Value::string(std::string_view(text).substr(0, 10));
  EXPECT_EQ(from_view.kind(), Value::Kind::String);
  EXPECT_EQ(from_view.as_string(), "request-42");
  EXPECT_EQ(Value::string("fulfilled").as_string(), "fulfilled");
  EXPECT_EQ(Value::string(std::string_view()), Value::string(std::string()));
}

// Up to three members live in the event; a fourth moves them all to the heap. Copies, moves and
// assignments keep the members and their order either way.
TEST(EventMembers, KeepTheirOrderInlineAndOnTheHeap) {
  const auto keys = [](const EventMembers& m) {
    std::string out;
    for (const auto& [k, v] : m) out += k + "=" + v.as_string() + ";";
    return out;
  };
  EventMembers small{{"a", Value::string("1")}, {"b", Value::string("2")}};
  EventMembers big = small;
  big.emplace_back("c", Value::string("3"));
  big.emplace_back("d", Value::string("a-value-longer-than-sso"));  // spills
  big.push_back({"e", Value::string("5")});
  EXPECT_EQ(keys(small), "a=1;b=2;");
  EXPECT_EQ(keys(big), "a=1;b=2;c=3;d=a-value-longer-than-sso;e=5;");
  ASSERT_EQ(big.size(), 5u);
  EXPECT_EQ(big[3].second.as_string(), "a-value-longer-than-sso");

  EventMembers moved_big = std::move(big);
  EventMembers moved_small = std::move(small);
  EXPECT_EQ(keys(moved_big), "a=1;b=2;c=3;d=a-value-longer-than-sso;e=5;");
  EXPECT_EQ(keys(moved_small), "a=1;b=2;");
  EXPECT_TRUE(big.empty());    // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_TRUE(small.empty());  // NOLINT(bugprone-use-after-move)

  moved_small = moved_big;  // copy-assign over inline members
  moved_big = {{"x", Value::string("9")}};
  EXPECT_EQ(keys(moved_small), "a=1;b=2;c=3;d=a-value-longer-than-sso;e=5;");
  EXPECT_EQ(keys(moved_big), "x=9;");
  moved_small = std::move(moved_big);  // move-assign over heap members
  EXPECT_EQ(keys(moved_small), "x=9;");

  std::vector<Value::Member> from{{"p", Value::string("1")},
                                  {"q", Value::string("2")},
                                  {"r", Value::string("3")},
                                  {"s", Value::string("4")}};
  EventMembers converted(std::move(from));
  EXPECT_EQ(keys(converted), "p=1;q=2;r=3;s=4;");
}

TEST(ValueSharing, DomExceptionsCompareByNameOnly) {
  EXPECT_EQ(Value::dom_exception("AbortError", "one"), Value::dom_exception("AbortError", "two"));
  EXPECT_FALSE(Value::dom_exception("AbortError") == Value::dom_exception("NotSupportedError"));
}

}  // namespace
}  // namespace lockstep
