#!/usr/bin/env bash
# Runs run.mjs on the Deno that npm installs here (`npm ci` in this folder, which
# scripts/install-deps.sh --for-tests does), with only the permissions it needs and without
# Deno's update check (which would use the network).  Usage: run.sh TRACE LOG
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
deno="${LOCKSTEP_DENO:-$here/node_modules/@deno/linux-x64-glibc/deno}"
if [ ! -x "$deno" ]; then
  echo "$deno is not installed: scripts/install-deps.sh --for-tests installs it" >&2
  exit 1
fi
export DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
exec "$deno" run --no-remote --no-npm --allow-read --allow-write \
  --allow-env=LOCKSTEP_QUIET_MS,LOCKSTEP_SETTLE_LIMIT_MS,LOCKSTEP_SETTLE_SCALE,LOCKSTEP_STEP_MS,LOCKSTEP_SLOT_MS "$here/run.mjs" "$@"
