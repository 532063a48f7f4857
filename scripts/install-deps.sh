#!/usr/bin/env bash
# Installs what lockstep builds and tests with, from Debian's packages. Idempotent.
# --with-browser adds headless Chromium and a font, which the tests open `lockstep render`'s
# pages in (scripts/test.sh passes it; building and the corpus do not need it).
set -euo pipefail
packages=(
  build-essential cmake ninja-build clang-format python3 python3-jsonschema
  nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
)
if [ "${1:-}" = "--with-browser" ]; then
  packages+=(chromium fonts-dejavu-core)
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
