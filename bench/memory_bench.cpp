// Bytes per held lock and per pending request, counted by replacing the global operator new and
// delete in this binary: every heap block is accounted at its usable size (malloc_usable_size, so
// allocator rounding is included, allocator headers are not). Results are benchmark counters;
// the time columns of this binary mean nothing.
//
// - impl: the LockManager core alone (what an embedder pays).
// - spec: the spec model driven directly (spec_driver.h): requests, locks, promises, reactions.
// - engine: a whole trace replay (make_impl_engine / make_spec_engine) of N held locks or N pending
//   requests, counted as the peak of live bytes during run() over what was live before, so it
//   includes each engine's runtime objects and the event log it builds.
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "bench_common.h"
#include "lockstep/impl/lock_manager.h"
#include "lockstep/impl_engine.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "spec_driver.h"

namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};

void* counted(std::size_t size, std::size_t alignment) {
  if (size == 0) size = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (!p) throw std::bad_alloc();
  const auto live = g_live.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p))) +
                    static_cast<std::int64_t>(malloc_usable_size(p));
  auto peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void uncounted(void* p) {
  if (!p) return;
  g_live.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t size) {
  return counted(size, 0);
}
void* operator new[](std::size_t size) {
  return counted(size, 0);
}
void* operator new(std::size_t size, std::align_val_t a) {
  return counted(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return counted(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
  uncounted(p);
}
void operator delete[](void* p) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::size_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  uncounted(p);
}

namespace lockstep::bench {
namespace {

struct Ignore final : impl::LockManager::Observer {
  void granted(impl::Ticket, void*) override {}
  void stolen(impl::Ticket, void*) override {}
};

void report(benchmark::State& state, const char* counter, std::int64_t bytes, std::int64_t n) {
  state.counters[counter] = static_cast<double>(bytes) / static_cast<double>(n);
  state.counters["n"] = static_cast<double>(n);
}

// N exclusive locks held on N names (impl core).
void held_impl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  for (auto _ : state) {
    Ignore ignore;
    impl::LockManager manager(ignore);
    const auto agent = manager.add_agent("A");
    const auto before = g_live.load();
    for (std::size_t i = 0; i < n; ++i)
      manager.request(agent, keys[i], impl::Mode::Exclusive, {}, nullptr);
    report(state, "bytes_per_held_lock", g_live.load() - before, state.range(0));
  }
}

// One lock held and N requests queued behind it on the same name (impl core).
void pending_impl(benchmark::State& state) {
  for (auto _ : state) {
    Ignore ignore;
    impl::LockManager manager(ignore);
    const auto agent = manager.add_agent("A");
    manager.request(agent, "q", impl::Mode::Exclusive, {}, nullptr);
    const auto before = g_live.load();
    for (std::int64_t i = 0; i < state.range(0); ++i)
      manager.request(agent, "q", impl::Mode::Exclusive, {}, nullptr);
    report(state, "bytes_per_pending_request", g_live.load() - before, state.range(0));
  }
}

void held_spec(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto& keys = names(n);
  for (auto _ : state) {
    SpecModel model;
    auto* agent = model.add_agent("A");
    model.request(agent, "warm", {}, /*hold=*/false);
    const auto before = g_live.load();
    for (std::size_t i = 0; i < n; ++i) model.request(agent, keys[i]);
    report(state, "bytes_per_held_lock", g_live.load() - before, state.range(0));
  }
}

void pending_spec(benchmark::State& state) {
  for (auto _ : state) {
    SpecModel model;
    auto* agent = model.add_agent("A");
    model.request(agent, "q");
    const auto before = g_live.load();
    for (std::int64_t i = 0; i < state.range(0); ++i) model.request(agent, "q");
    report(state, "bytes_per_pending_request", g_live.load() - before, state.range(0));
  }
}

// A trace of N requests from one window: on N names (all held) or on one name (one held, N - 1
// pending). Every callback returns a promise that never settles.
Trace hold_trace(std::size_t n, bool one_name) {
  std::string json =
      R"({"format": "lockstep-trace", "version": 1, "name": "memory", "agents": [)"
      R"({"id": "A", "kind": "window", "origin": "https://bench.test"}], "steps": [)";
  for (std::size_t i = 0; i < n; ++i) {
    json += i ? "," : "";
    json += R"({"agent": "A", "op": "request", "id": "r)" + std::to_string(i) + R"(", "name": ")" +
            (one_name ? std::string("q") : "n" + std::to_string(i)) +
            R"(", "callback": {"result": {"pending": true}}})";
  }
  json += "]}";
  auto trace = read_trace(json);
  if (!trace) std::abort();
  return std::move(trace.value());
}

template <bool OneName>
void engine_peak(benchmark::State& state, std::unique_ptr<Engine> (*make)()) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Trace trace = hold_trace(n, OneName);
  const auto engine = make();
  for (auto _ : state) {
    const auto before = g_live.load();
    g_peak.store(before);
    const RunOutcome outcome = engine->run(trace, {});
    if (!outcome.ok()) state.SkipWithError("the run failed");
    report(state, OneName ? "bytes_per_pending_request" : "bytes_per_held_lock",
           g_peak.load() - before, state.range(0));
    state.counters["log_bytes_per_request"] =
        static_cast<double>(write_log(outcome.result().log).size()) / static_cast<double>(n);
  }
}

void held_engine_impl(benchmark::State& s) {
  engine_peak<false>(s, make_impl_engine);
}
void held_engine_spec(benchmark::State& s) {
  engine_peak<false>(s, make_spec_engine);
}
void pending_engine_impl(benchmark::State& s) {
  engine_peak<true>(s, make_impl_engine);
}
void pending_engine_spec(benchmark::State& s) {
  engine_peak<true>(s, make_spec_engine);
}

[[maybe_unused]] const bool registered = [] {
  using benchmark::RegisterBenchmark;
  const auto once = [](benchmark::internal::Benchmark* b) {
    b->Iterations(1)->Repetitions(1)->Unit(benchmark::kMillisecond);
  };
  once(RegisterBenchmark("BM_MemHeldLock/spec", held_spec)->Arg(10'000));
  once(RegisterBenchmark("BM_MemHeldLock/impl", held_impl)->Arg(10'000));
  once(RegisterBenchmark("BM_MemHeldLock/impl", held_impl)->Arg(100'000));
  once(RegisterBenchmark("BM_MemPending/spec", pending_spec)->Arg(100'000));
  once(RegisterBenchmark("BM_MemPending/impl", pending_impl)->Arg(100'000));
  once(RegisterBenchmark("BM_MemEngineHeldLock/spec", held_engine_spec)->Arg(10'000));
  once(RegisterBenchmark("BM_MemEngineHeldLock/impl", held_engine_impl)->Arg(10'000));
  once(RegisterBenchmark("BM_MemEnginePending/spec", pending_engine_spec)->Arg(10'000));
  once(RegisterBenchmark("BM_MemEnginePending/impl", pending_engine_impl)->Arg(10'000));
  return true;
}();

}  // namespace
}  // namespace lockstep::bench
