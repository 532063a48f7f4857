#!/usr/bin/env bash
# A toy "implementation" whose failures are its settling's, not its own: run as fuzz --target runs
# a trace at first, it logs as shared-granted-as-exclusive.sh does (failures); run again with
# LOCKSTEP_SETTLE_SCALE above 1, as a failure's re-runs are, it logs the impl engine's own log
# (allowed). For the tests of what `fuzz --target --reruns` keeps as flaky.
# Usage: right-only-when-settled-longer.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
if [ "${LOCKSTEP_SETTLE_SCALE:-1}" != 1 ]; then
  exec "$lockstep" run --engine impl "$trace" -o "$log"
fi
exec bash "$(dirname "$0")/shared-granted-as-exclusive.sh" "$lockstep" "$trace" "$log"
