#!/usr/bin/env python3
"""The browser runners' partitions (adapters/README.md): each trace of tests/adapters/partitions
has agents in two user agents, which the runner hosts in two browsers on two profiles and links
through the loopback server's relay. Each is replayed on TARGET once per trace and once more
through `--serve` (one server, two browsers kept for both traces), and check must allow every log
(the model gives each partition its own lock managers: had the runner put both partitions in one
browser, a request of one would wait for the other's holder, and the log would not be allowed).
A log not allowed is replayed once more before it fails the test: the engines' intermittent
bugs (docs/conformance.md) are not what this tests. The traces in COMPLETE are checked without
--partial, so that an agent's events may not stop early: script-after-unload's marks after an
unload must all arrive.
Usage: browser_partitions.py LOCKSTEP SOURCE_DIR TARGET"""
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

LOCKSTEP, ROOT, TARGET = sys.argv[1:4]
ADAPTERS = os.path.join(ROOT, "adapters")
ENTRY = json.load(open(os.path.join(ADAPTERS, "targets.json")))["targets"][TARGET]
TRACES = sorted(glob.glob(os.path.join(ROOT, "tests/adapters/partitions/*.trace.json")))
COMPLETE = {"script-after-unload"}


def argv(template, **files):
    out = []
    for a in shlex.split(template):
        a = a.replace("{adapters}", ADAPTERS)
        for k, v in files.items():
            a = a.replace("{" + k + "}", v)
        out.append(a)
    return out


def verdict(trace, log):
    partial = [] if os.path.basename(trace).removesuffix(".trace.json") in COMPLETE \
        else ["--partial"]
    checked = subprocess.run([LOCKSTEP, "check", trace, log, *partial, "--json"],
                             capture_output=True, text=True, timeout=300)
    if checked.returncode not in (0, 1, 3):
        return f"check failed: {checked.stderr.strip()}"
    return json.loads(checked.stdout)["verdict"]


def one_shot(trace, log):
    done = subprocess.run(argv(ENTRY["command"], trace=trace, log=log), capture_output=True,
                          text=True, timeout=180)
    return done.returncode, done.stderr.strip()


def served(server, trace, log):
    server.stdin.write(json.dumps({"trace": trace, "log": log}) + "\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    return answer["exit"], answer["message"]


def replay(how, trace, log):
    """None when the log is allowed (on one of two tries), else what went wrong."""
    problem = None
    for _ in range(2):
        code, said = how(trace, log)
        if code != 0:
            problem = f"the adapter exited {code}: {said}"
            continue
        result = verdict(trace, log)
        if result == "allowed":
            return None
        problem = f"{result} (log kept in {log})"
    return problem


def main():
    failures = []
    if len(TRACES) < 2:
        failures.append(f"expected the partition traces in tests/adapters/partitions, found {TRACES}")
    for trace in TRACES:
        partitions = {a.get("partition", "default") for a in json.load(open(trace))["agents"]}
        if len(partitions) < 2:
            failures.append(f"{trace}: has one partition, so tests nothing here")
    out = tempfile.mkdtemp(prefix=f"lockstep-partitions-{TARGET}-")
    for trace in TRACES:
        name = os.path.basename(trace).removesuffix(".trace.json")
        problem = replay(one_shot, trace, os.path.join(out, f"{name}.log.json"))
        print(f"{name}: {problem or 'allowed'}")
        if problem:
            failures.append(f"{name}: {problem}")
    server = subprocess.Popen(argv(ENTRY["serve"]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        for trace in TRACES:
            name = os.path.basename(trace).removesuffix(".trace.json")
            problem = replay(lambda t, l: served(server, t, l), trace,
                             os.path.join(out, f"{name}.served.log.json"))
            print(f"{name}, served: {problem or 'allowed'}")
            if problem:
                failures.append(f"{name}, served: {problem}")
    finally:
        server.stdin.close()
        server.wait(60)
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
