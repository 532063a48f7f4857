// The Prioritized Task Scheduling algorithms called directly.
#include "scheduling/scheduling.h"

#include <gtest/gtest.h>

#include "platform/errors.h"

namespace lockstep::spec {
namespace {

class CountingHost : public ScriptHost {
 public:
  std::vector<std::string> calls;
  Completion call_lock_granted_callback(const CallbackFunction&, LockObject*) override {
    return Completion::normal(Value());
  }
  Completion call_post_task_callback(const CallbackFunction& cb) override {
    calls.push_back(cb.owner);
    return Completion::normal(Value());
  }
  void call_idle_request_callback(const CallbackFunction& cb) override {
    calls.push_back("idle:" + cb.owner);
  }
};

class SchedulingTest : public ::testing::Test {
 protected:
  SchedulingTest() : scheduling_(world_, host_) {
    for (const char* id : {"A", "B"}) {
      auto agent = std::make_unique<Agent>();
      agent->id = id;
      agent->origin = "https://a.test";
      agent->event_loop = "L";  // both windows share one event loop
      env_[id] = world_.add_environment(*agent);
      agents_.push_back(std::move(agent));
    }
  }
  Promise* post(const std::string& agent, const std::string& id,
                SchedulerPostTaskOptions options = {}) {
    return scheduling_.post_task(scheduling_.scheduler(env_[agent]),
                                 CallbackFunction{env_[agent], &callback_, id}, options);
  }
  SchedulerTaskQueue* queue(TaskPriority p, bool continuation) {
    SchedulerTaskQueue q;
    q.priority = p;
    q.is_continuation = continuation;
    return world_.make<SchedulerTaskQueue>(q);
  }

  Callback callback_;
  std::vector<std::unique_ptr<Agent>> agents_;
  std::map<std::string, Environment*> env_;
  World world_;
  CountingHost host_;
  Scheduling scheduling_;
};

TEST_F(SchedulingTest, EffectivePriorityIsTheSixRowTable) {
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::Background, false)), 0);
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::Background, true)), 1);
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::UserVisible, false)), 2);
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::UserVisible, true)), 3);
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::UserBlocking, false)), 4);
  EXPECT_EQ(Scheduling::effective_priority(*queue(TaskPriority::UserBlocking, true)), 5);
}

TEST_F(SchedulingTest, SelectTheSchedulerTaskQueueReusesAndForgetsQueues) {
  Scheduler* s = scheduling_.scheduler(env_["A"]);
  TaskSignal* fixed = scheduling_.create_a_fixed_priority_unabortable_task_signal(
      TaskPriority::Background, env_["A"]);
  TaskSignal* fixed_again = scheduling_.create_a_fixed_priority_unabortable_task_signal(
      TaskPriority::Background, env_["A"]);
  SchedulerTaskQueue* q = scheduling_.select_the_scheduler_task_queue(s, fixed, false);
  EXPECT_EQ(scheduling_.select_the_scheduler_task_queue(s, fixed_again, false),
            q);                                                               // keyed by priority
  EXPECT_NE(scheduling_.select_the_scheduler_task_queue(s, fixed, true), q);  // and continuation
  EXPECT_EQ(s->static_priority_task_queue_map.size(), 2u);
  q->removal_steps();
  EXPECT_EQ(s->static_priority_task_queue_map.size(), 1u);

  TaskController* controller = scheduling_.new_task_controller(env_["A"], TaskPriority::Background);
  SchedulerTaskQueue* dynamic =
      scheduling_.select_the_scheduler_task_queue(s, controller->task_signal(), false);
  EXPECT_EQ(s->dynamic_priority_task_queue_map.size(), 1u);
  EXPECT_FALSE(scheduling_.set_priority(controller, TaskPriority::UserBlocking).has_value());
  EXPECT_EQ(dynamic->priority, TaskPriority::UserBlocking);  // the queue follows; nothing moves
}

TEST_F(SchedulingTest, DependentSignalsFlattenToTheirSource) {
  TaskController* controller = scheduling_.new_task_controller(env_["A"], TaskPriority::Background);
  TaskSignalAnyInit follow;
  follow.signal = controller->task_signal();
  TaskSignal* first = scheduling_.any(env_["A"], {controller->signal}, follow);
  TaskSignalAnyInit follow_first;
  follow_first.signal = first;
  TaskSignal* second = scheduling_.any(env_["A"], {first}, follow_first);
  EXPECT_EQ(second->source_signal, controller->task_signal());  // not `first`
  EXPECT_EQ(controller->task_signal()->task_dependent_signals,
            (std::vector<TaskSignal*>{first, second}));
  EXPECT_FALSE(Scheduling::has_fixed_priority(*second));
  TaskSignalAnyInit fixed;
  fixed.priority = TaskPriority::UserBlocking;
  TaskSignal* pinned = scheduling_.any(env_["A"], {controller->signal}, fixed);
  EXPECT_TRUE(Scheduling::has_fixed_priority(*pinned));
  scheduling_.set_priority(controller, TaskPriority::UserVisible);
  EXPECT_EQ(second->priority, TaskPriority::UserVisible);
  EXPECT_EQ(pinned->priority, TaskPriority::UserBlocking);
  // Abort flows through the abort-signal dependency, flattened to the controller's signal too.
  EXPECT_EQ(second->source_signals, (std::vector<AbortSignal*>{controller->signal}));
}

