#!/usr/bin/env python3
"""`lockstep export --wpt` of the corpus (and of the traces beside this script, which cover the
agents the corpus lacks), run in headless Chromium by export/wpt/run-chromium.py.

Fails on a page that fails without a cause in export/wpt/known-divergences.json, on a listed page
that passes unless it is listed as intermittent (the engine changed: the list must too), on a listed
page that no longer exists, and on a trace not exported that the list's notExported does not name
with the reason REPORT.md gives (or that it names but is exported now).
Usage: wpt_chromium.py LOCKSTEP SOURCE_DIR OUT_DIR (the pages and their RESULTS.json land there)
"""
import json
import os
import re
import shutil
import subprocess
import sys

LOCKSTEP, ROOT, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
WPT = os.path.join(ROOT, "export", "wpt")


def main():
    known = json.load(open(os.path.join(WPT, "known-divergences.json")))
    failures = []
    out = OUT
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([LOCKSTEP, "export", "--wpt", os.path.join(ROOT, "traces", "corpus"), HERE,
                    "-o", out], check=True)
    refused = {}
    for line in open(os.path.join(out, "REPORT.md")):
        m = re.match(r"\| (\S+) \| \| not exported: (.*) \|$", line.rstrip("\n"))
        if m:
            refused[m.group(1)] = m.group(2)
    listed = known["notExported"]
    for name, why in sorted(refused.items()):
        if listed.get(name) != why:
            failures.append(f"{name} is not exported ({why}); notExported says {listed.get(name)!r}")
    for name in sorted(set(listed) - set(refused)):
        failures.append(f"{name} is exported now: take it out of notExported")

    run = subprocess.run([sys.executable, os.path.join(WPT, "run-chromium.py"), out])
    print(f"run-chromium.py exited {run.returncode}")
    results = json.load(open(os.path.join(out, "RESULTS.json")))
    for page, outcome in sorted(results.items()):
        if outcome["status"] == "FAIL":
            failures.append(f"{page} fails, and known-divergences.json gives no cause")
    for name, cause in sorted(known["chromium"].items()):
        outcome = results.get(name + ".html")
        if outcome is None:
            failures.append(f"known-divergences.json lists {name}, which was not exported")
        elif outcome["status"] == "PASS" and name not in known["intermittent"]:
            failures.append(f"{name} passes now: take it out of known-divergences.json ({cause})")
        elif outcome["status"] == "PASS":
            print(f"not reproduced this run (intermittent) {name}: {cause}")
        if cause not in known["reasons"]:
            failures.append(f"known-divergences.json gives {name} the cause {cause}, not described")
    print(f"{len(results)} pages, {len(refused)} traces not exported")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
