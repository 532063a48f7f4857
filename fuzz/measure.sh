#!/usr/bin/env bash
# Measures the fuzz targets for fuzz/README.md's table: each target in turn, from its seeds with
# the JSON dictionary and a fresh corpus, for RUNS executions (default 1000000: -runs=1000000) or,
# with --seconds S, for S seconds; prints one table row per target (executions, exec/s, the final
# "cov:" and "ft:", wall time, result). Builds the `fuzz` preset first. With --keep-going
# (-fork=1 -ignore_crashes=1), a crash does not end the run; the row counts the crashes, and its
# figures are libFuzzer's fork-mode totals (its cov: there also counts the inline counters of
# every job, so it is larger than a plain run's). Logs and crash inputs: build-fuzz/fuzz/measure/.
#   nice -n 10 bash fuzz/measure.sh                 # the 10^6-execution runs
#   nice -n 10 bash fuzz/measure.sh --seconds 90 check
set -euo pipefail
cd "$(dirname "$0")/.."
limit=(-runs=1000000)
keep_going=()
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) limit=(-runs="$2"); shift 2 ;;
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --keep-going) keep_going=(-fork=1 -ignore_crashes=1); shift ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(trace_reader log_reader check replay)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2 >/dev/null
out=build-fuzz/fuzz
bash fuzz/make_seed_corpus.sh "$out/seeds" >/dev/null
option() {  # option TARGET NAME: its value in fuzz/TARGET.options
  sed -n "s/^ *$2 *= *//p" "fuzz/$1.options"
}

echo "| target | executions | exec/s | cov | ft | time | result |"
echo "|---|---|---|---|---|---|---|"
for t in "${targets[@]}"; do
  dir=$out/measure/$t
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/findings"
  begin=$SECONDS
  status=0
  "$out/$t" "${limit[@]}" "${keep_going[@]}" -max_len="$(option "$t" max_len)" \
    -timeout="$(option "$t" timeout)" -dict=fuzz/json.dict -print_final_stats=1 \
    -artifact_prefix="$dir/findings/" "$dir/corpus" "$out/seeds/$t" > "$dir/log" 2>&1 || status=$?
  time=$((SECONDS - begin))
  crashes=$(find "$dir/findings" -type f | wc -l)
  if [ ${#keep_going[@]} -gt 0 ]; then
    # "#768812: cov: 5489 ft: 7604 corp: 995 exec/s 10776 oom/timeout/crash: 0/0/5 time: 61s ..."
    last=$(grep -E '^#[0-9]+: cov:' "$dir/log" | tail -n 1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
    rate=$(( time > 0 ? execs / time : execs ))
  else
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$dir/log" | tail -n 1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
    [ -n "$execs" ] || execs=$(sed -E 's/^#([0-9]+).*/\1/' <<< "$last")
    [ -n "$rate" ] || rate=$(( time > 0 ? execs / time : execs ))
  fi
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<< "$last")
  ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<< "$last")
  if [ "$crashes" -eq 0 ] && [ "$status" -eq 0 ]; then
    result="no finding"
  else
    result="$crashes finding(s), exit $status: $dir/findings/"
  fi
  echo "| $t | $execs | $rate | $cov | $ft | ${time} s | $result |"
done
