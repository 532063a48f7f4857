// Web Locks workloads, each on the spec model (driven as a trace would, see spec_driver.h) and on
// impl's LockManager core, registered as BM_<Workload>/spec/... next to BM_<Workload>/impl/...
// The same workloads run on Node.js in bench/node/locks_bench.mjs. One "op" is named per workload.
#include <deque>
#include <memory>

#include "bench_common.h"
#include "lockstep/impl/lock_manager.h"
#include "spec_driver.h"

namespace lockstep::bench {
namespace {

using impl::LockManager;
using impl::Mode;
using impl::Ticket;

// Remembers the last grant, and counts grants and steals.
struct Recorder final : LockManager::Observer {
  Ticket last{};
  std::int64_t grants = 0;
  std::int64_t steals = 0;
  void granted(Ticket ticket, void*) override {
    last = ticket;
    ++grants;
  }
  void stolen(Ticket, void*) override { ++steals; }
};

spec::LockOptions shared_mode() {
  spec::LockOptions options;
  options.mode = LockMode::Shared;
  return options;
}

// ---- Uncontended cycle. op: request + grant + release of one exclusive lock on a free name.

void cycle_impl(benchmark::State& state) {
  Recorder recorder;
  LockManager manager(recorder);
  const auto agent = manager.add_agent("A");
  for (auto _ : state) {
    const auto result = manager.request(agent, "a", Mode::Exclusive, {}, nullptr);
    manager.release(result.ticket);
  }
  if (recorder.grants != state.iterations()) state.SkipWithError("a request was not granted");
  count_ops(state, 1);
}

void cycle_spec(benchmark::State& state) {
  SpecModel model;
  auto* agent = model.add_agent("A");
  for (auto _ : state) model.request(agent, "a", {}, /*hold=*/false);
  count_ops(state, 1);
}

// ---- Queue depth. One name; one holder and `depth` requests waiting behind it. op: the holder
// releases (the front request is granted and becomes the holder) and one new request joins the
// back, so the depth stays the same throughout.

void queue_depth_impl(benchmark::State& state) {
  const auto depth = state.range(0);
  Recorder recorder;
  LockManager manager(recorder);
  const auto agent = manager.add_agent("A");
  Ticket holder = manager.request(agent, "q", Mode::Exclusive, {}, nullptr).ticket;
  for (std::int64_t i = 0; i < depth; ++i)
    manager.request(agent, "q", Mode::Exclusive, {}, nullptr);
  for (auto _ : state) {
    manager.release(holder);
    holder = recorder.last;
    manager.request(agent, "q", Mode::Exclusive, {}, nullptr);
  }
  if (manager.pending_count() != static_cast<std::size_t>(depth) || manager.held_count() != 1)
    state.SkipWithError("the queue depth changed");
  count_ops(state, 1);
}

void queue_depth_spec(benchmark::State& state) {
  const auto depth = state.range(0);
  SpecModel model;
  auto* agent = model.add_agent("A");
  std::size_t holder = model.request(agent, "q");
  std::deque<std::size_t> waiting;
  for (std::int64_t i = 0; i < depth; ++i) waiting.push_back(model.request(agent, "q"));
  for (auto _ : state) {
    model.release(holder);
    holder = waiting.front();
    waiting.pop_front();
    waiting.push_back(model.request(agent, "q"));
  }
  if (!model.granted(holder)) state.SkipWithError("the next request was not granted");
  count_ops(state, 1);
}

// ---- Distinct names. op: request + grant of a lock on a name nobody uses, all N held at once,
// then the release of each (N ops per iteration, N names per manager).

void distinct_names_impl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  std::vector<Ticket> held(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto recorder = std::make_unique<Recorder>();
    auto manager = std::make_unique<LockManager>(*recorder);
    const auto agent = manager->add_agent("A");
    state.ResumeTiming();
    for (std::size_t i = 0; i < n; ++i)
      held[i] = manager->request(agent, keys[i], Mode::Exclusive, {}, nullptr).ticket;
    for (std::size_t i = 0; i < n; ++i) manager->release(held[i]);
    state.PauseTiming();
    if (recorder->grants != state.range(0)) state.SkipWithError("a request was not granted");
    manager.reset();
    state.ResumeTiming();
  }
  count_ops(state, state.range(0));
}

void distinct_names_spec(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  std::vector<std::size_t> held(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto model = std::make_unique<SpecModel>();
    auto* agent = model->add_agent("A");
    state.ResumeTiming();
    for (std::size_t i = 0; i < n; ++i) held[i] = model->request(agent, keys[i]);
    for (std::size_t i = 0; i < n; ++i) model->release(held[i]);
    state.PauseTiming();
    model.reset();
    state.ResumeTiming();
  }
  count_ops(state, state.range(0));
}

// ---- Shared readers with a writer in the queue. R shared locks held; an exclusive request
// queues; R more shared requests queue behind it (they must not overtake the writer). Then the
// first readers release (the writer is granted), the writer releases (the late readers are
// granted together) and they release. op: one of the 2R+1 request + grant + release.

void readers_writer_impl(benchmark::State& state) {
  const auto readers = state.range(0);
  Recorder recorder;
  LockManager manager(recorder);
  const auto agent = manager.add_agent("A");
  std::vector<Ticket> first(readers), late(readers);
  for (auto _ : state) {
    for (auto& t : first) t = manager.request(agent, "rw", Mode::Shared, {}, nullptr).ticket;
    const Ticket writer = manager.request(agent, "rw", Mode::Exclusive, {}, nullptr).ticket;
    for (auto& t : late) t = manager.request(agent, "rw", Mode::Shared, {}, nullptr).ticket;
    for (auto t : first) manager.release(t);
    if (!manager.holds(writer) || manager.holds(late[0])) state.SkipWithError("writer overtaken");
    manager.release(writer);
    for (auto t : late) manager.release(t);
  }
  count_ops(state, 2 * readers + 1);
}

void readers_writer_spec(benchmark::State& state) {
  const auto readers = state.range(0);
  SpecModel model;
  auto* agent = model.add_agent("A");
  std::vector<std::size_t> first(readers), late(readers);
  for (auto _ : state) {
    for (auto& h : first) h = model.request(agent, "rw", shared_mode());
    const std::size_t writer = model.request(agent, "rw");
    for (auto& h : late) h = model.request(agent, "rw", shared_mode());
    for (auto h : first) model.release(h);
    if (!model.granted(writer) || model.granted(late[0])) state.SkipWithError("writer overtaken");
    model.release(writer);
    for (auto h : late) model.release(h);
  }
  count_ops(state, 2 * readers + 1);
}

// ---- Steal. op: one agent takes an exclusive lock, another steals it (the holder's lock leaves
// the held set, the stealer is granted), the stealer releases, and the stolen holder's release
// comes late (a no-op on the lock state).

void steal_impl(benchmark::State& state) {
  Recorder recorder;
  LockManager manager(recorder);
  const auto a = manager.add_agent("A");
  const auto b = manager.add_agent("B");
  impl::RequestFlags steal;
  steal.steal = true;
  for (auto _ : state) {
    const Ticket holder = manager.request(a, "s", Mode::Exclusive, {}, nullptr).ticket;
    const Ticket stealer = manager.request(b, "s", Mode::Exclusive, steal, nullptr).ticket;
    manager.release(stealer);
    manager.release(holder);
  }
  if (recorder.steals != state.iterations()) state.SkipWithError("a steal did not steal");
  count_ops(state, 1);
}

void steal_spec(benchmark::State& state) {
  SpecModel model;
  auto* a = model.add_agent("A");
  auto* b = model.add_agent("B");
  spec::LockOptions steal;
  steal.steal = true;
  for (auto _ : state) {
    const std::size_t holder = model.request(a, "s");
    model.request(b, "s", steal, /*hold=*/false);
    model.release(holder);
  }
  count_ops(state, 1);
}

// ---- Termination. Agent T holds N locks (N names); agent W waits for each of them. Timed: T
// terminates; its locks are released and W is granted all N. op: one lock handed over.

void terminate_impl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto recorder = std::make_unique<Recorder>();
    auto manager = std::make_unique<LockManager>(*recorder);
    const auto t = manager->add_agent("T");
    const auto w = manager->add_agent("W");
    for (std::size_t i = 0; i < n; ++i) manager->request(t, keys[i], Mode::Exclusive, {}, nullptr);
    for (std::size_t i = 0; i < n; ++i) manager->request(w, keys[i], Mode::Exclusive, {}, nullptr);
    recorder->grants = 0;
    state.ResumeTiming();
    manager->terminate(t);
    state.PauseTiming();
    if (recorder->grants != state.range(0) || manager->pending_count() != 0)
      state.SkipWithError("not handed");
    manager.reset();
    state.ResumeTiming();
  }
  count_ops(state, state.range(0));
}

