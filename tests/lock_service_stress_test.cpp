// LockService under many threads: agents on eight event loops (threads) request, hold, release,
// abort, steal, query and terminate at random against two lock managers. Run under the tsan
// preset it is the data-race check of the embedder API; under every preset it checks the spec's
// guarantees as script would see them:
// - web-locks#grantable: never two exclusive holders of a name, never exclusive beside shared
//   (on names no steal touches; a steal takes a lock away before its holder hears of it);
// - every request ends exactly once: granted, not available, or aborted, unless its agent was
//   terminated (web-locks#algorithm-request-lock, #algorithm-abort-request);
// - nothing is posted to an agent after its termination (#terminate-remaining-locks-and-requests);
// - every query snapshot is grantable-consistent, and at the end nothing is held or pending.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "event_loop.h"
#include "lockstep/impl/lock_service.h"

namespace lockstep::impl {
namespace {

using examples::EventLoop;

constexpr int kLoops = 8;
constexpr int kAgentsPerLoop = 4;
constexpr int kOpsPerAgent = 1000;
constexpr int kNames = 4;  // per storage key: names 0-2 checked for exclusion, name 3 is stolen
const std::array<std::string, 2> kStorageKeys{"https://a.example", "https://b.example"};

// What script sees of one name: holders counted from the grant task until release() is called.
struct NameView {
  std::atomic<int> exclusive{0};
  std::atomic<int> shared{0};
};

struct Totals {
  std::atomic<int> violations{0};
  std::atomic<int> queries_checked{0};
};

class Agent {
 public:
  Agent(LockService& service, EventLoop& loop, int key, std::string client_id, unsigned seed,
        std::array<NameView, kNames>& views, Totals& totals, bool terminates)
      : service_(service),
        loop_(loop),
        rng_(seed),
        views_(views),
        totals_(totals),
        terminates_(terminates) {
    auto registered = service.register_agent(LockService::AgentOptions{
        kStorageKeys[key], std::move(client_id), [this](std::function<void()> task) {
          if (gone_.load()) totals_.violations.fetch_add(1);  // posted after termination
          loop_.post(std::move(task));
        }});
    handle_ = std::get<AgentHandle>(registered);
  }

  void start() {
    loop_.post([this] { step(); });
  }

  bool finished() const { return finished_.load(); }
  int issued() const { return issued_; }
  int ended() const { return granted_ + not_available_ + aborted_; }
  int granted() const { return granted_; }
  int not_available() const { return not_available_; }
  int aborted() const { return aborted_; }
  int stolen() const { return static_cast<int>(stolen_.size()); }
  int held() const { return static_cast<int>(holding_.size()); }
  bool terminated() const { return gone_.load(); }
  AgentHandle handle() const { return handle_; }

 private:
  // One operation of the agent's script per task, so that its loop interleaves them with grants.
  void step() {
    if (gone_.load()) return;
    if (ops_ == kOpsPerAgent) {
      finished_.store(true);
      return;
    }
    if (terminates_ && ops_ == kOpsPerAgent / 2) {
      // What it held is gone for script too: its lanes end here, before the manager lets go.
      for (const Holding& h : holding_)
        (h.mode == Mode::Exclusive ? views_[h.name].exclusive : views_[h.name].shared).fetch_sub(1);
      holding_.clear();
      ASSERT_TRUE(std::get<bool>(service_.terminate(handle_)));
      gone_.store(true);
      finished_.store(true);
      return;
    }
    ++ops_;
    const int dice = pick(100);
    if (dice < 10 && !pending_.empty()) {
      abort_one();
    } else if (dice < 15) {
      query();
    } else {
      request(dice);
    }
    loop_.post([this] { step(); });
  }

