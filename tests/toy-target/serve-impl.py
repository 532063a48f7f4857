#!/usr/bin/env python3
"""A toy target that serves many traces from one process (adapters/README.md, "Serving many
traces"): each request line {"trace", "log"} is replayed by `lockstep run --engine impl`, whose log
every check allows. For the tests of a server that fails: --give-up-after N ends the process,
saying why on stderr, on the request after its N-th answer; --garble answers with what is not an
answer; --delay S waits S seconds in a child process (`sleep`) before each replay, so that a test can
stop a campaign while a trace is in flight; --wrong-shared logs a shared grant as exclusive, as
shared-granted-as-exclusive.sh does. Usage: serve-impl.py LOCKSTEP [--give-up-after N] [--garble]
[--delay S] [--wrong-shared]"""
import json
import re
import subprocess
import sys

lockstep = sys.argv[1]
give_up_after = int(sys.argv[sys.argv.index("--give-up-after") + 1]) \
    if "--give-up-after" in sys.argv else None
delay = sys.argv[sys.argv.index("--delay") + 1] if "--delay" in sys.argv else None
answered = 0
for line in sys.stdin:
    if answered == give_up_after:
        print(f"toy server gives up after {answered} answers", file=sys.stderr)
        sys.exit(3)
    request = json.loads(line)
    if "--garble" in sys.argv:
        print("not json", flush=True)
        continue
    if delay:
        subprocess.run(["sleep", delay])
    done = subprocess.run([lockstep, "run", "--engine", "impl", request["trace"], "-o",
                           request["log"]], capture_output=True, text=True)
    if "--wrong-shared" in sys.argv and done.returncode == 0:
        with open(request["log"]) as f:
            text = f.read()
        with open(request["log"], "w") as f:
            f.write(re.sub(r'("lock": \{"name": "[^"]*", "mode": )"shared"', r'\1"exclusive"', text))
    print(json.dumps({"exit": done.returncode, "message": done.stderr.strip()}), flush=True)
    answered += 1
