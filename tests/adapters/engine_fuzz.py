#!/usr/bin/env python3
"""A small fuzz budget against a real engine: `lockstep fuzz --target TARGET`.

Checks the campaign's contract, not the engine's bugs: the summary accounts for every trace and
lists each undecided one with its files kept; each kept failure holds a valid trace and the
engine's log, which check still does not allow when run again on the saved files; each shrunk
trace is valid and no larger than the one it came from.
Usage: engine_fuzz.py LOCKSTEP SOURCE_DIR TARGET COUNT SHRINK
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

LOCKSTEP, ROOT, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
COUNT, SHRINK = int(sys.argv[4]), sys.argv[5]
failures = []


def calls(trace):
    n = 0
    stack = list(trace["steps"])
    while stack:
        a = stack.pop()
        n += 1
        stack.extend(a.get("body", []))
        stack.extend((a.get("callback") or {}).get("body", []))
    return n


def main():
    out = tempfile.mkdtemp()
    try:
        done = subprocess.run(
            # --reruns 1: each failure once more, settling longer (a flaky one is counted apart).
            [LOCKSTEP, "fuzz", "--target", TARGET, "--targets",
             os.path.join(ROOT, "adapters/targets.json"), "--count", str(COUNT), "--seed", "1",
             "--shrink", SHRINK, "--reruns", "1", "--minutes", "10", "--out", out],
            capture_output=True, text=True, timeout=900)
        print(done.stderr.strip().splitlines()[-2] if done.stderr.strip() else "")
        if done.returncode not in (0, 1):
            failures.append(f"fuzz exited {done.returncode}: {done.stderr.strip()[-500:]}")
            return
        summary = json.load(open(os.path.join(out, "summary.json")))
        counted = sum(summary[k] for k in
                      ("allowed", "notAllowed", "adapterFailures", "cannotExpress", "unknown",
                       "flaky"))
        if summary["traces"] != COUNT or counted != COUNT:
            failures.append(f"summary accounts for {counted} of {summary['traces']} traces, ran {COUNT}")
        kept = summary["failures"]
        if len(kept) != summary["notAllowed"] + summary["adapterFailures"]:
            failures.append(f"{len(kept)} failures kept for {summary['notAllowed']} not allowed "
                            f"and {summary['adapterFailures']} adapter failures")
        if len(summary["flakes"]) != summary["flaky"]:
            failures.append(f"{len(summary['flakes'])} flaky traces kept for {summary['flaky']} flaky")
        for f in summary["flakes"]:
            print(f"seed {f['seed']}: flaky ({f.get('kind')}, then {', '.join(f['reruns'])})")
        undecided = summary["unknowns"]
        if len(undecided) != summary["unknown"]:
            failures.append(f"{len(undecided)} undecided traces kept for {summary['unknown']} unknown")
        for u in undecided:
            if not (os.path.isfile(u["trace"]) and os.path.isfile(u["log"])):
                failures.append(f"seed {u['seed']}: the undecided trace or its log was not kept")
        if (done.returncode == 1) != bool(kept):
            failures.append(f"exit {done.returncode} with {len(kept)} failures kept")
        for f in kept:
            if f["kind"] == "not allowed":
                again = subprocess.run([LOCKSTEP, "check", f["trace"], f["log"], "--partial"],
                                       capture_output=True, text=True)
                if again.returncode != 1:
                    failures.append(f"seed {f['seed']}: check on the saved files exits {again.returncode}")
            if "minimal" in f:
                valid = subprocess.run([LOCKSTEP, "validate", f["minimal"]], capture_output=True)
                if valid.returncode != 0:
                    failures.append(f"seed {f['seed']}: the shrunk trace is not valid")
                elif calls(json.load(open(f["minimal"]))) > calls(json.load(open(f["trace"]))):
                    failures.append(f"seed {f['seed']}: the shrunk trace is larger")
                else:
                    print(f"seed {f['seed']}: shrunk to {f['minimalCalls']} calls over "
                          f"{f['minimalAgents']} agents")
    finally:
        shutil.rmtree(out, ignore_errors=True)


main()
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
