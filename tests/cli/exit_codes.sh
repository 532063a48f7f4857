#!/usr/bin/env bash
# The CLI's exit codes: 0 success, 1 a log that differs from the expected one, 2 bad input.
source "$(dirname "$0")/common.sh" "$@"
trace=$root/traces/corpus/web-locks/basic-exclusive.trace.json
check 0 "run" "$lockstep" run "$trace"
check 0 "run --help" "$lockstep" run --help
check 0 "validate" "$lockstep" validate "$trace"
check 2 "missing file" "$lockstep" run "$tmp/none.json"
check 2 "unknown option" "$lockstep" run "$trace" --frobnicate
check 2 "no command" "$lockstep"
# A log that differs from the expectation exits 1 and says where.
sed 's/"value": 42/"value": 43/' "$root/traces/corpus/web-locks/basic-exclusive.log.json" > "$tmp/wrong.log.json"
check 1 "expect mismatch" "$lockstep" run "$trace" --expect "$tmp/wrong.log.json"
grep -q 'events\[2\]' "$tmp/err" || { echo "FAIL expect mismatch does not name events[2]"; fail=1; }
# -o writes the same log that stdout gets.
"$lockstep" run "$trace" > "$tmp/stdout.json"
"$lockstep" run "$trace" -o "$tmp/file.json"
cmp -s "$tmp/stdout.json" "$tmp/file.json" || { echo "FAIL -o differs from stdout"; fail=1; }
# --coverage reports on stderr and keeps stdout a clean log.
"$lockstep" run "$trace" --coverage > "$tmp/cov.json" 2> "$tmp/cov.err"
grep -q '^coverage: web-locks: ' "$tmp/cov.err" || { echo "FAIL --coverage prints no summary"; fail=1; }
cmp -s "$tmp/stdout.json" "$tmp/cov.json" || { echo "FAIL --coverage changed stdout"; fail=1; }
# fuzz: a short clean run exits 0 and leaves no counterexample; a wrong property name is bad input.
check 0 "fuzz" "$lockstep" fuzz --minutes 0.02 --seed 7 --cases 20 --out "$tmp/fuzz"
[ -z "$(ls -A "$tmp/fuzz")" ] || { echo "FAIL fuzz left files on a clean run"; fail=1; }
grep -q 'property runs (seeds 7\.\.' "$tmp/out" || { echo "FAIL fuzz prints no summary"; fail=1; }
check 2 "fuzz unknown property" "$lockstep" fuzz --minutes 0.01 --property Nope --out "$tmp/fuzz"
# fuzz --target: an adapter failure keeps what the adapter said last, not only its first line
# (a crash's own message often follows warnings).
cat > "$tmp/targets.json" <<'JSON'
{"targets": {"crashy": {"description": "fails after two warnings", "profile": "locks",
  "command": "sh -c 'echo warning one >&2; echo warning two >&2; echo the real crash >&2; exit 1' {trace} {log}"}}}
JSON
check 1 "fuzz --target crashy (adapter failures)" "$lockstep" fuzz --targets "$tmp/targets.json" --target crashy --count 1 --out "$tmp/crashy"
grep -q 'the real crash' "$tmp/crashy/summary.json" \
  || { echo "FAIL fuzz --target keeps only the first line of an adapter's stderr"; fail=1; }
check 2 "fuzz zero minutes" "$lockstep" fuzz --minutes 0
# fuzz --target with a serve command: one process replays every trace; one that ends is started
# again (the trace it left unanswered an adapter failure that keeps what it said last); one that
# answers nonsense fails that trace; a serve command that wants {trace} is bad input.
serve="python3 $root/tests/toy-target/serve-impl.py $lockstep"
cat > "$tmp/serve.json" <<JSON
{"targets": {
  "served": {"profile": "locks", "command": "false {trace} {log}", "serve": "$serve"},
  "quitter": {"profile": "locks", "command": "false {trace} {log}", "serve": "$serve --give-up-after 2"},
  "garbler": {"profile": "locks", "command": "false {trace} {log}", "serve": "$serve --garble"},
  "per-trace": {"profile": "locks", "command": "$lockstep run --engine impl {trace} -o {log}", "serve": "$serve --garble"},
  "wrong": {"profile": "locks", "command": "false {trace} {log}", "serve": "$serve {trace}"}}}
