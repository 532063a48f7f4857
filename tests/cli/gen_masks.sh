#!/usr/bin/env bash
# gen --without for what a Web Locks implementation may lack (shared, steal, ifAvailable, signal,
# query, invalid-arguments): no trace generated without a feature has it, while traces of the same
# seeds with everything have it (so the check can fail); masked traces replay; a misspelt
# capability is refused with the nearest one.
# Usage: gen_masks.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
gen=(gen --seed 1 --count 400 --steps 20 --profile locks)
check 0 "gen, everything" "$lockstep" "${gen[@]}"
cp "$tmp/out" "$tmp/all.jsonl"
for feature in shared steal ifAvailable signal query invalid-arguments; do
  check 0 "gen --without $feature" "$lockstep" "${gen[@]}" --without "$feature"
  python3 - "$feature" "$tmp/all.jsonl" "$tmp/out" <<'PY' || { echo "FAIL gen --without $feature"; fail=1; }
import json, sys
feature = sys.argv[1]
def actions(steps):
    for a in steps:
        yield a
        yield from actions(a.get("body", []))
        yield from actions((a.get("callback") or {}).get("body", []))
def has(a):
    o = a.get("options") or {}
    request = a["op"] == "request"
    return {
        "shared": request and o.get("mode") == "shared",
        "steal": request and bool(o.get("steal")),
        "ifAvailable": request and bool(o.get("ifAvailable")),
        "signal": request and "signal" in o,
        "query": a["op"] == "query",
        "invalid-arguments": request and (a.get("name", "").startswith("-") or
                                          (o.get("steal") and (o.get("ifAvailable") or "signal" in o))),
    }[feature]
def count(path):
    n = 0
    for line in open(path):
        trace = json.loads(line)
        n += any(has(a) for a in actions(trace["steps"]))
    return n
everything, masked = count(sys.argv[2]), count(sys.argv[3])
print(f"  {feature}: in {everything} of 400 traces, in {masked} with --without {feature}")
sys.exit(0 if everything >= 10 and masked == 0 else 1)
PY
done
# Several at once, as a target's "without" gives them; and the traces still validate and replay.
check 0 "gen --without several" "$lockstep" gen --seed 1 --count 40 --profile locks --without steal,ifAvailable,signal,invalid-arguments --out "$tmp/several"
for f in "$tmp"/several/*.trace.json; do
  "$lockstep" run "$f" -o /dev/null || { echo "FAIL a masked trace does not replay: $f"; fail=1; break; }
done
expect 2 'lockstep: gen --without: unknown capability "stael" (did you mean "steal"?)' "misspelt capability" \
  "$lockstep" gen --without stael
expect 2 "lockstep: gen --without: applies to random traces; --exhaustive enumerates every kind" \
  "--without with --exhaustive" "$lockstep" gen --exhaustive --without steal
echo "gen masks: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
