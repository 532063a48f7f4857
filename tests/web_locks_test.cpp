// The Web Locks algorithms called directly, with a host that records callback invocations.
#include "web-locks/web_locks.h"

#include <gtest/gtest.h>

namespace lockstep::spec {
namespace {

class RecordingHost : public ScriptHost {
 public:
  World* world = nullptr;
  std::vector<std::string> calls;         // "owner:name/mode" or "owner:null"
  std::map<std::string, Promise*> holds;  // owners whose callbacks keep the lock until settled
  Completion call_lock_granted_callback(const CallbackFunction& cb, LockObject* lock) override {
    calls.push_back(cb.owner + ":" +
                    (lock ? lock->name() + "/" + lock_mode_name(lock->mode()) : "null"));
    if (holds.count(cb.owner)) {
      holds[cb.owner] = new_promise(*world, cb.environment);
      return Completion::normal(JsValue(holds[cb.owner]));
    }
    return Completion::normal(Value());
  }
  Completion call_post_task_callback(const CallbackFunction&) override {
    return Completion::normal(Value());
  }
  void call_idle_request_callback(const CallbackFunction&) override {}
};

class WebLocksTest : public ::testing::Test {
 protected:
  WebLocksTest() : locks_(world_, host_) {
    host_.world = &world_;
    add("A", "https://a.test");
    add("B", "https://a.test");
    add("C", "https://a.test");
    add("P", "https://a.test", "private");
    add("X", "opaque");
  }
  void add(const std::string& id, const std::string& origin,
           const std::string& partition = "default") {
    auto agent = std::make_unique<Agent>();
    agent->id = id;
    agent->origin = origin;
    agent->partition = partition;
    agent->event_loop = id;
    env_[id] = world_.add_environment(*agent);
    agents_.push_back(std::move(agent));
  }
  Promise* request(const std::string& agent, const std::string& id, const std::string& name,
                   std::optional<LockOptions> options = std::nullopt, bool hold = false) {
    if (hold) host_.holds[id] = nullptr;
    Promise* p = nullptr;
    world_.run_task_now(env_[agent], [&] {
      p = locks_.request(env_[agent], name, options,
                         CallbackFunction{env_[agent], &empty_callback_, id});
    });
    world_.settle();
    return p;
  }
  void release(const std::string& id) {
    Promise* held_until = host_.holds[id];
    ASSERT_NE(held_until, nullptr) << id << " was never granted";
    world_.run_task_now(held_until->environment,
                        [&] { held_until->own.resolve(world_, JsValue(Value())); });
    world_.settle();
  }
  LockManager* manager(const std::string& agent) {
    return locks_.obtain_a_lock_manager(env_[agent]);
  }
  std::vector<std::string> held(const std::string& agent) {
    std::vector<std::string> out;
    for (Lock* l : manager(agent)->held_lock_set) out.push_back(l->client_id + ":" + l->name);
    return out;
  }
  std::vector<std::string> queued(const std::string& agent, const std::string& name) {
    std::vector<std::string> out;
    for (LockRequest* r : locks_.get_the_lock_request_queue(*manager(agent), name))
      out.push_back(r->client_id);
    return out;
  }
  LockRequest* make_request(const std::string& agent, const std::string& name, LockMode mode) {
    return world_.make<LockRequest>(
        LockRequest{env_[agent], agent, manager(agent), name, mode,
                    CallbackFunction{env_[agent], &empty_callback_, "x"}, nullptr, nullptr, 0});
  }
  Lock* make_held(const std::string& agent, const std::string& name, LockMode mode) {
    auto* lock =
        world_.make<Lock>(Lock{env_[agent], agent, manager(agent), name, mode, nullptr, nullptr});
    manager(agent)->held_lock_set.push_back(lock);
    return lock;
  }