JSON
check 0 "fuzz --target served" "$lockstep" fuzz --targets "$tmp/serve.json" --target served --count 5 --seed 3 --out "$tmp/served"
summary "$tmp/served" "s['allowed'] == 5 and s['served'].endswith('serve-impl.py $lockstep')" \
  || { echo "FAIL fuzz --target served: not every trace allowed through the server"; fail=1; }
# --version, and a command or option lockstep lacks named, with the nearest it has when that is a
# slip (a transposition, a letter more, less or other), and with none when nothing is near.
expect 0 "" "--version" "$lockstep" --version
grep -qxE 'lockstep [0-9]+\.[0-9]+\.[0-9]+ \(lockstep-trace version 1, lockstep-log version 1\)' "$tmp/out" \
  || { echo "FAIL --version prints: $(cat "$tmp/out")"; fail=1; }
hint="Run with --help for the commands and options."
expect 2 "lockstep: unknown command \"chek\" (did you mean \"check\"?)
$hint" "misspelt command" "$lockstep" chek a b
expect 2 "lockstep: unknown command \"frobnicate\"
$hint" "unknown command" "$lockstep" frobnicate
expect 2 "lockstep: check: unknown option \"--partail\" (did you mean \"--partial\"?)
$hint" "misspelt option" "$lockstep" check --partail a b
expect 2 "lockstep: fuzz merge: unknown option \"--oot\" (did you mean \"--out\"?)
$hint" "misspelt option of a nested command" "$lockstep" fuzz merge --oot x y
expect 2 "lockstep: fuzz: unknown command \"mrege\" (did you mean \"merge\"?)
$hint" "misspelt nested command" "$lockstep" fuzz mrege
# An option's value is not taken for a command: --max-runs 5 is one option.
expect 2 "lockstep: a: cannot open the file: No such file or directory" "an option's value" \
  "$lockstep" check --max-runs 5 a b
# What a target cannot express is counted by reason, the trace's own ids (in parentheses) left out:
# as many traces under each as query or steal, counted from the same traces by gen.
cat > "$tmp/some.json" <<JSON
{"targets": {"some": {"profile": "locks",
  "command": "bash $root/tests/toy-target/cannot-express-some.sh $lockstep {trace} {log}"}}}
JSON
check 0 "fuzz --target some" "$lockstep" fuzz --targets "$tmp/some.json" --target some --count 30 --seed 7 --out "$tmp/some"
"$lockstep" gen --seed 7 --count 30 --steps 12 --profile locks > "$tmp/some.jsonl"  # fuzz's --steps
python3 - "$tmp/some.jsonl" "$tmp/some/summary.json" <<'PY' || { echo "FAIL fuzz --target: the reasons it cannot express are not counted"; cat "$tmp/some/summary.json"; fail=1; }
import json, sys
def actions(steps):
    for a in steps:
        yield a
        yield from actions(a.get("body", []))
        yield from actions((a.get("callback") or {}).get("body", []))
queries = steals = 0
for line in open(sys.argv[1]):
    every = list(actions(json.loads(line)["steps"]))
    if any(a["op"] == "query" for a in every):
        queries += 1
    elif any(a["op"] == "request" and (a.get("options") or {}).get("steal") for a in every):
        steals += 1
