// Four tabs of one origin, each with its own event loop on its own thread, share two locks through
// impl/'s embedder API (lockstep/impl/lock_service.h):
// - "leader": every tab asks for it and keeps it while open, so exactly one tab leads and, when it
//   closes (its agent is terminated), the next tab in the queue takes over;
// - "counter": each tab adds to a plain, unsynchronized counter 1,000 times, each time under the
//   exclusive lock, so no update is lost.
// Then a query shows the lock state from one tab. Exits 0 when the counter and the succession of
// leaders come out as the spec says they must.
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "event_loop.h"
#include "lockstep/impl/lock_service.h"

using lockstep::examples::EventLoop;
using lockstep::impl::AgentHandle;
using lockstep::impl::LockService;
using lockstep::impl::Mode;
using lockstep::impl::RequestHandle;

namespace {

constexpr int kTabs = 4;
constexpr int kIncrements = 1000;

// Unwraps a ServiceResult, or stops the program with the service's message.
template <class T>
T expect(lockstep::impl::ServiceResult<T> result) {
  if (auto* error = std::get_if<lockstep::impl::ServiceError>(&result)) {
    std::fprintf(stderr, "lock service: %s\n", error->message.c_str());
    std::exit(1);
  }
  return std::get<T>(result);
}

struct Tab {
  std::string id;
  EventLoop loop;
  AgentHandle agent;
};

class Demo {
 public:
  explicit Demo(LockService& service) : service_(service) {
    for (int i = 0; i < kTabs; ++i) {
      auto tab = std::make_unique<Tab>();
      tab->id = "tab-" + std::to_string(i);
      Tab* t = tab.get();
      t->agent = expect(
          service_.register_agent({"https://app.example", t->id, [t](std::function<void()> task) {
                                     t->loop.post(std::move(task));
                                   }}));
      tabs_.push_back(std::move(tab));
    }
  }

  // Every tab queues for "leader" in order; the first is granted at once.
  void elect() {
    for (auto& tab : tabs_) {
      Tab* t = tab.get();
      std::promise<void> asked;
      t->loop.post([&, t] {
        LockService::RequestCallbacks callbacks;
        callbacks.granted = [this, t](RequestHandle) {
          std::lock_guard guard(mutex_);
          leaders_.push_back(t->id);
          std::printf("%s leads\n", t->id.c_str());
        };
        expect(service_.request(t->agent, "leader", {}, callbacks));
        asked.set_value();
      });
      asked.get_future().wait();  // so that the queue order is tab-0, tab-1, ...
    }
  }

  // Each tab: kIncrements times, take "counter", add one, release.
  void count() {
    std::vector<std::future<void>> finished;
    for (auto& tab : tabs_) {
      auto done = std::make_shared<std::promise<void>>();
      finished.push_back(done->get_future());
      Tab* t = tab.get();
      t->loop.post([this, t, done] { increment(t, kIncrements, done); });
    }
    for (auto& f : finished) f.wait();
  }

  // The leader closes: its agent ends, its lock goes to the next in line.
  void close_tab(int i) {
    std::promise<void> closed;
    tabs_[i]->loop.post([&] {
      expect(service_.terminate(tabs_[i]->agent));
      std::printf("%s closed\n", tabs_[i]->id.c_str());
      closed.set_value();
    });
    closed.get_future().wait();
  }

  LockService::QueryResult query(int i) {
    std::promise<LockService::QueryResult> result;
    expect(service_.query(tabs_[i]->agent,
                          [&](LockService::QueryResult r) { result.set_value(std::move(r)); }));
    return result.get_future().get();
  }

  // Waits until tab i's loop has run every task queued on it so far.
  void drain(int i) {
    std::promise<void> reached;
    tabs_[i]->loop.post([&] { reached.set_value(); });
    reached.get_future().wait();
  }

  long counter() const { return counter_; }
  std::vector<std::string> leaders() {
    std::lock_guard guard(mutex_);
    return leaders_;
  }
  Tab& tab(int i) { return *tabs_[i]; }

 private:
  void increment(Tab* t, int left, std::shared_ptr<std::promise<void>> done) {
    if (left == 0) {
      done->set_value();
      return;
    }
    LockService::RequestCallbacks callbacks;
    callbacks.granted = [this, t, left, done](RequestHandle lock) {
      ++counter_;  // safe only because the lock is exclusive
      expect(service_.release(lock));
      increment(t, left - 1, done);
    };
    expect(service_.request(t->agent, "counter", {}, callbacks));
  }

  LockService& service_;
  std::vector<std::unique_ptr<Tab>> tabs_;
  long counter_ = 0;  // deliberately not atomic
  std::mutex mutex_;
  std::vector<std::string> leaders_;
};

void print_state(const LockService::QueryResult& state) {
  for (const auto& e : state.held)
    std::printf("  held    %-8s %-9s by %s\n", e.name.c_str(),
                e.mode == Mode::Exclusive ? "exclusive" : "shared", e.client_id.c_str());
  for (const auto& e : state.pending)
    std::printf("  pending %-8s %-9s by %s\n", e.name.c_str(),
                e.mode == Mode::Exclusive ? "exclusive" : "shared", e.client_id.c_str());
}

}  // namespace

int main() {
  LockService service;
  Demo demo(service);
  demo.elect();
  demo.count();
  std::printf("counter = %ld (expected %d)\n", demo.counter(), kTabs * kIncrements);
  std::printf("lock state seen from tab-3:\n");
  print_state(demo.query(3));
  demo.close_tab(0);
  demo.close_tab(1);
  demo.drain(2);  // the grant to tab-2 was queued on its loop when tab-1 closed
  const auto state = demo.query(3);
  std::printf("after two tabs closed:\n");
  print_state(state);

  const std::vector<std::string> expected_leaders{"tab-0", "tab-1", "tab-2"};
  const bool ok = demo.counter() == kTabs * kIncrements && demo.leaders() == expected_leaders &&
                  state.held.size() == 1 && state.held[0].client_id == "tab-2" &&
                  state.pending.size() == 1 && state.pending[0].client_id == "tab-3";
  for (int i = 0; i < kTabs; ++i) demo.tab(i).loop.stop();
  std::printf(ok ? "ok\n" : "UNEXPECTED\n");
  return ok ? 0 : 1;
}
