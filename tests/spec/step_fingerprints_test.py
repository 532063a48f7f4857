#!/usr/bin/env python3
"""scripts/step_fingerprints.py: the fingerprints recorded in spec-model/*/steps.json are those of
the spec source in ../shared/reference, and a step whose words change under the same number is
caught, by name, with its new text (on a copy of the source with one step's words changed).
Skipped, as the step index's SpecSource test is, where ../shared/reference is not here.

Usage: step_fingerprints_test.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
SCRIPT = os.path.join(ROOT, "scripts", "step_fingerprints.py")
REFERENCE = os.path.join(os.path.dirname(os.path.abspath(ROOT)), "shared", "reference")
if not os.path.isdir(REFERENCE):
    print(f"skipped: {REFERENCE} is not here")
    sys.exit(0)


def run(reference):
    return subprocess.run([sys.executable, SCRIPT, "--reference", reference],
                          capture_output=True, text=True)


failures = []
done = run(REFERENCE)
if done.returncode != 0:
    failures.append("the recorded fingerprints are not the reference's:\n" + done.stdout)
with tempfile.TemporaryDirectory() as changed:
    for name in os.listdir(REFERENCE):
        shutil.copy(os.path.join(REFERENCE, name), changed)
    path = os.path.join(changed, "web-locks.bs")
    source = open(path, encoding="utf-8").read()
    # grantable's step 8, reworded in place: same number, same place, other words.
    old = "If |mode| is \"{{LockMode/exclusive}}\", then return true if no"
    if old not in source:
        failures.append(f"the test's step text is no longer in web-locks.bs: {old}")
    else:
        open(path, "w", encoding="utf-8").write(source.replace(old, old.replace("true", "TRUE"), 1))
        done = run(changed)
        named = [l for l in done.stdout.splitlines() if l.startswith("FAIL web-locks: grantable 8:")]
        if done.returncode != 1 or len(named) != 1 or "TRUE" not in named[0]:
            failures.append("a reworded step was not caught by name with its new text:\n" +
                            done.stdout)
        others = [l for l in done.stdout.splitlines()
                  if l.startswith("FAIL") and l not in named]
        if others:
            failures.append("steps that did not change were reported:\n" + "\n".join(others))
for f in failures:
    print("FAIL", f)
print("step fingerprints: " + ("ok" if not failures else "FAILED"))
sys.exit(1 if failures else 0)
