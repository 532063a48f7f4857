#!/usr/bin/env bash
# Shrinking keeps its bug, against tests/toy-target/two-bugs.sh (bug A: a shared lock said to be
# exclusive; bug B: an AbortError rejection said to be a NotAllowedError):
# - a trace that shows bug A first shrinks to bug A's trace, though a smaller trace that shows
#   only bug B is among the candidates (shrink/bug-a-then-bug-b.trace.json);
# - options, and the controller only an option named, that the failure does not need are
#   dropped (shrink/options-not-needed, shrink/if-available-not-needed);
# - shrink --target runs a target of a targets file, with --log-out the minimal trace's log;
# - fuzz --target shrinks the first failure of each signature and keeps it with its log, check's
#   report and a page; summary.json groups the failures by signature, the same for every --jobs.
# Usage: shrink_keeps_its_bug.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
toy="bash $root/tests/toy-target/two-bugs.sh $lockstep {trace} {log}"
traces=$root/tests/cli/shrink
signature() {  # TRACE LOG: check's signature of the log's divergence
  "$lockstep" check "$1" "$2" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['divergence']['signature'])"
}
# What a trace of just `request s1 "res" {mode: "shared"}` is, whatever else the file says.
only_a_shared_request='len(t["steps"]) == 1 and t["steps"][0]["op"] == "request" and t["steps"][0]["name"] == "res" and t["steps"][0].get("options") == {"mode": "shared"}'
bug_a="callback exclusive | instead: callback shared | model's step same"

for name in bug-a-then-bug-b options-not-needed if-available-not-needed; do
  check 0 "shrink $name" "$lockstep" shrink "$traces/$name.trace.json" --cmd "$toy" \
    -o "$tmp/$name.min.json" --log-out "$tmp/$name.min.log.json"
  said "shrink $name" "shrinking a failure of signature: $bug_a"
  python3 -c "import json,sys; t=json.load(open(sys.argv[1])); sys.exit(0 if ($only_a_shared_request) else 1)" "$tmp/$name.min.json" \
    || { echo "FAIL $name: the minimal trace is not the one shared request:"; cat "$tmp/$name.min.json"; fail=1; }
  # The log written is the target's of the minimal trace, and fails as the original did.
  [ "$(signature "$tmp/$name.min.json" "$tmp/$name.min.log.json")" = "$bug_a" ] \
    || { echo "FAIL $name: --log-out's log does not show bug A"; fail=1; }
done
# The candidate that shows only bug B was met and turned down.
"$lockstep" shrink "$traces/bug-a-then-bug-b.trace.json" --cmd "$toy" -o /dev/null 2> "$tmp/err"
grep -q '; [1-9][0-9]* candidates failed otherwise and were not taken$' "$tmp/err" \
  || { echo "FAIL bug-a-then-bug-b: no candidate that fails otherwise was turned down"; cat "$tmp/err"; fail=1; }

# --target: the same shrink through a targets file.
cat > "$tmp/targets.json" <<JSON
{"targets": {"two-bugs": {"profile": "locks", "command": "bash $root/tests/toy-target/two-bugs.sh $lockstep {trace} {log}"}}}
JSON
check 0 "shrink --target" "$lockstep" shrink "$traces/options-not-needed.trace.json" \
  --target two-bugs --targets "$tmp/targets.json" -o "$tmp/by-target.json"
cmp -s "$tmp/by-target.json" "$tmp/options-not-needed.min.json" \
  || { echo "FAIL shrink --target: another minimal trace than --cmd's"; fail=1; }
expect 2 'lockstep: shrink --target: no target "nope" in '"$tmp/targets.json"' (known: two-bugs)' \
  "shrink --target of another name" "$lockstep" shrink "$traces/options-not-needed.trace.json" \
  --target nope --targets "$tmp/targets.json"
expect 2 "lockstep: shrink needs the implementation: --cmd COMMAND or --target NAME" \
  "shrink without an implementation" "$lockstep" shrink "$traces/options-not-needed.trace.json"
check 2 "shrink --cmd with --target" "$lockstep" shrink "$traces/options-not-needed.trace.json" \
  --cmd "$toy" --target two-bugs --targets "$tmp/targets.json"

# fuzz: failures grouped by signature, the first of each group shrunk and kept whole.
for jobs in 1 3; do
  "$lockstep" fuzz --target two-bugs --targets "$tmp/targets.json" --count 60 --steps 12 \
    --seed 100 --shrink 10 --reruns 0 --jobs $jobs --out "$tmp/fuzz$jobs" > /dev/null 2> "$tmp/fuzz.err"
  [ $? -eq 1 ] || { echo "FAIL fuzz --jobs $jobs: expected failures (exit 1)"; cat "$tmp/fuzz.err"; fail=1; }