  void request(int dice) {
    const bool steal = dice >= 97;
    const int name = steal ? kNames - 1 : pick(kNames);
    LockService::RequestOptions options;
    options.mode = pick(3) == 0 ? Mode::Exclusive : Mode::Shared;
    options.if_available = !steal && dice < 35;
    options.steal = steal;
    auto lock = std::make_shared<RequestHandle>();
    LockService::RequestCallbacks callbacks;
    // Tasks queued before a termination may still run on this loop: a gone agent ignores them.
    callbacks.granted = [this, name, options, lock](RequestHandle handle) {
      if (gone_.load()) return;
      ++granted_;
      forget_pending(handle);
      on_granted(name, options.mode, handle);
    };
    callbacks.not_available = [this] {
      if (!gone_.load()) ++not_available_;
    };
    callbacks.stolen = [this, lock] { stolen_.push_back(*lock); };
    auto made = service_.request(handle_, "name-" + std::to_string(name), options, callbacks);
    ASSERT_TRUE(std::holds_alternative<RequestHandle>(made))
        << std::get<ServiceError>(made).message;
    ++issued_;
    *lock = std::get<RequestHandle>(made);
    if (*lock) pending_.push_back(*lock);
  }

  void on_granted(int name, Mode mode, RequestHandle handle) {
    NameView& view = views_[name];
    const bool checked = name != kNames - 1;
    if (mode == Mode::Exclusive) {
      const int before = view.exclusive.fetch_add(1);
      if (checked && (before != 0 || view.shared.load() != 0)) totals_.violations.fetch_add(1);
    } else {
      view.shared.fetch_add(1);
      if (checked && view.exclusive.load() != 0) totals_.violations.fetch_add(1);
    }
    holding_.push_back(Holding{name, mode, handle});
    hold(name, mode, handle, pick(4));
  }

  // Keeps the lock for a few turns of the loop (the callback's promise), then releases it.
  void hold(int name, Mode mode, RequestHandle handle, int turns) {
    if (gone_.load()) return;
    if (turns > 0) {
      loop_.post([=, this] { hold(name, mode, handle, turns - 1); });
      return;
    }
    NameView& view = views_[name];
    (mode == Mode::Exclusive ? view.exclusive : view.shared).fetch_sub(1);
    for (auto it = holding_.begin(); it != holding_.end(); ++it)
      if (it->handle.ticket == handle.ticket) {
        holding_.erase(it);
        break;
      }
    auto released = service_.release(handle);
    ASSERT_TRUE(std::holds_alternative<bool>(released)) << std::get<ServiceError>(released).message;
    // false only when a steal took it: then the stolen notice was posted before or is on its way.
    if (!std::get<bool>(released) && name != kNames - 1) totals_.violations.fetch_add(1);
  }

  void abort_one() {
    const std::size_t i = pick(static_cast<int>(pending_.size()));
    const RequestHandle request = pending_[i];
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    auto aborted = service_.abort(request);
    ASSERT_TRUE(std::holds_alternative<bool>(aborted));
    // false: it was granted already, and its grant task is queued on this loop and will count.
    if (std::get<bool>(aborted)) ++aborted_;
  }

  void query() {
    auto asked = service_.query(handle_, [this](LockService::QueryResult result) {
      std::array<int, kNames> exclusive{}, shared{};
      for (const auto& entry : result.held) {
        const int name = entry.name.back() - '0';
        (entry.mode == Mode::Exclusive ? exclusive : shared)[name]++;
      }
      for (int n = 0; n < kNames; ++n)
        if (exclusive[n] > 1 || (exclusive[n] == 1 && shared[n] > 0))
          totals_.violations.fetch_add(1);
      totals_.queries_checked.fetch_add(1);
    });
    ASSERT_TRUE(std::holds_alternative<bool>(asked));
  }

