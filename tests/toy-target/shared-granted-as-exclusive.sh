#!/usr/bin/env bash
# A deliberately buggy "implementation" for lockstep shrink's tests: the impl engine, except that
# the Lock a shared request's callback receives says mode "exclusive" (as an engine that drops the
# mode would). Usage: shared-granted-as-exclusive.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
"$lockstep" run --engine impl "$trace" -o "$log.raw"
sed -E 's/("lock": \{"name": "[^"]*", "mode": )"shared"/\1"exclusive"/' "$log.raw" > "$log"
rm -f "$log.raw"