s = json.load(open(sys.argv[2]))
want = {k: n for k, n in (("it queries", queries), ("it steals", steals)) if n}
assert queries and steals, (queries, steals)  # the seeds must show both
assert s["cannotExpressReasons"] == want, (s["cannotExpressReasons"], want)
assert list(s["cannotExpressReasons"].values()) == sorted(want.values(), reverse=True)
assert s["cannotExpress"] == queries + steals
PY
check 1 "fuzz --target quitter" "$lockstep" fuzz --targets "$tmp/serve.json" --target quitter --count 5 --seed 3 --out "$tmp/quitter"
summary "$tmp/quitter" "s['allowed'] == 4 and s['adapterFailures'] == 1 and s['failures'][0]['seed'] == 5 and 'gives up after 2' in s['failures'][0]['message']" \
  || { echo "FAIL fuzz --target: a server that ends is not restarted, or its last words are lost"; cat "$tmp/quitter/summary.json"; fail=1; }
check 1 "fuzz --target garbler" "$lockstep" fuzz --targets "$tmp/serve.json" --target garbler --count 2 --out "$tmp/garbler"
summary "$tmp/garbler" "s['adapterFailures'] == 2 and 'not json' in s['failures'][0]['message']" \
  || { echo "FAIL fuzz --target: a server's nonsense answer is not an adapter failure"; fail=1; }
check 0 "fuzz --target --no-serve" "$lockstep" fuzz --targets "$tmp/serve.json" --target per-trace --count 3 --no-serve --out "$tmp/per-trace"
summary "$tmp/per-trace" "s['allowed'] == 3 and s['served'] is None" \
  || { echo "FAIL fuzz --target --no-serve still serves"; fail=1; }
check 2 "fuzz --target serve with {trace}" "$lockstep" fuzz --targets "$tmp/serve.json" --target wrong --count 1 --out "$tmp/wrong"
grep -qxF "lockstep: fuzz --targets $tmp/serve.json: targets.wrong.serve (/targets/wrong/serve): takes its traces on stdin, not {trace} and {log}" "$tmp/err" \
  || { echo "FAIL a serve command with {trace} is not refused by name"; cat "$tmp/err"; fail=1; }
# fuzz --target keeps what check could not decide within --max-runs (trace, log, explanation) under
# unknown/, listed in summary.json; they fail nothing, and a larger budget then decides them.
cat > "$tmp/reverser.json" <<JSON
{"targets": {"reverser": {"profile": "locks",
  "command": "$root/tests/toy-target/reverses-its-log.sh $lockstep {trace} {log}"}}}
JSON
check 0 "fuzz --target reverser --max-runs 1" "$lockstep" fuzz --targets "$tmp/reverser.json" --target reverser --count 8 --seed 3 --max-runs 1 --shrink 0 --out "$tmp/reverser"
summary "$tmp/reverser" "s['maxRuns'] == 1 and s['unknown'] > 0 and len(s['unknowns']) == s['unknown'] and s['notAllowed'] == 0" \
  || { echo "FAIL fuzz --target lists no undecided trace"; cat "$tmp/reverser/summary.json"; fail=1; }
undecided=$(python3 -c "import json,sys; u=json.load(open(sys.argv[1]))['unknowns'][0]; print(u['trace'], u['log'])" "$tmp/reverser/summary.json")
[ -f "$(dirname ${undecided%% *})/check.txt" ] || { echo "FAIL fuzz --target keeps no explanation of an undecided trace"; fail=1; }
check 1 "check an undecided trace with the default budget" "$lockstep" check $undecided
# ... and within --max-seconds, check's time per trace.
check 0 "fuzz --target reverser --max-seconds" "$lockstep" fuzz --targets "$tmp/reverser.json" --target reverser --count 4 --seed 3 --max-seconds 0.000001 --shrink 0 --out "$tmp/reverser-timed"
summary "$tmp/reverser-timed" "s['maxSeconds'] > 0 and s['unknown'] > 0 and s['notAllowed'] == 0" \
  || { echo "FAIL fuzz --target --max-seconds does not bound check"; cat "$tmp/reverser-timed/summary.json"; fail=1; }
