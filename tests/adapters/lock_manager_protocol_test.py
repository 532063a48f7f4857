#!/usr/bin/env python3
"""lockstep-lockservice spoken to as the Node runner's relay speaks to it (adapters/protocol/):
each message sent is followed by a sync, and what comes back before the synced answer is that
message's doing. Every message either way must fit lock-manager.schema.json; the answers are the
spec's (web-locks), worked out by hand for each step below.

Usage: lock_manager_protocol_test.py LOCKSTEP_BINARY SOURCE_DIR
"""
import json
import os
import subprocess
import sys

import jsonschema

BIN = os.path.dirname(os.path.abspath(sys.argv[1]))
ROOT = sys.argv[2]
SCHEMA = json.load(open(os.path.join(ROOT, "adapters/protocol/lock-manager.schema.json")))


def validator(direction):
    return jsonschema.Draft202012Validator(
        {"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{direction}"})


TO, FROM = validator("toManager"), validator("fromManager")
problems = []
server = subprocess.Popen([os.path.join(BIN, "lockstep-lockservice")], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
syncs = 0


def send(message, expect, why):
    """Sends `message`, then a sync; the lines before the synced answer must be `expect`."""
    global syncs
    syncs += 1
    for m in (message, {"type": "sync", "sync": syncs}):
        for e in TO.iter_errors(m):
            problems.append(f"the test sent a message the schema refuses: {m}: {e.message}")
        server.stdin.write(json.dumps(m) + "\n")
    server.stdin.flush()
    got = []
    while True:
        line = server.stdout.readline()
        if not line:
            problems.append(f"{why}: the lock manager ended; it said {got}")
            return
        m = json.loads(line)
        for e in FROM.iter_errors(m):
            problems.append(f"{why}: a message the schema refuses: {m}: {e.message}")
        if m == {"type": "synced", "sync": syncs}:
            break
        got.append(m)
    if got != expect:
        problems.append(f"{why}:\n  got      {got}\n  expected {expect}")


def req(agent, request, name, mode="exclusive", ifAvailable=False, steal=False):
    return {"type": "request", "agent": agent, "request": request, "name": name, "mode": mode,
            "ifAvailable": ifAvailable, "steal": steal}


def entry(name, mode, client):
    return {"name": name, "mode": mode, "clientId": client}


for agent, key in (("A", "default https://a.test"), ("B", "default https://a.test"),
                   ("C", "other https://a.test")):
    send({"type": "agent", "agent": agent, "storageKey": key, "clientId": "client-" + agent}, [],
         f"agent {agent} joins")
send(req("A", "a1", "r"), [{"type": "granted", "request": "a1"}], "a free name is granted")
send(req("B", "b1", "r", "shared"), [], "a shared request behind an exclusive lock waits")
send(req("B", "b2", "r", "shared", ifAvailable=True),
     [{"type": "notAvailable", "request": "b2"}], "ifAvailable, not grantable: not available")
send({"type": "query", "agent": "B", "query": "q1"},
     [{"type": "snapshot", "query": "q1", "held": [entry("r", "exclusive", "client-A")],
       "pending": [entry("r", "shared", "client-B")]}], "the snapshot of A's and B's manager")
send({"type": "query", "agent": "C", "query": "q2"},
     [{"type": "snapshot", "query": "q2", "held": [], "pending": []}],
     "another partition's manager holds nothing")
send(req("C", "c1", "r"), [{"type": "granted", "request": "c1"}],
     "the same name in another partition is another lock")
send({"type": "release", "agent": "A", "request": "a1"},
     [{"type": "granted", "request": "b1"}, {"type": "released", "request": "a1"}],
     "a release grants the next request, then resolves the released promise")
send(req("A", "a2", "r", steal=True),
     [{"type": "stolen", "request": "b1"}, {"type": "granted", "request": "a2"}],
     "a steal takes the held lock first, then is granted")
send({"type": "release", "agent": "B", "request": "b1"}, [{"type": "released", "request": "b1"}],
     "releasing a stolen lock frees nothing but is answered")
send(req("B", "b3", "r"), [], "an exclusive request behind A's lock waits")
send({"type": "abort", "agent": "B", "request": "b3"}, [], "an abort is not answered")
send({"type": "query", "agent": "A", "query": "q3"},
     [{"type": "snapshot", "query": "q3", "held": [entry("r", "exclusive", "client-A")],
       "pending": []}], "the aborted request has left the queue")
send(req("B", "b4", "r"), [], "another request waits")
send({"type": "terminate", "agent": "A"}, [{"type": "granted", "request": "b4"}],
     "a terminated agent's lock goes, and the waiting request is granted")
# A message the protocol lacks (a mode of no LockMode): an error message, then exit 2.
server.stdin.write(json.dumps(req("B", "b5", "r", mode="sideways")) + "\n")
server.stdin.close()
answer = [json.loads(line) for line in server.stdout.read().splitlines()]
code = server.wait()
if code != 2 or [m.get("type") for m in answer] != ["error"] or list(FROM.iter_errors(answer[0])):
    problems.append(f"a mode the protocol lacks: exit {code}, said {answer}; expected one error "
                    "message and exit 2")
# Members of the wrong type are refused as the protocol's errors, never a crash.
for bad in ({"type": "request", "agent": "A", "request": "x", "name": "r", "mode": "exclusive",
             "ifAvailable": False, "steal": "yes"},
            {"type": "sync", "sync": "soon"}, [1, 2], "text"):
    lone = subprocess.run([os.path.join(BIN, "lockstep-lockservice")], text=True,
                          capture_output=True,
                          input=json.dumps({"type": "agent", "agent": "A", "storageKey": "k",
                                            "clientId": "A"}) + "\n" + json.dumps(bad) + "\n")
    said = [json.loads(line) for line in lone.stdout.splitlines()]
    if lone.returncode != 2 or [m.get("type") for m in said] != ["error"]:
        problems.append(f"{bad}: exit {lone.returncode}, said {said} {lone.stderr.strip()[:200]}; "
                        "expected one error message and exit 2")
for p in problems:
    print("FAIL", p)
print(f"lock-manager protocol: {syncs} exchanges; {'ok' if not problems else 'FAILED'}")
sys.exit(1 if problems else 0)
