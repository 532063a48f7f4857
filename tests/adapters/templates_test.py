#!/usr/bin/env python3
"""The templates of adapters/templates/ run as they are, through lockstep's own runners, and what
runs is the template's library: docs/testing-your-implementation.md's path, tested.

For each template (a library in Node.js, one in a web page, a lock manager of the lock-manager
protocol in Python): a short `fuzz --targets TEMPLATE/targets.json --target my-library` campaign ends
with no adapter failure; a corpus trace (steal-shared, which Node, Chromium, Firefox and WebKit
allow; shared-together for the lock manager), replayed through the template's command, is
allowed; and a copy of the template with a
bug planted (LIBRARY) is not allowed on that trace, so the runner really drove the template's
code and not the engine's navigator.locks.
Usage: templates_test.py LOCKSTEP SOURCE_DIR"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

LOCKSTEP, ROOT = sys.argv[1:3]
TEMPLATES = os.path.join(ROOT, "adapters", "templates")
TRACE = os.path.join(ROOT, "traces", "corpus", "web-locks", "steal-shared.trace.json")
PASS_THROUGH = "  request: (...args) => engine.request(...args),\n"
DROPS_OPTIONS = ("  request: (name, ...rest) => engine.request(name, "
                 "rest[rest.length - 1]),\n")
# Each template's library file, a line of it, the bug planted in its place (a JavaScript
# library's request() that drops its options: no shared mode, no steal; a lock manager that grants
# shared requests as exclusive ones), and the corpus trace that shows it.
LIBRARY = {"node-library": ("my-locks.mjs", PASS_THROUGH, DROPS_OPTIONS, TRACE),
           "browser-library": ("my-locks.js", PASS_THROUGH, DROPS_OPTIONS, TRACE),
           # Its script side is lockstep's, which refuses steal-shared's request itself: the
           # bug is the lock task queue's, and so is the trace that shows it.
           "lock-manager": ("my_lock_manager.py",
                            '        return all(lock["mode"] == "shared" for lock in same_name)\n',
                            "        return not same_name  # the planted bug: shared as exclusive\n",
                            os.path.join(ROOT, "traces", "corpus", "web-locks",
                                         "shared-together.trace.json"))}


def replay(folder, log, trace):
    """check's verdict on the log the template's command writes for `trace`."""
    entry = json.load(open(os.path.join(folder, "targets.json")))["targets"]["my-library"]
    words = [w.replace("{adapters}", folder).replace("{lockstep}", os.path.join(ROOT, "adapters"))
             .replace("{trace}", trace).replace("{log}", log) for w in shlex.split(entry["command"])]
    ran = subprocess.run(words, capture_output=True, text=True, timeout=180)
    if ran.returncode != 0:
        return f"adapter exit {ran.returncode}: {ran.stderr.strip()}"
    checked = subprocess.run([LOCKSTEP, "check", trace, log, "--partial", "--json"],
                             capture_output=True, text=True, timeout=300)
    return json.loads(checked.stdout)["verdict"]


def main():
    failures = []
    scratch = tempfile.mkdtemp(prefix="lockstep-templates-")
    for name, (library, line, bug, trace) in LIBRARY.items():
        folder = os.path.join(TEMPLATES, name)
        out = os.path.join(scratch, name + "-campaign")
        fuzz = subprocess.run([LOCKSTEP, "fuzz", "--targets", os.path.join(folder, "targets.json"),
                               "--target", "my-library", "--count", "6", "--seed", "1",
                               "--shrink", "0", "--out", out],
                              capture_output=True, text=True, timeout=600)
        summary = json.load(open(os.path.join(out, "summary.json"))) \
            if os.path.exists(os.path.join(out, "summary.json")) else {}
        said = (fuzz.stderr.strip().splitlines() or [""])
        print(f"{name}: fuzz exit {fuzz.returncode}: {said[0]}")
        if fuzz.returncode not in (0, 1) or summary.get("traces") != 6:
            failures.append(f"{name}: the campaign did not run its 6 traces: {fuzz.stderr.strip()}")
        elif summary.get("adapterFailures"):
            failures.append(f"{name}: {summary['adapterFailures']} adapter failures ({out})")
        shown = os.path.basename(trace)[: -len(".trace.json")]
        verdict = replay(folder, os.path.join(scratch, name + ".log.json"), trace)
        print(f"{name}: {shown} {verdict}")
        if verdict != "allowed":
            failures.append(f"{name}: {shown} is {verdict} through the template as shipped")
        buggy = os.path.join(scratch, name + "-buggy")
        shutil.copytree(folder, buggy)
        source = open(os.path.join(buggy, library)).read()
        if line not in source:
            failures.append(f"{name}: {library} no longer has the line the bug is planted in")
            continue
        open(os.path.join(buggy, library), "w").write(source.replace(line, bug))
        verdict = replay(buggy, os.path.join(scratch, name + "-buggy.log.json"), trace)
        print(f"{name} with a bug planted: {shown} {verdict}")
        if verdict != "not allowed":
            failures.append(f"{name}: the planted bug gave {verdict}, so the runner did not run "
                            f"the template's {library}")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


main()