# gen: every trace it writes validates and replays; shards split a campaign without changing it.
check 0 "gen files" "$lockstep" gen --seed 11 --count 6 --steps 20 --out "$tmp/gen"
for t in "$tmp"/gen/*.trace.json; do
  "$lockstep" run "$t" -o /dev/null 2>"$tmp/err" || { echo "FAIL gen made $t that does not replay"; cat "$tmp/err"; fail=1; }
done
[ "$(ls "$tmp"/gen | wc -l)" -eq 6 ] || { echo "FAIL gen --count 6 wrote $(ls "$tmp"/gen | wc -l) files"; fail=1; }
"$lockstep" gen --seed 11 --count 6 --steps 20 > "$tmp/all.jsonl"
{ "$lockstep" gen --seed 11 --count 6 --steps 20 --shard 0/2; "$lockstep" gen --seed 11 --count 6 --steps 20 --shard 1/2; } | sort > "$tmp/shards.jsonl"
sort "$tmp/all.jsonl" | cmp -s - "$tmp/shards.jsonl" || { echo "FAIL gen shards differ from one run"; fail=1; }
check 2 "gen bad shard" "$lockstep" gen --shard 2/2
check 2 "gen bad capability" "$lockstep" gen --without wings
# gen --exhaustive: distinct traces, the same set whether sharded or not, and a coverage summary.
check 0 "gen exhaustive" "$lockstep" gen --exhaustive --ops 3 --agents 2
sort "$tmp/out" > "$tmp/ex.jsonl"
[ "$(wc -l < "$tmp/ex.jsonl")" -gt 100 ] || { echo "FAIL gen --exhaustive wrote too few traces"; fail=1; }
[ "$(sed -E 's/"name": *"exhaustive-[0-9]+"//' "$tmp/ex.jsonl" | sort -u | wc -l)" -eq "$(wc -l < "$tmp/ex.jsonl")" ] \
  || { echo "FAIL gen --exhaustive repeats a trace"; fail=1; }
grep -q '^coverage: web-locks: ' "$tmp/err" || { echo "FAIL gen --exhaustive prints no coverage"; fail=1; }
for i in 0 1 2; do "$lockstep" gen --exhaustive --ops 3 --agents 2 --shard $i/3 2>/dev/null; done | sort > "$tmp/ex-shards.jsonl"
cmp -s "$tmp/ex.jsonl" "$tmp/ex-shards.jsonl" || { echo "FAIL gen --exhaustive shards differ"; fail=1; }
# ... and for the scheduler: windows on one event loop, every candidate replays.
check 0 "gen exhaustive scheduling" "$lockstep" gen --exhaustive --profile scheduling --ops 2 --agents 2
[ "$(wc -l < "$tmp/out")" -gt 100 ] || { echo "FAIL gen --exhaustive --profile scheduling wrote too few traces"; fail=1; }
grep -q '"eventLoop": "L"' "$tmp/out" || { echo "FAIL exhaustive scheduling traces do not share a loop"; fail=1; }
grep -q ', 0 left out' "$tmp/err" || { echo "FAIL an exhaustive scheduling trace does not replay"; fail=1; }
grep -q '^coverage: scheduling-apis: ' "$tmp/err" || { echo "FAIL gen --exhaustive --profile scheduling prints no coverage"; fail=1; }
check 2 "gen exhaustive single-agent" "$lockstep" gen --exhaustive --profile single-agent
check 2 "gen exhaustive ops" "$lockstep" gen --exhaustive --ops 0
# export --wpt: a page per exportable trace, the driver and harness beside them, a report of the rest.
check 0 "export wpt" "$lockstep" export --wpt "$root/traces/corpus" -o "$tmp/wpt"
[ -f "$tmp/wpt/basic-exclusive.html" ] && [ -f "$tmp/wpt/lockstep-driver.js" ] && [ -f "$tmp/wpt/resources/testharness.js" ] \
  || { echo "FAIL export --wpt wrote no page, driver or harness"; fail=1; }
grep -q 'const expected = ' "$tmp/wpt/basic-exclusive.html" || { echo "FAIL export page has no expectation"; fail=1; }
grep -q '| not exported: op setTimeout needs the virtual clock |' "$tmp/wpt/REPORT.md" \
  || { echo "FAIL export report does not say why a trace was left out"; fail=1; }
# A window's reaction to another agent's promise would be the page's (I-28): not exported.
grep -q "| reactions-belong-to-the-agent-that-attached-them | | not exported: agent C uses promise g, which agent B made" "$tmp/wpt/REPORT.md" \
  || { echo "FAIL export exports a window's reaction to another agent's promise"; fail=1; }
test ! -e "$tmp/wpt/reactions-belong-to-the-agent-that-attached-them.html" \
  || { echo "FAIL export wrote a page for a trace it refuses"; fail=1; }
# I-27: a browser may put idle periods off, even for good, so the page of idle-period-put-off
# accepts its window's events with the idle callback before the next step's mark, after it, or never.
python3 - "$tmp/wpt/idle-period-put-off.html" <<'PY' || { echo "FAIL export does not offer idle periods put off"; fail=1; }
import json, re, sys
page = open(sys.argv[1]).read()
expected = json.loads(re.search(r"const expected = (\[.*?\])\.map", page, re.S).group(1))
orders = {tuple(e.get("label", e["event"]) for e in log["events"]) for log in expected}
want = {("idle", "in idle", "after"), ("after", "idle", "in idle"), ("after",)}
sys.exit(0 if orders == want else f"orders {sorted(orders)}")
PY
# I-26: a task a step left queued may run before either later step, or after both; before step 2
# only is the order the pin "step" reaches, and the page accepts it too.
check 0 "export wpt step pin" "$lockstep" export --wpt "$root/tests/cli/early-unit-waits-past-a-step.trace.json" -o "$tmp/wpt-step"
python3 - "$tmp/wpt-step/early-unit-waits-past-a-step.html" <<'PY' || { echo "FAIL export does not offer an early unit past a step"; fail=1; }
import json, re, sys
page = open(sys.argv[1]).read()
expected = json.loads(re.search(r"const expected = (\[.*?\])\.map", page, re.S).group(1))
orders = {tuple(e.get("label", e["event"]) for e in log["events"]) for log in expected}
task = ("task", "in-task", "settled")
want = {task + ("one", "two"), ("one",) + task + ("two",), ("one", "two") + task}
sys.exit(0 if orders == want else f"orders {sorted(orders)}")
PY
check 2 "export without format" "$lockstep" export "$root/traces/corpus" -o "$tmp/wpt2"
check 2 "export missing input" "$lockstep" export --wpt "$tmp/none" -o "$tmp/wpt3"
# check: 0 allowed, 1 not allowed (naming the event), 3 unknown, 2 bad input; --json, --junit.
log=$root/traces/corpus/web-locks/basic-exclusive.log.json
check 0 "check allowed" "$lockstep" check "$trace" "$log"
grep -q ': allowed' "$tmp/out" || { echo "FAIL check prints no verdict"; fail=1; }
check 1 "check not allowed" "$lockstep" check "$trace" "$tmp/wrong.log.json" --junit "$tmp/junit.xml"
grep -q 'first event no schedule explains' "$tmp/out" || { echo "FAIL check does not explain"; fail=1; }
grep -q '<failure message="not allowed">' "$tmp/junit.xml" || { echo "FAIL check --junit"; fail=1; }
check 1 "check --json" "$lockstep" check "$trace" "$tmp/wrong.log.json" --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]=="not allowed" and r["divergence"]["logIndex"]==2' "$tmp/out" \
  || { echo "FAIL check --json"; fail=1; }
nested=$root/traces/corpus/web-locks/example-nested-deadlock
python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); l["events"].pop(); json.dump(l, open(sys.argv[2], "w"))' \
  "$nested.log.json" "$tmp/short.log.json"
check 3 "check unknown" "$lockstep" check "$nested.trace.json" "$tmp/short.log.json" --max-runs 1
# --max-seconds: past it the verdict is unknown, and the reports say which budget ran out.
check 3 "check --max-seconds" "$lockstep" check "$nested.trace.json" "$tmp/short.log.json" --max-seconds 0.000001 --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["budgetSpent"]==["time"] and r["maxSeconds"]>0' "$tmp/out" \
  || { echo "FAIL check --max-seconds does not report the time budget"; fail=1; }
check 1 "check --max-seconds 0 (no limit)" "$lockstep" check "$nested.trace.json" "$tmp/short.log.json" --max-seconds 0
check 2 "check --max-seconds nan" "$lockstep" check "$nested.trace.json" "$tmp/short.log.json" --max-seconds nan
check 2 "check --max-seconds -1" "$lockstep" check "$nested.trace.json" "$tmp/short.log.json" --max-seconds -1
# --split: a world of two parts (agents A, O, X and agent P), decided part by part.
isolation=$root/traces/corpus/web-locks/example-isolation-partitions-origins-opaque
check 0 "check --split first" "$lockstep" check "$isolation.trace.json" "$isolation.log.json" --split first --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["decidedByParts"] and [p["agents"] for p in r["parts"]]==[["A","O","X"],["P"]]' "$tmp/out" \
  || { echo "FAIL check --split first does not report the parts"; fail=1; }
check 0 "check --split never" "$lockstep" check "$isolation.trace.json" "$isolation.log.json" --split never --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert "parts" not in r' "$tmp/out" \
  || { echo "FAIL check --split never reports parts"; fail=1; }
check 2 "check bad --split" "$lockstep" check "$isolation.trace.json" "$isolation.log.json" --split sometimes
sed 's/"agent": "A"/"agent": "Z"/' "$log" > "$tmp/stranger.log.json"
check 2 "check unknown agent" "$lockstep" check "$trace" "$tmp/stranger.log.json"
grep -q '/events/0/agent' "$tmp/err" || { echo "FAIL check bad input does not name the event"; fail=1; }
check 2 "check bad profile" "$lockstep" check "$trace" "$log" --profile lenient
# fuzz --target: an unknown target, or a registry that is not one, is bad input.
check 2 "fuzz unknown target" "$lockstep" fuzz --target nope --targets "$root/adapters/targets.json" --out "$tmp/ft"
grep -q 'known: node' "$tmp/err" || { echo "FAIL fuzz --target does not list the known targets"; fail=1; }
check 2 "fuzz bad registry" "$lockstep" fuzz --target node --targets "$trace" --out "$tmp/ft"
# render: a page whatever the verdict (check is the command that judges); bad input exits 2.
check 0 "render" "$lockstep" render "$trace" -o "$tmp/page.html"
grep -q '<script type="application/json" id="lockstep-data">' "$tmp/page.html" || { echo "FAIL render wrote no page data"; fail=1; }
check 0 "render --log not allowed" "$lockstep" render "$trace" --log "$tmp/wrong.log.json" -o "$tmp/page.html"
check 2 "render unknown agent" "$lockstep" render "$trace" --log "$tmp/stranger.log.json" -o "$tmp/page.html"
grep -q 'stranger.log.json: events\[0\].agent (/events/0/agent)' "$tmp/err" || { echo "FAIL render bad log does not name the event"; fail=1; }
check 2 "render missing trace" "$lockstep" render "$tmp/none.json" -o "$tmp/page.html"
check 2 "render without -o" "$lockstep" render "$trace"
check 2 "render --corpus empty folder" "$lockstep" render --corpus "$tmp/fuzz" -o "$tmp/site"
echo "exit codes: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
