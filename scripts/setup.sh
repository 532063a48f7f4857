#!/usr/bin/env bash
# The main job: install, build (release preset), replay every corpus trace against its expected
# log, and print the spec-step coverage and a one-line summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
./build/lockstep corpus traces/corpus --coverage
