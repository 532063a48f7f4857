#!/usr/bin/env python3
"""The corpus replayed on a real engine through its adapter (adapters/targets.json), each log
judged by check.

Fails when a corpus trace the target can express ends other than allowed without being listed,
with its cause, in traces/divergences/TARGET/known.json; when a minimized divergence there no
longer diverges (the engine changed: the report must too); or when the adapter itself fails.
A target that serves many traces from one process (targets.json "serve") is replayed so, as
`fuzz --target` replays it (with as many traces in flight as its "serveAtOnce" says); --one-shot
starts the adapter per trace instead. An unlisted
divergence is run once more, as `fuzz --target` runs a failure again before keeping it: through
the one-shot command with LOCKSTEP_SETTLE_SCALE=4 (adapters/README.md, "Flaky failures"); one
that this run does not repeat is reported as flaky, not as a failure.
Usage: engine_corpus.py LOCKSTEP SOURCE_DIR TARGET [--one-shot] [--record FILE]
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

LOCKSTEP, ROOT, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
OPTIONS = sys.argv[4:]
# --record FILE: the run's outcome per corpus trace and its counts, as JSON, for
# scripts/conformance_tables.py (docs/campaigns/TARGET/corpus.json).
RECORD = OPTIONS[OPTIONS.index("--record") + 1] if "--record" in OPTIONS else None
ADAPTERS = os.path.join(ROOT, "adapters")
ENTRY = json.load(open(os.path.join(ADAPTERS, "targets.json")))["targets"][TARGET]
SERVE = "serve" in ENTRY and "--one-shot" not in OPTIONS
BIN = os.path.dirname(os.path.abspath(LOCKSTEP))  # {bin}: the build's programs
RERUN_SETTLE_SCALE = "4"  # fuzz_target.h's kRerunSettleScale
COMMAND = ENTRY["command"]
server = None  # the serve command's process, with --serve
CORPUS = os.path.join(ROOT, "traces/corpus")
DIVERGENCES = os.path.join(ROOT, "traces/divergences", TARGET)
failures = []


def start_server():
    global server
    if server is None:
        server = subprocess.Popen([a.replace("{adapters}", ADAPTERS).replace("{bin}", BIN)
                                   for a in shlex.split(ENTRY["serve"])],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return server


def run_adapter(trace, log, settle_scale=None):
    """The adapter's exit code and what it said; with settle_scale, the one-shot command's with
    LOCKSTEP_SETTLE_SCALE set."""
    if SERVE and settle_scale is None:
        served = start_server()
        served.stdin.write(json.dumps({"trace": trace, "log": log}) + "\n")
        served.stdin.flush()
        answer = json.loads(served.stdout.readline())
        return answer["exit"], answer["message"]
    argv = [a.replace("{adapters}", ADAPTERS).replace("{bin}", BIN).replace("{trace}", trace)
            .replace("{log}", log)
            for a in shlex.split(COMMAND)]
    env = dict(os.environ, LOCKSTEP_SETTLE_SCALE=settle_scale) if settle_scale else None
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
    return done.returncode, done.stderr


def run_all(jobs, at_once):
    """Each (trace, log) of `jobs` run by the adapter: {trace: (exit code, what it said)}, up to
    `at_once` in flight on its server, each request with an id, as `fuzz --target --jobs` hands
    them; one at a time when `at_once` is 1."""
    if at_once == 1:
        return {trace: run_adapter(trace, log) for trace, log in jobs}
    served = start_server()
    answers, waiting = {}, list(enumerate(jobs))
    in_flight = 0
    while waiting or in_flight:
        while waiting and in_flight < at_once:
            i, (trace, log) = waiting.pop(0)
            served.stdin.write(json.dumps({"id": i, "trace": trace, "log": log}) + "\n")
            served.stdin.flush()
            in_flight += 1
        answer = json.loads(served.stdout.readline())
        answers[jobs[answer["id"]][0]] = (answer["exit"], answer["message"])
        in_flight -= 1
    return answers


def judge(trace, log, code, said):
    """'cannot' (not expressible), 'crash', or the verdict of check on the target's log."""
    if code == 4:
        return "cannot", said.strip()
    if code != 0:
        return "crash", (said.strip().splitlines() or [""])[0]
    checked = subprocess.run([LOCKSTEP, "check", trace, log, "--partial", "--json"],
                             capture_output=True, text=True, timeout=300)
    if checked.returncode not in (0, 1, 3):
        failures.append(f"check failed on {trace}: {checked.stderr.strip()}")
        return "error", checked.stderr.strip()
    return json.loads(checked.stdout)["verdict"], ""


