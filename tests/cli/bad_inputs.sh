#!/usr/bin/env bash
# Every file in the bad-input folder makes `lockstep validate` and `lockstep run` exit 2 with the
# JSON pointer named in its .expect file on stderr; none may crash. Sizes too large to commit are
# made here.
set -u
lockstep=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import json, sys, os
tmp = sys.argv[1]
agents = [{"id": "A", "kind": "window", "origin": "https://a.test"}]
def write(name, doc, expect):
    with open(os.path.join(tmp, name + ".trace.json"), "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    with open(os.path.join(tmp, name + ".expect"), "w") as f:
        f.write(expect)
write("huge-name", {"format": "lockstep-trace", "version": 1, "agents": agents,
                    "steps": [{"agent": "A", "op": "request", "id": "r", "name": "n" * (10 << 20)}]},
      "/steps/0/name")
write("million-agents", '{"format": "lockstep-trace", "version": 1, "agents": [' +
      ",".join('{"id": "a%d", "kind": "window", "origin": "o"}' % i for i in range(1000000)) + '], "steps": []}',
      "/agents")
write("deep-values", '{"format": "lockstep-trace", "version": 1, "agents": [{"id": "A", "kind": "window", "origin": "o"}], "steps": [{"agent": "A", "op": "newPromise", "id": "p"}, {"agent": "A", "op": "settle", "target": "p", "outcome": "fulfill", "value": ' + "[" * 100000 + "]" * 100000 + "}]}",
      "nested deeper")
PY

failures=0
count=0
for trace in "$dir"/*.trace.json "$tmp"/*.trace.json; do
  [ -e "$trace" ] || continue
  count=$((count + 1))
  expect=$(cat "${trace%.trace.json}.expect")
  cmds="validate run"
  case "$(basename "$trace")" in run-*) cmds="run" ;; esac  # valid traces that only replay refuses
  for cmd in $cmds; do
    "$lockstep" "$cmd" "$trace" >/dev/null 2>"$tmp/stderr"
    code=$?
    if [ "$code" -ne 2 ]; then
      echo "FAIL $cmd $(basename "$trace"): exit $code, expected 2"; cat "$tmp/stderr"; failures=$((failures + 1))
    elif ! grep -qF -- "$expect" "$tmp/stderr"; then
      echo "FAIL $cmd $(basename "$trace"): stderr lacks '$expect':"; cat "$tmp/stderr"; failures=$((failures + 1))
    elif ! grep -qF -- "$(basename "$trace")" "$tmp/stderr"; then
      echo "FAIL $cmd $(basename "$trace"): stderr does not name the file"; failures=$((failures + 1))
    fi
  done
done
echo "bad inputs: $count files, $failures failures"
[ "$count" -gt 0 ] && [ "$failures" -eq 0 ]
