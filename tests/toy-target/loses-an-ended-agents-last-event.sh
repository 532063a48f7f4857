#!/usr/bin/env bash
# A target that loses what an agent logged just before the trace ended it (as a worker's last
# messages can be lost when it is terminated): the impl engine's log without the last event of each
# agent the trace terminates or unloads. Nothing else is wrong, so `check --partial` allows its
# logs and plain `check` does not. Usage: loses-an-ended-agents-last-event.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
"$lockstep" run --engine impl "$trace" -o "$log.raw"
python3 - "$trace" "$log.raw" "$log" <<'PY'
import json, sys
trace, raw, out = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3])
ended = {s["agent"] for s in trace["steps"] if s.get("op") in ("terminate", "unload")}
events = raw["events"]
for agent in ended:
    last = max((i for i, e in enumerate(events) if e["agent"] == agent), default=None)
    if last is not None:
        events.pop(last)
json.dump(raw, open(out, "w"))
PY
rm -f "$log.raw"
