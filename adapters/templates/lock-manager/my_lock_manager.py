#!/usr/bin/env python3
"""A lock manager of the lock-manager protocol (adapters/protocol/README.md) in a language that is
not JavaScript: web-locks' lock task queue, step by step, to copy and replace with your own.
lockstep's Node.js runner plays the agents and sends this program their calls as JSON lines on
stdin; it writes what the lock task queue decides as JSON lines on stdout.
"""
import json
import sys


def write(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


class Manager:
    """A lock manager (web-locks#lock-manager): one per storage key."""

    def __init__(self):
        self.queues = {}  # the lock request queue map: name -> requests, in order
        self.held = []    # the held lock set, in the order the locks were granted

    def queue(self, name):
        return self.queues.setdefault(name, [])

    def grantable(self, request):
        """web-locks#grantable."""
        queue = self.queue(request["name"])
        if queue and queue[0] is not request:
            return False
        same_name = [lock for lock in self.held if lock["name"] == request["name"]]
        if request["mode"] == "exclusive":
            return not same_name
        return all(lock["mode"] == "shared" for lock in same_name)

    def process(self, name):
        """web-locks#algorithm-process-request."""
        queue = self.queue(name)
        while queue and self.grantable(queue[0]):
            request = queue.pop(0)
            self.held.append(request)
            write({"type": "granted", "request": request["request"]})


managers = {}  # storage key -> Manager
agents = {}    # agent id -> its storage key
client_ids = {}  # agent id -> the clientId snapshots report for it
requests = {}  # request id -> the request (a lock, once granted)


def handle(m):
    kind = m["type"]
    if kind == "agent":
        agents[m["agent"]] = m["storageKey"]
        client_ids[m["agent"]] = m["clientId"]
        managers.setdefault(m["storageKey"], Manager())
        return
    if kind == "sync":
        write({"type": "synced", "sync": m["sync"]})
        return
    manager = managers[agents[m["agent"]]]
    if kind == "request":  # web-locks#algorithm-request-lock step 3
        request = dict(m, clientId=client_ids[m["agent"]])
        requests[m["request"]] = request
        queue = manager.queue(m["name"])
        if m["steal"]:
            for lock in [lock for lock in manager.held if lock["name"] == m["name"]]:
                manager.held.remove(lock)
                write({"type": "stolen", "request": lock["request"]})
            queue.insert(0, request)
        else:
            if m["ifAvailable"] and not manager.grantable(request):
                write({"type": "notAvailable", "request": m["request"]})
                return
            queue.append(request)
        manager.process(m["name"])
    elif kind == "release":  # web-locks#algorithm-release-lock, then the released promise
        lock = requests[m["request"]]
        if lock in manager.held:
            manager.held.remove(lock)
            manager.process(lock["name"])
        write({"type": "released", "request": m["request"]})
    elif kind == "abort":  # web-locks#algorithm-abort-request
        request = requests[m["request"]]
        queue = manager.queue(request["name"])
        if request in queue:
            queue.remove(request)
            manager.process(request["name"])
    elif kind == "query":  # web-locks#algorithm-snapshot-state
        entry = lambda r: {"name": r["name"], "mode": r["mode"], "clientId": r["clientId"]}
        write({"type": "snapshot", "query": m["query"],
               "held": [entry(lock) for lock in manager.held],
               "pending": [entry(r) for queue in manager.queues.values() for r in queue]})
    elif kind == "terminate":  # web-locks#terminate-remaining-locks-and-requests
        for request in [r for queue in manager.queues.values() for r in queue
                        if r["agent"] == m["agent"]]:
            queue = manager.queue(request["name"])
            if request in queue:  # else granted while an earlier one was aborted: released below
                queue.remove(request)  # 1.1: abort the request
                manager.process(request["name"])
        for lock in [lock for lock in manager.held if lock["agent"] == m["agent"]]:
            manager.held.remove(lock)  # 2.1: release the lock
            manager.process(lock["name"])
    else:
        raise ValueError(f"unknown message type {kind!r}")


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        handle(json.loads(line))
    except (ValueError, KeyError, TypeError) as e:
        write({"type": "error", "message": f"cannot handle {line.strip()[:200]}: {e!r}"})
        sys.exit(2)
