#!/usr/bin/env bash
# Builds the benchmark targets of the release preset (build/), runs the C++ benchmarks with JSON
# output into bench/results/, and measures whole-trace replay of a generated 10^5-step trace on
# both engines. Node's numbers come from bench/node/run.sh; the plot from bench/plot.py.
#
#   bench/run.sh              everything (about 5 minutes on 2 cores, most of it the spec model)
#   BENCH_FILTER=impl bench/run.sh    only benchmarks whose name matches (Google Benchmark regex)
#   REPLAY_STEPS=30000 bench/run.sh   a shorter replay trace (a prefix of the full one)
#   BUILD_DIR=/tmp/b JOBS=1 bench/run.sh   use another (configured, Release) build folder
#
# Results: bench/results/cpp.json, memory.json, replay.json (+ replay-hyperfine.json when
# hyperfine is installed). The numbers are only as quiet as the machine: close other work first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="$root/bench/results"
jobs="${JOBS:-2}"
mkdir -p "$results"

# BUILD_DIR: an already configured Release build to use instead of the preset's build/.
if [[ -n "${BUILD_DIR:-}" ]]; then
  build="$BUILD_DIR"
else
  build="$root/build"
  (cd "$root" && cmake --preset release >/dev/null)
fi
cmake --build "$build" --target lockstep_benchmarks -j "$jobs"

filter="${BENCH_FILTER:-.}"
"$build/bench/lockstep_bench" --benchmark_filter="$filter" \
  --benchmark_out="$results/cpp.json" --benchmark_out_format=json
"$build/bench/lockstep_memory_bench" --benchmark_filter="$filter" \
  --benchmark_out="$results/memory.json" --benchmark_out_format=json

# Whole-trace replay. The trace is regenerated (same seed, same trace) rather than kept in git.
steps="${REPLAY_STEPS:-100000}"
work="$build/bench/replay"
mkdir -p "$work"
trace="$work/replay-$steps.trace.json"
"$build/bench/lockstep_gen_replay_trace" --steps "$steps" -o "$trace"
"$build/lockstep" validate "$trace"

# End to end (read the trace, replay, write the log), as a user runs it.
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 1 --runs "${REPLAY_RUNS:-3}" --export-json "$results/replay-hyperfine.json" \
    "$build/lockstep run --engine impl $trace -o $work/impl.log.json" \
    "$build/lockstep run --engine spec $trace -o $work/spec.log.json"
else
  for engine in impl spec; do
    /usr/bin/time -f "$engine: %e s wall, %M KiB max RSS" \
      "$build/lockstep" run --engine "$engine" "$trace" -o "$work/$engine.log.json"
  done
fi
# Both engines must write the same log, byte for byte; failing that, event by event.
if cmp -s "$work/impl.log.json" "$work/spec.log.json"; then
  echo "replay: the spec and impl logs are identical"
else
  "$build/lockstep" run --engine spec "$trace" --expect "$work/impl.log.json" -o /dev/null
fi
# Engine only (the trace read once; run() timed per engine; logs compared again).
(cd "$work" && "$build/bench/lockstep_replay_time" "$(basename "$trace")" both) |
  tee "$results/replay.json"

echo "done: results in $results; next: bench/node/run.sh, then bench/plot.py --tables"
