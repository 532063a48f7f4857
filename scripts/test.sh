#!/usr/bin/env bash
# The test suite: unit tests, corpus replays, CLI contract and properties, built and run under the
# release preset, again under ASan+UBSan (all but the real engines), and under ThreadSanitizer
# what runs on more than one thread (label "threads": the embedder API's stress tests and its
# example; the rest is single-threaded, where TSan has nothing to find); then a short run of each
# fuzz target under libFuzzer (fuzz/run_smoke.sh). Each stage's time is printed. Installs what it needs first (with headless
# Chromium and Node.js 26, which tests drive, and clang with libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --for-tests
jobs=$(nproc)
for preset in release asan tsan; do
  echo "== $preset =="
  start=$SECONDS
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  built=$SECONDS
  ctest --preset "$preset" -j "$jobs"
  echo "== $preset: built in $((built - start)) s, tested in $((SECONDS - built)) s"
done
echo "== fuzz smoke =="
bash fuzz/run_smoke.sh
