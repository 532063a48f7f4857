#!/usr/bin/env bash
# A toy target that cannot express some traces, saying why as a runner does ("cannot express:
# REASON (DETAILS)", exit 4): one that queries, or else one that steals; the others it replays
# with the impl engine. For the tests of how `fuzz --target` counts the reasons.
# Usage: cannot-express-some.sh LOCKSTEP TRACE LOG
set -eu
lockstep=$1 trace=$2 log=$3
why=$(python3 - "$trace" <<'PY'
import json, sys
def actions(steps):
    for a in steps:
        yield a
        yield from actions(a.get("body", []))
        yield from actions((a.get("callback") or {}).get("body", []))
trace = json.load(open(sys.argv[1]))
every = list(actions(trace["steps"]))
query = next((a for a in every if a["op"] == "query"), None)
if query:
    print(f"it queries (agent {query.get('agent', '?')})")
elif any(a["op"] == "request" and (a.get("options") or {}).get("steal") for a in every):
    print("it steals")
PY
)
if [ -n "$why" ]; then
  echo "cannot express: $why" >&2
  exit 4
fi
exec "$lockstep" run --engine impl "$trace" -o "$log"