def replay(trace, log, settle_scale=None):
    """judge() of one adapter run of the trace."""
    return judge(trace, log, *run_adapter(trace, log, settle_scale))


def replay_all(traces, scratch, at_once=1):
    """replay() of every trace, run as run_all() runs them: {trace: (outcome, detail, log)},
    each trace's log kept as scratch/<n>.log.json."""
    logs = {t: os.path.join(scratch, f"{n}.log.json") for n, t in enumerate(traces)}
    ran = run_all([(t, logs[t]) for t in traces], at_once)
    return {t: (*judge(t, logs[t], *ran[t]), logs[t]) for t in traces}


def main():
    program = shlex.split(COMMAND)[0].replace("{adapters}", ADAPTERS)
    if os.path.sep in program and not os.path.exists(program):
        print(f"{program} is not installed: scripts/install-deps.sh --for-tests installs it")
        sys.exit(1)
    known = json.load(open(os.path.join(DIVERGENCES, "known.json")))
    scratch = tempfile.mkdtemp()
    corpus = {}  # path -> name, in the corpus's order
    for folder, _, files in sorted(os.walk(CORPUS)):
        for f in sorted(files):
            if f.endswith(".trace.json"):
                path = os.path.join(folder, f)
                corpus[path] = os.path.relpath(path, CORPUS)[: -len(".trace.json")]
    counts = {}
    outcomes = {}  # corpus trace -> its outcome
    reasons = {}  # what it cannot express, and how many corpus traces
    # The corpus as a campaign runs traces: as many in flight as the target's server takes.
    at_once = ENTRY.get("serveAtOnce", 1) if SERVE else 1
    for path, (outcome, detail, log) in replay_all(list(corpus), scratch, at_once).items():
        name = corpus[path]
        outcomes[name] = outcome
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == "cannot":
            # The reason, as fuzz --target counts it: the trace's own ids left out.
            reason = detail.removeprefix("cannot express: ").split(" (")[0] or "no reason given"
            reasons[reason] = reasons.get(reason, 0) + 1
        if outcome in ("allowed", "cannot"):
            continue
        cause = known["corpus"].get(name)
        if cause is None:
            again, _ = replay(path, log + ".again", RERUN_SETTLE_SCALE)
            if again == "allowed":
                print(f"flaky {name}: {outcome} {detail}, then allowed when settled "
                      f"{RERUN_SETTLE_SCALE}x longer")
                counts[outcome] -= 1
                counts["flaky"] = counts.get("flaky", 0) + 1
                continue
            # Kept for the report: a timing-dependent divergence may not come back.
            kept = os.path.join(scratch, name.replace("/", "-") + f".{TARGET}.log.json")
            shutil.copy(log, kept) if os.path.exists(log) else None
            failures.append(f"{name}: {outcome} on {TARGET}, and known.json lists no cause "
                            f"{detail} (its log: {kept})")
        else:
            print(f"known {name}: {outcome} ({cause})")
    for name in known["corpus"].values():
        if not os.path.exists(os.path.join(DIVERGENCES, name + ".trace.json")):
            failures.append(f"known.json names {name}, which has no trace")
    # Every minimized divergence still diverges (an intermittent one may not, on one run); one
    # at a time, as each was minimized (some rest on timing another trace in flight would shift).
    divergences = [os.path.join(DIVERGENCES, f) for f in sorted(os.listdir(DIVERGENCES))
                   if f.endswith(".trace.json")]
    for path, (outcome, detail, _) in replay_all(divergences, scratch).items():
        name = os.path.basename(path)[: -len(".trace.json")]
        if outcome in ("not allowed", "crash"):
            print(f"reproduced {name}: {outcome} {detail}")
        elif name in known.get("intermittent", []):
            print(f"not reproduced this run (intermittent) {name}: {outcome}")
        else:
            failures.append(f"divergence {name} no longer diverges on {TARGET}: {outcome} {detail}")
    if server:
        server.stdin.close()
        server.wait()
    print(f"{TARGET} corpus{' (served)' if SERVE else ''}: " +
          ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    if reasons:
        print("cannot express: " + "; ".join(
            f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))))
    if RECORD:
        import datetime
        with open(RECORD, "w") as out:
            json.dump({"target": TARGET, "version": known.get("version"),
                       "date": datetime.date.today().isoformat(), "served": SERVE,
                       "traces": len(outcomes), "counts": counts,
                       "cannotExpress": dict(sorted(reasons.items(), key=lambda i: (-i[1], i[0]))),
                       "explainedBy": {n: known["corpus"][n] for n in sorted(outcomes)
                                       if n in known["corpus"] and outcomes[n] not in ("allowed", "cannot")},
                       "failures": failures, "outcomes": outcomes}, out, indent=1)
            out.write("\n")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


main()
