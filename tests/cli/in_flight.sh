#!/usr/bin/env bash
# Traces in flight on one adapter server (serveAtOnce in a targets file): `fuzz --jobs N` hands a
# server that takes T traces at once up to T of them, each request with an "id", in ceil(N / T)
# processes, and the campaign is the one run a trace at a time (the same summary.json, kept and
# shrunk traces), however the answers come back. A server that ends, or answers what lockstep
# cannot place, fails every trace in flight on it, and the campaign goes on; one stopped by
# SIGTERM with traces in flight resumes to the same campaign.
# Usage: in_flight.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
toy=$root/tests/toy-target
serve="python3 $toy/serve-impl.py $lockstep"
cat > "$tmp/targets.json" <<JSON
{"targets": {
  "wrong": {"profile": "locks",
    "command": "bash $toy/shared-granted-as-exclusive.sh $lockstep {trace} {log}",
    "serve": "$serve --wrong-shared --stagger --record $tmp/record", "serveAtOnce": 4},
  "quitter": {"profile": "locks", "command": "false {trace} {log}",
    "serve": "$serve --give-up-after 2 --stagger", "serveAtOnce": 3},
  "garbler": {"profile": "locks", "command": "false {trace} {log}",
    "serve": "$serve --garble", "serveAtOnce": 3},
  "slow": {"profile": "locks",
    "command": "bash $toy/shared-granted-as-exclusive.sh $lockstep {trace} {log}",
    "serve": "$serve --wrong-shared --delay 0.5", "serveAtOnce": 4}}}
JSON
campaign=(fuzz --targets "$tmp/targets.json" --target wrong --seed 100 --steps 25 --count 16 --shrink 2 --reruns 1)

# --jobs 1: one trace at a time, requests without an id.
check 1 "--jobs 1" "$lockstep" "${campaign[@]}" --jobs 1 --out "$tmp/one"
summary "$tmp/one" "s['notAllowed'] >= 3 and sum('minimal' in f for f in s['failures']) == 2" \
  || { echo "FAIL the reference campaign has too few failures to tell orders apart"; fail=1; }
! grep -q start "$tmp/record" 2>/dev/null || { echo "FAIL --jobs 1 sent requests with ids"; fail=1; }

# --jobs 4: four in flight on one server, answered out of order; no shards.
check 1 "--jobs 4" "$lockstep" "${campaign[@]}" --jobs 4 --out "$tmp/four"
same_as "$tmp/one" "$tmp/four" "--jobs 4 on one server"
[ ! -e "$tmp/four/shards" ] || { echo "FAIL --jobs 4 within serveAtOnce 4 ran in shards"; fail=1; }
python3 - "$tmp/record" <<'PY' || { echo "FAIL --jobs 4: the server never had several traces in flight, or answered in order"; cat "$tmp/record"; fail=1; }
import sys
lines = [l.split() for l in open(sys.argv[1])]
in_flight, most, ends = set(), 0, []
for what, ticket in lines:
    (in_flight.add if what == "start" else in_flight.discard)(ticket)
    most = max(most, len(in_flight))
    if what == "end":
        ends.append(int(ticket))
assert 2 <= most <= 4, most
assert ends != sorted(ends), ends
PY

# --jobs 8: two servers of four, in shards merged into OUT.
check 1 "--jobs 8" "$lockstep" "${campaign[@]}" --jobs 8 --out "$tmp/eight"
same_as "$tmp/one" "$tmp/eight" "--jobs 8 in two shards of four"
[ "$(ls "$tmp/eight/shards" 2>&1 | tr '\n' ' ')" = "0-of-2 1-of-2 " ] \
  || { echo "FAIL --jobs 8 with serveAtOnce 4: shards $(ls "$tmp/eight/shards" 2>&1)"; fail=1; }

# A shard takes what its server takes at once, and no more.
check 1 "--shard 0/2 --jobs 4" "$lockstep" "${campaign[@]}" --shard 0/2 --jobs 4 --out "$tmp/shard"
expect 2 "lockstep: fuzz --shard: --jobs 5 would need 2 processes, and a shard is one: give --jobs at most what the target's server takes at once (serveAtOnce in its targets file)" \
  "--shard with --jobs over serveAtOnce" "$lockstep" "${campaign[@]}" --shard 0/2 --jobs 5 --out "$tmp/bad"

# A server that ends with traces in flight fails each of them, with its last words, and is
# started again for the next traces: every trace is accounted for.
check 1 "quitter" "$lockstep" fuzz --targets "$tmp/targets.json" --target quitter --count 9 --seed 3 --jobs 3 --reruns 0 --out "$tmp/quitter"
summary "$tmp/quitter" "s['traces'] == 9 and s['adapterFailures'] >= 1 and s['allowed'] >= 2 and all('toy server gives up after 2 answers' in f['message'] for f in s['failures'])" \
  || { echo "FAIL quitter: the traces in flight on a server that ended are not failed with its words"; cat "$tmp/quitter/summary.json"; fail=1; }
check 1 "garbler" "$lockstep" fuzz --targets "$tmp/targets.json" --target garbler --count 3 --seed 3 --jobs 3 --reruns 0 --out "$tmp/garbler"
summary "$tmp/garbler" "s['traces'] == 3 and s['adapterFailures'] == 3 and 'not {\"id\", \"exit\", \"message\"} of a trace in flight: not json' in s['failures'][0]['message']" \
  || { echo "FAIL garbler: an answer that names no trace in flight does not fail them"; cat "$tmp/garbler/summary.json"; fail=1; }

# Stopped by SIGTERM with traces in flight, then resumed: the campaign run without a stop.
slow=(fuzz --targets "$tmp/targets.json" --target slow --seed 100 --steps 25 --count 12 --shrink 0 --reruns 0)
check 1 "slow at once" "$lockstep" "${slow[@]}" --jobs 1 --out "$tmp/slow"
stopped_and_resumed "$tmp/slow" "$tmp/stopped" 3 12 "--jobs 4 with traces in flight" "${slow[@]}" --jobs 4
echo "in-flight: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
