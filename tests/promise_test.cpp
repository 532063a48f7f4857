// ECMAScript promise machinery and the HTML event loop: tick counts and orders that the expected
// logs of the corpus rely on.
#include "platform/promise.h"

#include <gtest/gtest.h>

#include "platform/world.h"

namespace lockstep::spec {
namespace {

class PromiseTest : public ::testing::Test {
 protected:
  PromiseTest() {
    agent_.id = "A";
    agent_.origin = "https://a.test";
    agent_.event_loop = "A";
    env_ = world_.add_environment(agent_);
  }
  void mark(const std::string& label) {
    world_.log(env_, "mark", {{"label", Value::string(label)}});
  }
  // A chain of microtasks that logs tick1..tickN, one per checkpoint turn.
  void ticks(int n, int i = 1) {
    if (i > n) return;
    world_.queue_a_microtask(env_, [this, n, i] {
      mark("tick" + std::to_string(i));
      ticks(n, i + 1);
    });
  }
  Handler logger(const std::string& label) {
    return [this, label](const Value&) {
      mark(label);
      return Completion::normal(Value());
    };
  }
  std::vector<std::string> labels() {
    std::vector<std::string> out;
    for (const Event& e : world_.event_log().events) out.push_back(e.member("label")->as_string());
    return out;
  }

  Agent agent_;
  World world_;
  Environment* env_ = nullptr;
};

TEST_F(PromiseTest, ResolvingWithAPromiseTakesTwoTicks) {
  world_.run_task_now(env_, [&] {
    Promise* x = promise_resolve(world_, env_, JsValue(Value::number(1)));
    Promise* p = new_promise(world_, env_);
    perform_promise_then(world_, env_, p, logger("p"), nullptr, nullptr);
    p->own.resolve(world_, JsValue(x));
    ticks(3);
  });
  EXPECT_EQ(labels(), (std::vector<std::string>{"tick1", "tick2", "p", "tick3"}));
}

TEST_F(PromiseTest, ReactionsRunInRegistrationOrderOneTickAfterSettling) {
  world_.run_task_now(env_, [&] {
    Promise* p = new_promise(world_, env_);
    perform_promise_then(world_, env_, p, logger("first"), nullptr, nullptr);
    perform_promise_then(world_, env_, p, logger("second"), nullptr, nullptr);
    ticks(1);
    p->own.resolve(world_, JsValue(Value::number(2)));
  });
  EXPECT_EQ(labels(), (std::vector<std::string>{"tick1", "first", "second"}));
}

TEST_F(PromiseTest, AlreadyResolvedIgnoresLaterResolutions) {
  Promise* p = nullptr;
  world_.run_task_now(env_, [&] {
    p = new_promise(world_, env_);
    p->own.resolve(world_, JsValue(Value::number(1)));
    p->own.reject(world_, Value::string("late"));
    p->own.resolve(world_, JsValue(Value::number(3)));
  });
  EXPECT_EQ(p->state, Promise::State::Fulfilled);
  EXPECT_EQ(p->result, Value::number(1));
}

TEST_F(PromiseTest, ResolvingWithItselfRejectsWithTypeError) {
  Promise* p = nullptr;
  world_.run_task_now(env_, [&] {
    p = new_promise(world_, env_);
    p->own.resolve(world_, JsValue(p));
  });
  EXPECT_EQ(p->state, Promise::State::Rejected);
  EXPECT_EQ(p->result, Value::dom_exception("TypeError"));
}

TEST_F(PromiseTest, RejectionPassesThroughAMissingHandler) {
  Promise* derived = nullptr;
  world_.run_task_now(env_, [&] {
    Promise* p = promise_rejected_with(world_, env_, Value::string("why"));
    derived = new_promise(world_, env_);
    perform_promise_then(world_, env_, p, logger("never"), nullptr, derived);
  });
  EXPECT_TRUE(labels().empty());
  EXPECT_EQ(derived->state, Promise::State::Rejected);
  EXPECT_EQ(derived->result, Value::string("why"));
}

TEST_F(PromiseTest, TasksRunOldestFirstEachFollowedByItsMicrotasks) {
  Agent other;
  other.id = "B";
  other.origin = "https://a.test";
  other.event_loop = "B";
  Environment* b = world_.add_environment(other);
  world_.queue_a_task(env_, "one", [&] {
    mark("A1");
    world_.queue_a_microtask(env_, [&] { mark("A1-micro"); });
  });
  world_.queue_a_task(b, "two", [&] { world_.log(b, "mark", {{"label", Value::string("B1")}}); });
  world_.queue_a_task(env_, "two", [&] { mark("A2"); });
  world_.settle();
  EXPECT_EQ(labels(), (std::vector<std::string>{"A1", "A1-micro", "B1", "A2"}));
  // Three units were runnable at first, then two: two choice points.
  EXPECT_EQ(world_.choices_taken(), (std::vector<std::string>{"loop:A/one", "loop:B/two"}));
}

TEST_F(PromiseTest, PinnedChoicesOverrideTheCanonicalPolicy) {
  Agent other;
  other.id = "B";
  other.origin = "https://a.test";
  other.event_loop = "B";
  Environment* b = world_.add_environment(other);
  world_.pin_choices({"loop:B"});
  world_.queue_a_task(env_, "one", [&] { mark("A1"); });
  world_.queue_a_task(b, "one", [&] { world_.log(b, "mark", {{"label", Value::string("B1")}}); });
  world_.settle();
  EXPECT_EQ(labels(), (std::vector<std::string>{"B1", "A1"}));
}

TEST_F(PromiseTest, TimersFireInDueOrderAsTimeAdvances) {
  world_.run_steps_after_a_timeout(20, [&] { mark("t20"); });
  world_.run_steps_after_a_timeout(10, [&] {
    mark("t10");
    world_.run_steps_after_a_timeout(5, [&] { mark("t15"); });
  });
  world_.run_steps_after_a_timeout(10, [&] { mark("t10b"); });
  world_.advance_time(19);
  EXPECT_EQ(labels(), (std::vector<std::string>{"t10", "t10b", "t15"}));
  EXPECT_EQ(world_.now(), 19u);
  world_.advance_time(1);
  EXPECT_EQ(labels().back(), "t20");
}

TEST_F(PromiseTest, TerminationDiscardsQueuedWork) {
  world_.queue_a_task(env_, "one", [&] { mark("never"); });
  world_.terminate_environment(env_);
  world_.queue_a_task(env_, "one", [&] { mark("never either"); });
  world_.settle();
  EXPECT_TRUE(labels().empty());
}

}  // namespace
}  // namespace lockstep::spec
