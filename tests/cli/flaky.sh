#!/usr/bin/env bash
# fuzz --target runs a failure again (--reruns, default 2) with LOCKSTEP_SETTLE_SCALE set before
# keeping it: a failure an allowed re-run does not repeat is counted and kept as flaky, under
# flaky/, apart from the failures; one every re-run repeats is a failure, with its re-runs'
# outcomes. A served target's re-runs go through its one-shot command. --junit and --json report it.
# Usage: flaky.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
toy=$root/tests/toy-target
cat > "$tmp/targets.json" <<JSON
{"targets": {
  "late": {"profile": "locks",
    "command": "bash $toy/right-only-when-settled-longer.sh $lockstep {trace} {log}"},
  "wrong": {"profile": "locks",
    "command": "bash $toy/shared-granted-as-exclusive.sh $lockstep {trace} {log}"},
  "served-late": {"profile": "locks",
    "command": "bash $toy/right-only-when-settled-longer.sh $lockstep {trace} {log}",
    "serve": "python3 $toy/serve-impl.py $lockstep --wrong-shared"}}}
JSON
campaign=(fuzz --targets "$tmp/targets.json" --seed 100 --steps 25 --count 14 --shrink 1)

# Without re-runs the toy's failures are failures: how many there are is what the rest expects.
check 1 "--reruns 0" "$lockstep" "${campaign[@]}" --target late --reruns 0 --out "$tmp/none"
failures=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['notAllowed'])" "$tmp/none/summary.json")
[ "$failures" -ge 2 ] || { echo "FAIL --reruns 0: $failures failures, the test needs at least 2"; fail=1; }
summary "$tmp/none" "s['flaky'] == 0 and s['flakes'] == [] and s['reruns'] == 0 and all('reruns' not in f for f in s['failures'])" \
  || { echo "FAIL --reruns 0: a failure was run again"; fail=1; }

# With them, each of those is flaky: exit 0, nothing under failures/, each under flaky/ with its
# trace, its first log and check's word on it, and the re-run that was allowed.
check 0 "flaky failures only" "$lockstep" "${campaign[@]}" --target late --out "$tmp/late"
summary "$tmp/late" "s['flaky'] == $failures and s['notAllowed'] == 0 and s['failures'] == [] and s['reruns'] == 2 and len(s['flakes']) == $failures and all(f['reruns'] == ['allowed'] and f['kind'] == 'not allowed' for f in s['flakes'])" \
  || { echo "FAIL --reruns 2: the failures are not all kept as flaky"; cat "$tmp/late/summary.json"; fail=1; }
python3 - "$tmp/none" "$tmp/late" <<'PY' || { echo "FAIL the flaky traces are not the failures of the run without re-runs"; fail=1; }
import json, os, sys
none, late = (json.load(open(d + "/summary.json")) for d in sys.argv[1:])
assert [f["seed"] for f in none["failures"]] == [f["seed"] for f in late["flakes"]]
for f in late["flakes"]:
    assert f["trace"].startswith(sys.argv[2] + "/flaky/"), f["trace"]
    for key in ("trace", "log"):
        assert os.path.isfile(f[key]), f[key]
    assert os.path.isfile(os.path.join(os.path.dirname(f["trace"]), "check.txt"))
    assert "minimal" not in f  # only failures are shrunk
assert not os.path.exists(sys.argv[2] + "/failures") or not os.listdir(sys.argv[2] + "/failures")
PY
grep -q ", $failures flaky " "$tmp/err" || { echo "FAIL the progress line does not count the flaky traces"; cat "$tmp/err"; fail=1; }

# A failure the re-runs repeat stays one, with what each re-run gave; --reruns 1 runs it once more.
check 1 "real failures" "$lockstep" "${campaign[@]}" --target wrong --reruns 1 --out "$tmp/wrong"
summary "$tmp/wrong" "s['flaky'] == 0 and s['notAllowed'] == $failures and all(f['reruns'] == ['not allowed'] for f in s['failures']) and 'minimal' in s['failures'][0]" \
  || { echo "FAIL --reruns 1: the repeated failures are not kept as failures"; cat "$tmp/wrong/summary.json"; fail=1; }

# Served: the server replays with the short settling and is wrong; the re-runs are the one-shot
# command's, with LOCKSTEP_SETTLE_SCALE, and right.
check 0 "served, re-run one-shot" "$lockstep" "${campaign[@]}" --target served-late --out "$tmp/served"
summary "$tmp/served" "s['flaky'] == $failures and s['failures'] == []" \
  || { echo "FAIL served: the re-runs did not go through the one-shot command"; cat "$tmp/served/summary.json"; fail=1; }

# In shards, the same campaign.
check 0 "--jobs 2" "$lockstep" "${campaign[@]}" --target late --jobs 2 --out "$tmp/jobs"
same_as "$tmp/late" "$tmp/jobs" "--jobs 2 with flaky traces"

# --junit: a test case per trace, a failure per kept failure with check's explanation, a note
# for a flaky one; --json: summary.json on stdout. The same with --jobs but for the times.
check 1 "--junit, --json" "$lockstep" "${campaign[@]}" --target wrong --out "$tmp/junit" --junit "$tmp/wrong.xml" --json
cmp -s "$tmp/out" "$tmp/junit/summary.json" || { echo "FAIL --json prints other than summary.json"; fail=1; }
check 0 "--junit with flaky traces, --jobs 2" "$lockstep" "${campaign[@]}" --target late --jobs 2 --out "$tmp/junit-late" --junit "$tmp/late.xml"
python3 - "$tmp/wrong.xml" "$tmp/junit/summary.json" "$tmp/late.xml" <<'PY' || { echo "FAIL the JUnit reports do not say what the campaigns found"; fail=1; }
import json, sys
import xml.etree.ElementTree as ET
wrong, summary, late = ET.parse(sys.argv[1]).getroot(), json.load(open(sys.argv[2])), ET.parse(sys.argv[3]).getroot()
suite = wrong.find("testsuite")
cases = suite.findall("testcase")
assert suite.get("name") == "lockstep fuzz wrong" and int(suite.get("tests")) == 14 == len(cases)
failed = [c for c in cases if c.find("failure") is not None]
assert int(suite.get("failures")) == len(failed) == len(summary["failures"])
assert [c.get("name") for c in failed] == ["seed %d" % f["seed"] for f in summary["failures"]]
for c in failed:
    assert c.find("failure").get("message") == "not allowed"
    assert "kept in " in c.find("failure").text and ": not allowed (profile" in c.find("failure").text
flaky = [c for c in late.find("testsuite").findall("testcase") if c.find("system-out") is not None]
assert late.find("testsuite").get("failures") == "0" and len(flaky) == summary["notAllowed"]
assert all(c.find("system-out").text.startswith('flaky: failed, then ["allowed"]') for c in flaky)
PY
exit $fail
