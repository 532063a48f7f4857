#!/usr/bin/env bash
# A toy "implementation" whose logs need a search to judge: the impl engine's log with its events
# in reverse order (each agent's own order reversed, which no schedule gives once an agent logs two
# events). With a small check budget most of its traces are undecided, for the tests of what
# `fuzz --target` keeps of those. Usage: reverses-its-log.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
"$lockstep" run --engine impl "$trace" -o "$log.raw"
python3 - "$log.raw" "$log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
log["events"].reverse()
json.dump(log, open(sys.argv[2], "w"))
PY
rm -f "$log.raw"
