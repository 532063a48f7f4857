// Helpers shared by the benchmark files: registering spec/impl pairs side by side, counting
// operations, and the lock names the workloads use.
#pragma once

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::bench {

// Reports `ops` operations per iteration, so that Google Benchmark prints items_per_second (ops/s)
// and the JSON carries it; ns/op is 1e9 / items_per_second.
inline void count_ops(benchmark::State& state, std::int64_t ops_per_iteration) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * ops_per_iteration);
  state.counters["ops_per_iteration"] = static_cast<double>(ops_per_iteration);
}

// "n0", "n1", ...: the same strings for every workload, made once.
inline const std::vector<std::string>& names(std::size_t count) {
  static std::vector<std::string> all;
  while (all.size() < count) all.push_back("n" + std::to_string(all.size()));
  return all;
}

// The impl side is fast and noisy on a shared machine: repeat it and report the median. The spec
// side runs a fixed number of iterations once. The spec model never frees what it makes while a
// world lives, so its cost per op includes growing the heap; each spec benchmark starts from a
// trimmed heap (memory freed by earlier benchmarks handed back to the system), so that no spec
// benchmark runs faster for having come after another one.
inline benchmark::internal::Benchmark* as_impl(benchmark::internal::Benchmark* b) {
  return b->Repetitions(5)->DisplayAggregatesOnly(true);
}
inline benchmark::internal::Benchmark* as_spec(benchmark::internal::Benchmark* b,
                                               std::int64_t iterations) {
  return b->Repetitions(1)
      ->Iterations(iterations)
      ->Unit(benchmark::kMicrosecond)
      ->Setup([](const benchmark::State&) { malloc_trim(0); });
}

}  // namespace lockstep::bench