  void forget_pending(RequestHandle handle) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if (it->ticket == handle.ticket) {
        pending_.erase(it);
        return;
      }
  }

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  LockService& service_;
  EventLoop& loop_;
  std::mt19937 rng_;
  std::array<NameView, kNames>& views_;
  Totals& totals_;
  bool terminates_;
  AgentHandle handle_;
  // Touched only on the agent's loop thread:
  struct Holding {
    int name = 0;
    Mode mode = Mode::Exclusive;
    RequestHandle handle;
  };
  int ops_ = 0, issued_ = 0, granted_ = 0, not_available_ = 0, aborted_ = 0;
  std::vector<Holding> holding_;
  std::vector<RequestHandle> pending_;
  std::vector<RequestHandle> stolen_;
  // Read by the test's thread:
  std::atomic<bool> finished_{false};
  std::atomic<bool> gone_{false};
};

// Runs `f` on `loop` and waits for it: how the test thread reads an agent's loop-owned counters.
template <class F>
auto on_loop(EventLoop& loop, F f) {
  std::promise<decltype(f())> result;
  loop.post([&] { result.set_value(f()); });
  return result.get_future().get();
}

TEST(LockServiceStress, ManyThreadsKeepTheSpecsGuarantees) {
  LockService service;
  std::vector<std::unique_ptr<EventLoop>> loops;
  for (int i = 0; i < kLoops; ++i) loops.push_back(std::make_unique<EventLoop>());
  std::array<std::array<NameView, kNames>, 2> views;
  Totals totals;
  std::vector<std::unique_ptr<Agent>> agents;
  for (int l = 0; l < kLoops; ++l)
    for (int a = 0; a < kAgentsPerLoop; ++a) {
      const int key = (l + a) % 2;
      agents.push_back(std::make_unique<Agent>(
          service, *loops[l], key, "agent-" + std::to_string(l) + "-" + std::to_string(a),
          static_cast<unsigned>(1000 + l * kAgentsPerLoop + a), views[key], totals,
          /*terminates=*/a == 0));
    }
  for (auto& agent : agents) agent->start();

  // Wait until every script has run and every surviving agent has released what it held and has
  // nothing pending (a deadlock guard, not a time limit on performance).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  for (std::size_t i = 0; i < agents.size();) {
    Agent& agent = *agents[i];
    EventLoop& loop = *loops[i / kAgentsPerLoop];
    const bool settled = on_loop(loop, [&] {
      return agent.finished() &&
             (agent.terminated() || (agent.held() == 0 && agent.issued() == agent.ended()));
    });
    if (settled) {
      ++i;
      continue;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "agent " << i << " never settled";
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  EXPECT_EQ(totals.violations.load(), 0);
  EXPECT_GT(totals.queries_checked.load(), 0);
  int requests = 0, granted = 0, not_available = 0, aborted = 0, stolen = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    requests += agents[i]->issued();
    granted += agents[i]->granted();
    not_available += agents[i]->not_available();
    aborted += agents[i]->aborted();
    stolen += agents[i]->stolen();
    if (!agents[i]->terminated()) {
      EXPECT_EQ(agents[i]->issued(), agents[i]->ended()) << "agent " << i;
    }
  }
  // Every kind of ending happened, so the checks above were exercised.
  std::printf("requests %d: granted %d (stolen %d), not available %d, aborted %d; queries %d\n",
              requests, granted, stolen, not_available, aborted, totals.queries_checked.load());
  EXPECT_GT(requests, kLoops * kAgentsPerLoop * kOpsPerAgent / 2);
  EXPECT_GT(not_available, 0);
  EXPECT_GT(aborted, 0);
  EXPECT_GT(stolen, 0);

  // At the end no manager holds or queues anything (web-locks#algorithm-snapshot-state).
  for (int key = 0; key < 2; ++key) {
    Agent& asker = *agents[1 + key];  // agent index 1 and 2: never terminated, keys 1 and 0
    std::promise<LockService::QueryResult> snapshot;
    auto asked = service.query(
        asker.handle(), [&](LockService::QueryResult r) { snapshot.set_value(std::move(r)); });
    ASSERT_TRUE(std::holds_alternative<bool>(asked));
    const auto state = snapshot.get_future().get();
    EXPECT_TRUE(state.held.empty()) << "storage key " << key;
    EXPECT_TRUE(state.pending.empty()) << "storage key " << key;
  }
  for (auto& loop : loops) loop->stop();
}

}  // namespace
}  // namespace lockstep::impl
