#!/usr/bin/env python3
"""A toy target that serves many traces from one process (adapters/README.md, "Serving many
traces"): each request line {"trace", "log"} is replayed by `lockstep run --engine impl`, whose log
every check allows. For the tests of a server that fails: --give-up-after N ends the process,
saying why on stderr, on the request after its N-th answer; --garble answers with what is not an
answer; --delay S waits S seconds in a child process (`sleep`) before each replay, so that a test can
stop a campaign while a trace is in flight; --wrong-shared logs a shared grant as exclusive, as
shared-granted-as-exclusive.sh does. A request with an "id" is replayed beside the others in
flight and answered with its id when done: --stagger waits a while that depends on the trace's
file name (0 to 0.3 s) before it, so that answers come back out of order, and --record FILE
appends "start ID" and "end ID" lines to FILE. Usage: serve-impl.py LOCKSTEP [--give-up-after N]
[--garble] [--delay S] [--wrong-shared] [--stagger] [--record FILE]"""
import json
import re
import subprocess
import sys
import threading
import time
import zlib


def option(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


lockstep = sys.argv[1]
give_up_after = int(option("--give-up-after")) if option("--give-up-after") else None
delay = option("--delay")
record = option("--record")
out_lock = threading.Lock()


def note(what):
    if record:
        with out_lock, open(record, "a") as f:
            f.write(what + "\n")


def answer(request):
    """Replays the request's trace; its answer's members."""
    if delay:
        subprocess.run(["sleep", delay])
    if "--stagger" in sys.argv:
        time.sleep(zlib.crc32(request["trace"].encode()) % 4 * 0.1)
    done = subprocess.run([lockstep, "run", "--engine", "impl", request["trace"], "-o",
                           request["log"]], capture_output=True, text=True)
    if "--wrong-shared" in sys.argv and done.returncode == 0:
        with open(request["log"]) as f:
            text = f.read()
        with open(request["log"], "w") as f:
            f.write(re.sub(r'("lock": \{"name": "[^"]*", "mode": )"shared"', r'\1"exclusive"', text))
    return {"exit": done.returncode, "message": done.stderr.strip()}


def say(reply):
    with out_lock:
        print(json.dumps(reply), flush=True)


def answer_in_flight(request):
    note(f"start {request['id']}")
    reply = answer(request)
    note(f"end {request['id']}")
    say({"id": request["id"], **reply})


answered = 0
in_flight = []
for line in sys.stdin:
    if answered == give_up_after:
        print(f"toy server gives up after {answered} answers", file=sys.stderr)
        sys.exit(3)
    request = json.loads(line)
    if "--garble" in sys.argv:
        with out_lock:
            print("not json", flush=True)
        continue
    answered += 1
    if "id" in request:
        in_flight.append(threading.Thread(target=answer_in_flight, args=(request,)))
        in_flight[-1].start()
    else:
        say(answer(request))
for thread in in_flight:
    thread.join()
