#!/usr/bin/env python3
"""Checks the JSON Schemas: every corpus trace and log validates, and known-bad documents do not.

Usage: check_schemas.py REPO_ROOT. Needs the jsonschema module (Debian: python3-jsonschema).
"""
import copy
import json
import pathlib
import sys

import jsonschema


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    schemas = root / "traces" / "schema"
    trace_schema = json.loads((schemas / "trace.schema.json").read_text())
    log_schema = json.loads((schemas / "log.schema.json").read_text())
    trace_validator = jsonschema.Draft202012Validator(trace_schema)
    log_validator = jsonschema.Draft202012Validator(log_schema)
    passed = failed = 0

    def expect(ok: bool, what: str) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL " + what)

    def errors(validator, doc):
        return [e.message for e in validator.iter_errors(doc)]

    corpus = root / "traces" / "corpus"
    for path in sorted(corpus.rglob("*.trace.json")):
        errs = errors(trace_validator, json.loads(path.read_text()))
        expect(not errs, f"{path}: {errs[:2]}")
    for path in sorted(corpus.rglob("*.log.json")):
        errs = errors(log_validator, json.loads(path.read_text()))
        expect(not errs, f"{path}: {errs[:2]}")

    base = {"format": "lockstep-trace", "version": 1,
            "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
            "steps": [{"agent": "A", "op": "request", "id": "r", "name": "n", "options": {"mode": "shared"}}]}
    expect(not errors(trace_validator, base), "the base trace validates")

    def bad(label, change):
        doc = copy.deepcopy(base)
        change(doc)
        expect(bool(errors(trace_validator, doc)), f"schema accepted a bad trace: {label}")

    bad("misspelt option", lambda d: d["steps"][0]["options"].update({"ifAvailble": True}))
    bad("unknown op", lambda d: d["steps"].append({"agent": "A", "op": "grab"}))
    bad("await at top level", lambda d: d["steps"].append({"agent": "A", "op": "await", "target": "r"}))
    bad("missing id", lambda d: d["steps"][0].pop("id"))
    bad("wrong mode", lambda d: d["steps"][0]["options"].update({"mode": "read"}))
    bad("agent inside a body", lambda d: d["steps"].append(
        {"agent": "A", "op": "run", "body": [{"agent": "A", "op": "mark", "label": "x"}]}))
    bad("worker on a shared event loop", lambda d: d["agents"].append(
        {"id": "W", "kind": "worker", "origin": "o", "eventLoop": "L"}))
    bad("advanceTime with an agent", lambda d: d["steps"].append({"agent": "A", "op": "advanceTime", "ms": 1}))

    good_log = {"format": "lockstep-log", "version": 1, "events": [
        {"step": 0, "agent": "A", "event": "settled", "target": "r", "state": "fulfilled", "value": 1}]}
    expect(not errors(log_validator, good_log), "the base log validates")
    for label, event in [
        ("bad state", {"step": 0, "agent": "A", "event": "settled", "target": "r", "state": "done"}),
        ("rejected with a value", {"step": 0, "agent": "A", "event": "settled", "target": "r", "state": "rejected", "value": 1}),
        ("unknown event", {"step": 0, "agent": "A", "event": "granted"}),
        ("negative step", {"step": -1, "agent": "A", "event": "mark", "label": "x"}),
    ]:
        doc = copy.deepcopy(good_log)
        doc["events"] = [event]
        expect(bool(errors(log_validator, doc)), f"schema accepted a bad log: {label}")

    print(f"schemas: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