done
same_as "$tmp/fuzz1" "$tmp/fuzz3" "fuzz --jobs 3 against --jobs 1"
python3 - "$tmp/fuzz1" "$lockstep" "$bug_a" <<'PY' || fail=1
import json, os, subprocess, sys
out, lockstep, bug_a = sys.argv[1:]
s = json.load(open(out + "/summary.json"))
groups, failures = s["failureGroups"], s["failures"]
bad = []
if sum(g["failures"] for g in groups) != len(failures):
    bad.append("the groups count %d failures, summary.json lists %d"
               % (sum(g["failures"] for g in groups), len(failures)))
if len({g["signature"] for g in groups}) != len(groups):
    bad.append("a signature has two groups")
if [g["failures"] for g in groups] != sorted((g["failures"] for g in groups), reverse=True):
    bad.append("the groups are not by most failures first")
# Seed 100's 60 traces show both bugs: A alone, A where the model also settles a request, and B.
if len(groups) < 3 or bug_a not in {g["signature"] for g in groups}:
    bad.append("expected at least three groups, bug A's among them")
by_signature = {}
for f in failures:
    by_signature.setdefault(f["signature"], []).append(f)
for g in groups:
    members = by_signature.get(g["signature"], [])
    if len(members) != g["failures"]:
        bad.append("group %r counts %d, %d failures have it" % (g["signature"], g["failures"], len(members)))
    shrunk = [f for f in members if "minimal" in f]
    # The first failure of each signature, and only it, was shrunk.
    if [f["seed"] for f in shrunk] != [members[0]["seed"]]:
        bad.append("group %r: shrunk %r, expected the first, seed %d"
                   % (g["signature"], [f["seed"] for f in shrunk], members[0]["seed"]))
        continue
    example = g["example"]
    if example.get("seed") != members[0]["seed"]:
        bad.append("group %r: its example is not the shrunk failure" % g["signature"])
    for key in ("minimal", "minimalLog", "minimalCheck", "minimalPage"):
        if not os.path.isfile(example.get(key, "")):
            bad.append("group %r: no %s file" % (g["signature"], key))
    if bad:
        continue
    # The minimal trace's log fails as the group says.
    done = subprocess.run([lockstep, "check", example["minimal"], example["minimalLog"], "--json"],
                          capture_output=True, text=True)
    report = json.loads(done.stdout)
    if report["verdict"] != "not allowed" or report["divergence"]["signature"] != g["signature"]:
        bad.append("group %r: its minimal log is %s with signature %r"
                   % (g["signature"], report["verdict"], report.get("divergence", {}).get("signature")))
    if "not allowed" not in open(example["minimalCheck"]).read():
        bad.append("group %r: minimal.check.txt is not check's report" % g["signature"])
    if "<html" not in open(example["minimalPage"]).read().lower():
        bad.append("group %r: minimal.html is not a page" % g["signature"])
for b in bad:
    print("FAIL fuzz groups: " + b)
print("fuzz: %d failures in %d groups: %s" % (len(failures), len(groups),
                                               "; ".join("%d %s" % (g["failures"], g["signature"]) for g in groups)))
sys.exit(1 if bad else 0)
PY
# --shrink 1: only the first failure of the first signature met is shrunk, for every --jobs.
for jobs in 1 3; do
  "$lockstep" fuzz --target two-bugs --targets "$tmp/targets.json" --count 60 --steps 12 \
    --seed 100 --shrink 1 --reruns 0 --jobs $jobs --out "$tmp/one$jobs" > /dev/null 2>&1
done
same_as "$tmp/one1" "$tmp/one3" "fuzz --shrink 1 --jobs 3 against --jobs 1"
summary "$tmp/one1" '[f["seed"] for f in s["failures"] if "minimal" in f] == [s["failures"][0]["seed"]]' \
  || { echo "FAIL fuzz --shrink 1: not exactly the first failure shrunk"; fail=1; }
python3 - "$tmp/one3" <<'PY' || { echo "FAIL fuzz --shrink 1 --jobs 3: the merge kept minimal files of failures it did not shrink"; fail=1; }
import glob, json, os, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
first = os.path.dirname(s["failures"][0]["trace"])
kept = glob.glob(sys.argv[1] + "/**/minimal*", recursive=True)
for k in kept:
    if os.path.dirname(k) != first:
        print("  " + k)
sys.exit(any(os.path.dirname(k) != first for k in kept) or not kept)
PY
echo "shrink keeps its bug: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
