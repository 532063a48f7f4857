#!/usr/bin/env bash
# Campaign throughput: traces a second of `lockstep fuzz --target T --jobs J` for J in 1 2 4 8
# (--count COUNT traces from seed 1, --shrink 0), side by side in one run, and the ratio to
# --jobs 1. Prints a markdown table for docs/performance.md; each run's folder is kept under
# build/bench/throughput/T-jJ. Usage: bench/campaign_throughput.sh [--count N] [--jobs "1 2 4 8"]
# [TARGET ...] (default: node chromium firefox)
set -euo pipefail
cd "$(dirname "$0")/.."
count=32
jobs_list="1 2 4 8"
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --jobs) jobs_list=$2; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(node chromium firefox)
out=build/bench/throughput
mkdir -p "$out"
header="| target |"
rule="|---|"
for j in $jobs_list; do header+=" --jobs $j |"; rule+="---|"; done
echo "# $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg), $count traces a run"
echo "$header"
echo "$rule"
for t in "${targets[@]}"; do
  row="| $t |"
  base=""
  for j in $jobs_list; do
    rm -rf "$out/$t-j$j"
    start=$(date +%s.%N)
    build/lockstep fuzz --target "$t" --count "$count" --seed 1 --shrink 0 --jobs "$j" \
      --out "$out/$t-j$j" > /dev/null 2>&1 || [ $? -eq 1 ]
    rate=$(python3 -c "import sys; print('%.2f' % ($count / ($(date +%s.%N) - $start)))")
    [ -n "$base" ] || base=$rate
    row+=" $rate/s ($(python3 -c "print('%.1f' % ($rate / $base))")x) |"
  done
  echo "$row"
done