void terminate_spec(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto model = std::make_unique<SpecModel>();
    auto* t = model->add_agent("T", AgentKind::Worker);
    auto* w = model->add_agent("W");
    for (std::size_t i = 0; i < n; ++i) model->request(t, keys[i]);
    std::vector<std::size_t> waiting(n);
    for (std::size_t i = 0; i < n; ++i) waiting[i] = model->request(w, keys[i]);
    state.ResumeTiming();
    model->terminate(t);
    state.PauseTiming();
    if (!model->granted(waiting.back())) state.SkipWithError("not handed over");
    model.reset();
    state.ResumeTiming();
  }
  count_ops(state, state.range(0));
}

// ---- Query. N locks held (N names) and N requests pending (one behind each). op: one snapshot
// of the lock state (2N entries).

void query_impl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  Recorder recorder;
  LockManager manager(recorder);
  const auto a = manager.add_agent("A");
  const auto b = manager.add_agent("B");
  for (std::size_t i = 0; i < n; ++i) manager.request(a, keys[i], Mode::Exclusive, {}, nullptr);
  for (std::size_t i = 0; i < n; ++i) manager.request(b, keys[i], Mode::Exclusive, {}, nullptr);
  for (auto _ : state) {
    auto snapshot = manager.snapshot();
    benchmark::DoNotOptimize(snapshot);
    if (snapshot.held.size() != n || snapshot.pending.size() != n) state.SkipWithError("bad size");
  }
  count_ops(state, 1);
}

