#!/usr/bin/env bash
# CI's fuzz smoke (scripts/test.sh runs it after the three presets): builds the `fuzz` preset
# (clang, libFuzzer, ASan + UBSan) and runs each target from its seeds with the JSON dictionary for
# LOCKSTEP_FUZZ_SECONDS seconds (default 20), one after the other. A crash, a sanitizer report, a
# finding or a hang fails it; the input is kept as build-fuzz/fuzz/findings/<target>/crash-* (and
# the run's output as build-fuzz/fuzz/<target>.log). Without clang++ and libFuzzer's runtime it says
# so and passes: the GCC build's ctest still replays the seeds (fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${LOCKSTEP_FUZZ_SECONDS:-20}
jobs=${LOCKSTEP_FUZZ_JOBS:-$(nproc)}
targets=(trace_reader log_reader check replay)

# libFuzzer's runtime is a package of its own on Debian (libclang-rt-dev): try linking a target.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
if ! command -v clang++ >/dev/null 2>&1 ||
   ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>/dev/null; then
  echo "fuzz smoke: skipped: no clang++ with libFuzzer here (Debian: clang, libclang-rt-dev)"
  exit 0
fi

start=$SECONDS
cmake --preset fuzz
cmake --build --preset fuzz -j "$jobs"
echo "fuzz smoke: built in $((SECONDS - start)) s"
out=build-fuzz/fuzz
bash fuzz/make_seed_corpus.sh "$out/seeds"

option() {  # option TARGET NAME: its value in fuzz/TARGET.options
  sed -n "s/^ *$2 *= *//p" "fuzz/$1.options"
}

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
for t in "${targets[@]}"; do
  # New inputs go to corpus/<target>, kept between local runs (build-fuzz/ is not in git); the
  # seeds are read only.
  mkdir -p "$out/corpus/$t" "$out/findings/$t"
  echo "== fuzz $t (${seconds} s)"
  if "$out/$t" -max_total_time="$seconds" -max_len="$(option "$t" max_len)" \
       -timeout="$(option "$t" timeout)" -dict=fuzz/json.dict -print_final_stats=1 \
       -artifact_prefix="$out/findings/$t/" "$out/corpus/$t" "$out/seeds/$t" > "$out/$t.log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec)' "$out/$t.log"
  else
    tail -n 60 "$out/$t.log"
    newest=$(ls -t "$out/findings/$t" | head -n 1)
    echo "fuzz smoke: $t FAILED; the input: $out/findings/$t/${newest:-(none kept)}"
    failed+=("$t")
  fi
done
echo "fuzz smoke: $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke: findings in ${failed[*]} (reproduce: build-fuzz/fuzz/<target> <input>)"
  exit 1
fi