TEST_F(SchedulingTest, SignalPriorityChangeRefusesReentryAndIgnoresTheSamePriority) {
  TaskController* controller = scheduling_.new_task_controller(env_["A"], TaskPriority::Background);
  TaskSignal* signal = controller->task_signal();
  std::vector<std::string> seen;
  signal->prioritychange_listeners.push_back([&](TaskPriority previous) {
    seen.push_back(std::string(task_priority_name(previous)) + "->" +
                   task_priority_name(signal->priority));
    auto thrown = scheduling_.set_priority(controller, TaskPriority::UserVisible);
    ASSERT_TRUE(thrown.has_value());
    EXPECT_EQ(*thrown, Value::dom_exception("NotAllowedError"));
  });
  EXPECT_FALSE(scheduling_.set_priority(controller, TaskPriority::Background).has_value());
  EXPECT_TRUE(seen.empty());  // same priority: nothing fires
  scheduling_.set_priority(controller, TaskPriority::UserBlocking);
  EXPECT_EQ(seen, (std::vector<std::string>{"background->user-blocking"}));
  EXPECT_FALSE(signal->priority_changing);
}

TEST_F(SchedulingTest, EnqueueOrderSpansTheSchedulersOfOneEventLoop) {
  post("A", "a1");
  post("B", "b1");
  post("A", "a2");
  EXPECT_EQ(env_["A"]->event_loop->next_enqueue_order, 4u);
  world_.settle();
  EXPECT_EQ(host_.calls, (std::vector<std::string>{"a1", "b1", "a2"}));
}

TEST_F(SchedulingTest, SelectTheNextQueuePrefersEffectivePriorityThenAge) {
  SchedulerPostTaskOptions background, blocking;
  background.priority = TaskPriority::Background;
  blocking.priority = TaskPriority::UserBlocking;
  post("A", "bg", background);
  post("B", "uv");
  post("A", "ub", blocking);
  SchedulerTaskQueue* next =
      scheduling_.select_the_next_scheduler_task_queue_from_all_schedulers(*env_["A"]->event_loop);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->priority, TaskPriority::UserBlocking);
  world_.settle();
  EXPECT_EQ(host_.calls, (std::vector<std::string>{"ub", "uv", "bg"}));
}

TEST_F(SchedulingTest, AbortingAQueuedTaskRejectsItAndDropsItsQueue) {
  AbortController* controller = new_abort_controller(world_, env_["A"]);
  SchedulerPostTaskOptions options;
  options.signal = controller->signal;
  Promise* p = post("A", "t", options);
  Scheduler* s = scheduling_.scheduler(env_["A"]);
  EXPECT_EQ(s->static_priority_task_queue_map.size(), 1u);
  abort_controller_abort(world_, controller, Value::string("stop"));
  EXPECT_TRUE(s->static_priority_task_queue_map.empty());
  world_.settle();
  EXPECT_TRUE(host_.calls.empty());
  EXPECT_EQ(p->state, Promise::State::Rejected);
  EXPECT_EQ(p->result, Value::string("stop"));
}

TEST_F(SchedulingTest, YieldInheritsTheCurrentSchedulingState) {
  Scheduler* s = scheduling_.scheduler(env_["A"]);
  auto state = std::make_shared<SchedulingState>();
  state->priority_source = scheduling_.create_a_fixed_priority_unabortable_task_signal(
      TaskPriority::Background, env_["A"]);
  scheduling_.set_the_current_scheduling_state(s, state);
  EXPECT_EQ(scheduling_.get_the_current_scheduling_state(s), state);
  EXPECT_THROW(scheduling_.set_the_current_scheduling_state(s, state),
               InternalError);  // a key is set once
  scheduling_.yield(s);
  env_["A"]->event_loop->current_continuation_state = nullptr;
  ASSERT_EQ(s->static_priority_task_queue_map.size(), 1u);
  const auto& [key, queue] = s->static_priority_task_queue_map.front();
  EXPECT_EQ(key, std::make_pair(TaskPriority::Background, true));
  EXPECT_EQ(Scheduling::effective_priority(*queue), 1);
  // Without a state, a yield is a user-visible continuation.
  scheduling_.yield(scheduling_.scheduler(env_["B"]));
  EXPECT_EQ(scheduling_.scheduler(env_["B"])->static_priority_task_queue_map.front().first,
            std::make_pair(TaskPriority::UserVisible, true));
}

TEST_F(SchedulingTest, MicrotasksCarryACloneOfTheContinuationState) {
  EventLoop& loop = *env_["A"]->event_loop;
  std::vector<bool> saw_state;
  world_.run_task_now(env_["A"], [&] {
    set_the_continuation_state_value(&loop, std::make_shared<int>(1), loop);
    world_.queue_a_microtask(
        env_["A"], [&] { saw_state.push_back(loop.current_continuation_state != nullptr); });
    world_.queue_a_microtask(
        env_["A"], [&] { saw_state.push_back(loop.current_continuation_state != nullptr); }, true);
    loop.current_continuation_state = nullptr;
  });
  EXPECT_EQ(saw_state, (std::vector<bool>{true, false}));
}

TEST_F(SchedulingTest, IdleCallbacksWaitUntilTheEventLoopHasNothingElse) {
  scheduling_.request_idle_callback(env_["A"], CallbackFunction{env_["A"], &callback_, "i"});
  SchedulerPostTaskOptions background;
  background.priority = TaskPriority::Background;
  post("A", "bg", background);
  world_.settle();
  EXPECT_EQ(host_.calls, (std::vector<std::string>{"bg", "idle:i"}));
}

}  // namespace
}  // namespace lockstep::spec