void query_spec(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  SpecModel model;
  auto* a = model.add_agent("A");
  auto* b = model.add_agent("B");
  for (std::size_t i = 0; i < n; ++i) model.request(a, keys[i]);
  for (std::size_t i = 0; i < n; ++i) model.request(b, keys[i]);
  for (auto _ : state) {
    auto* promise = model.query(a);
    if (promise->state != spec::Promise::State::Fulfilled) state.SkipWithError("not fulfilled");
  }
  count_ops(state, 1);
}

[[maybe_unused]] const bool registered = [] {
  using benchmark::RegisterBenchmark;
  as_spec(RegisterBenchmark("BM_Cycle/spec", cycle_spec), 20'000);
  as_impl(RegisterBenchmark("BM_Cycle/impl", cycle_impl));
  for (std::int64_t depth : {1, 10, 100, 1'000, 10'000, 100'000}) {
    as_spec(RegisterBenchmark("BM_QueueDepth/spec", queue_depth_spec)->Arg(depth), 20'000);
    as_impl(RegisterBenchmark("BM_QueueDepth/impl", queue_depth_impl)->Arg(depth));
  }
  for (std::int64_t n : {1'000, 10'000, 100'000}) {
    as_spec(RegisterBenchmark("BM_DistinctNames/spec", distinct_names_spec)->Arg(n),
            n >= 10'000 ? 1 : 5);
    as_impl(RegisterBenchmark("BM_DistinctNames/impl", distinct_names_impl)->Arg(n));
  }
  as_spec(RegisterBenchmark("BM_ReadersWriter/spec", readers_writer_spec)->Arg(1'000), 5);
  as_impl(RegisterBenchmark("BM_ReadersWriter/impl", readers_writer_impl)->Arg(1'000));
  as_spec(RegisterBenchmark("BM_Steal/spec", steal_spec), 10'000);
  as_impl(RegisterBenchmark("BM_Steal/impl", steal_impl));
  as_spec(RegisterBenchmark("BM_Terminate/spec", terminate_spec)->Arg(10'000), 1);
  as_impl(RegisterBenchmark("BM_Terminate/impl", terminate_impl)->Arg(10'000));
  as_spec(RegisterBenchmark("BM_Query/spec", query_spec)->Arg(10'000), 10);
  as_impl(RegisterBenchmark("BM_Query/impl", query_impl)->Arg(10'000));
  return true;
}();

}  // namespace
}  // namespace lockstep::bench
