#!/usr/bin/env bash
# The test suite: unit tests, corpus replays, CLI contract and properties, built and run under the
# release preset, again under ASan+UBSan, and again under ThreadSanitizer; then a short run of each
# fuzz target under libFuzzer (fuzz/run_smoke.sh). Installs what it needs first (with headless
# Chromium and Node.js 26, which tests drive, and clang with libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --for-tests
jobs=$(nproc)
for preset in release asan tsan; do
  echo "== $preset =="
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
echo "== fuzz smoke =="
bash fuzz/run_smoke.sh