  Callback empty_callback_;
  std::vector<std::unique_ptr<Agent>> agents_;
  std::map<std::string, Environment*> env_;
  World world_;
  RecordingHost host_;
  WebLocks locks_;
};

TEST_F(WebLocksTest, LockManagerPerPartitionAndOriginAndNoneForOpaque) {
  EXPECT_EQ(manager("A"), manager("B"));
  EXPECT_NE(manager("A"), manager("P"));
  EXPECT_EQ(manager("X"), nullptr);
}

TEST_F(WebLocksTest, GetTheLockRequestQueueCreatesOnceInFirstLookupOrder) {
  LockManager& m = *manager("A");
  LockRequestQueue& q1 = locks_.get_the_lock_request_queue(m, "b");
  locks_.get_the_lock_request_queue(m, "a");
  EXPECT_EQ(&locks_.get_the_lock_request_queue(m, "b"), &q1);  // same queue, still valid
  ASSERT_EQ(m.lock_request_queue_map.size(), 2u);
  EXPECT_EQ(m.lock_request_queue_map[0].first, "b");
  EXPECT_EQ(m.lock_request_queue_map[1].first, "a");
}

TEST_F(WebLocksTest, GrantableFollowsQueuePositionAndModes) {
  LockRequest* ex = make_request("A", "n", LockMode::Exclusive);
  EXPECT_TRUE(locks_.grantable(ex));  // empty queue, nothing held
  LockRequest* first = make_request("B", "n", LockMode::Shared);
  locks_.get_the_lock_request_queue(*manager("A"), "n").push_back(first);
  EXPECT_FALSE(locks_.grantable(ex));  // not the first of a non-empty queue
  EXPECT_TRUE(locks_.grantable(first));
  make_held("C", "n", LockMode::Shared);
  EXPECT_TRUE(locks_.grantable(first));  // shared beside shared
  locks_.get_the_lock_request_queue(*manager("A"), "n").clear();
  EXPECT_FALSE(locks_.grantable(ex));  // exclusive beside a held shared
  make_held("C", "other", LockMode::Exclusive);
  LockRequest* shared = make_request("A", "n", LockMode::Shared);
  EXPECT_TRUE(locks_.grantable(shared));  // an exclusive lock of another name does not matter
  make_held("C", "n", LockMode::Exclusive);
  EXPECT_FALSE(locks_.grantable(shared));
}

TEST_F(WebLocksTest, GrantsInFifoOrderAndSharedTogether) {
  request("A", "a1", "n", LockOptions{LockMode::Shared}, true);
  request("B", "b1", "n", LockOptions{LockMode::Shared}, true);
  request("C", "c1", "n", std::nullopt, true);
  request("A", "a2", "n", LockOptions{LockMode::Shared}, true);
  EXPECT_EQ(held("A"), (std::vector<std::string>{"A:n", "B:n"}));
  EXPECT_EQ(queued("A", "n"),
            (std::vector<std::string>{"C", "A"}));  // the later shared waits behind C
  release("a1");
  release("b1");
  EXPECT_EQ(held("A"), (std::vector<std::string>{"C:n"}));
  release("c1");
  EXPECT_EQ(held("A"), (std::vector<std::string>{"A:n"}));
  EXPECT_EQ(host_.calls, (std::vector<std::string>{"a1:n/shared", "b1:n/shared", "c1:n/exclusive",
                                                   "a2:n/shared"}));
}

TEST_F(WebLocksTest, StealRemovesEveryHeldLockOfTheNameAndGoesFirst) {
  Promise* a = request("A", "a1", "n", LockOptions{LockMode::Shared}, true);
  Promise* b = request("B", "b1", "n", LockOptions{LockMode::Shared}, true);
  request("A", "keep", "other", std::nullopt, true);
  request("C", "c1", "n", std::nullopt, true);
  LockOptions steal;
  steal.steal = true;
  request("B", "b2", "n", steal, true);
  EXPECT_EQ(held("A"), (std::vector<std::string>{"A:other", "B:n"}));
  EXPECT_EQ(queued("A", "n"), (std::vector<std::string>{"C"}));
  EXPECT_EQ(a->state, Promise::State::Rejected);
  EXPECT_EQ(a->result, Value::dom_exception("AbortError"));
  EXPECT_EQ(b->state, Promise::State::Rejected);
  // The stolen lock's callback finishing later releases nothing that is held (a no-op removal).
  release("a1");
  EXPECT_EQ(held("A"), (std::vector<std::string>{"A:other", "B:n"}));
}

TEST_F(WebLocksTest, IfAvailableIsNullWhenTheQueueIsNotEmpty) {
  request("A", "a1", "n", std::nullopt, true);
  request("B", "b1", "n", std::nullopt, true);
  LockOptions if_available;
  if_available.if_available = true;
  if_available.mode = LockMode::Shared;
  request("C", "c1", "other", if_available);
  request("C", "c2", "n", if_available);
  EXPECT_EQ(host_.calls,
            (std::vector<std::string>{"a1:n/exclusive", "c1:other/shared", "c2:null"}));
  EXPECT_EQ(queued("A", "n"), (std::vector<std::string>{"B"}));  // the null answer was never queued
}

TEST_F(WebLocksTest, AbortingANonHeadRequestKeepsTheOthersInOrder) {
  request("A", "a1", "n", std::nullopt, true);
  auto* controller = new_abort_controller(world_, env_["B"]);
  LockOptions with_signal;
  with_signal.signal = controller->signal;
  request("C", "c1", "n", std::nullopt, true);
  Promise* b = request("B", "b1", "n", with_signal, true);
  request("C", "c2", "n", std::nullopt, true);
  EXPECT_EQ(queued("A", "n"), (std::vector<std::string>{"C", "B", "C"}));
  world_.run_task_now(env_["B"],
                      [&] { abort_controller_abort(world_, controller, Value::string("stop")); });
  world_.settle();
  EXPECT_EQ(queued("A", "n"), (std::vector<std::string>{"C", "C"}));
  EXPECT_EQ(b->state, Promise::State::Rejected);
  EXPECT_EQ(b->result, Value::string("stop"));
  EXPECT_TRUE(controller->signal->abort_algorithms.empty());
}

TEST_F(WebLocksTest, TerminationReleasesHeldAndDropsPending) {
  request("A", "a1", "x", std::nullopt, true);
  request("B", "b1", "y", std::nullopt, true);
  Promise* pending = request("A", "a2", "y", std::nullopt, true);
  request("C", "c1", "x", std::nullopt, true);
  world_.terminate_environment(env_["A"]);
  locks_.agent_terminates(env_["A"]);
  world_.settle();
  EXPECT_EQ(held("B"), (std::vector<std::string>{"B:y", "C:x"}));
  EXPECT_TRUE(queued("B", "y").empty());
  EXPECT_EQ(pending->state, Promise::State::Pending);  // abort the request does not settle it
}

TEST_F(WebLocksTest, PartitionsDoNotShareLocks) {
  request("A", "a1", "n", std::nullopt, true);
  request("P", "p1", "n", std::nullopt, true);
  EXPECT_EQ(host_.calls, (std::vector<std::string>{"a1:n/exclusive", "p1:n/exclusive"}));
}

TEST_F(WebLocksTest, RequestChecksInSpecOrder) {
  auto rejected_with = [&](Promise* p) {
    return p->state == Promise::State::Rejected ? p->result.as_string() : "?";
  };
  auto* aborted = new_abort_controller(world_, env_["A"]);
  abort_controller_abort(world_, aborted, Value());
  LockOptions all;
  all.steal = all.if_available = true;
  all.mode = LockMode::Shared;
  all.signal = aborted->signal;
  EXPECT_EQ(rejected_with(request("X", "x1", "-reserved", all)), "SecurityError");  // step 4 first
  EXPECT_EQ(rejected_with(request("A", "a1", "-reserved", all)), "NotSupportedError");  // step 5
  LockOptions signal_only;
  signal_only.signal = aborted->signal;
  EXPECT_EQ(rejected_with(request("A", "a2", "n", signal_only)), "AbortError");  // step 9
  env_["B"]->document_fully_active = false;
  EXPECT_EQ(rejected_with(request("B", "b1", "-reserved", all)),
            "InvalidStateError");  // step 3 before all
  EXPECT_TRUE(host_.calls.empty());
}

}  // namespace
}  // namespace lockstep::spec
