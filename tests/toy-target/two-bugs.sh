#!/usr/bin/env bash
# A deliberately buggy "implementation" with two bugs, for shrinking that must keep its bug: the
# impl engine, except that a shared request's Lock says mode "exclusive" (bug A) and a request
# rejected with an AbortError is rejected with a NotAllowedError instead (bug B).
# Usage: two-bugs.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
"$lockstep" run --engine impl "$trace" -o "$log.raw"
sed -E -e 's/("lock": \{"name": "[^"]*", "mode": )"shared"/\1"exclusive"/' \
  -e 's/("state": "rejected", "reason": \{"DOMException": )"AbortError"/\1"NotAllowedError"/' \
  "$log.raw" > "$log"
rm -f "$log.raw"
