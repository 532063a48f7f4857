#!/usr/bin/env python3
"""lockstep render, opened in headless Chromium (Debian `chromium`).

For several corpus traces, two divergences, a busy 500-step trace over 6 agents and the corpus
index: the page renders without script errors; a divergence's highlighted row is the event that
`lockstep check --json` names; the busy page keeps only what is in view in the DOM. Screenshots
go to OUT_DIR. Usage: render_test.py LOCKSTEP SOURCE_DIR OUT_DIR
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters",
                                "js", "browser"))
import offline  # noqa: E402  (Chromium stays off the network)

LOCKSTEP, ROOT, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
CORPUS = os.path.join(ROOT, "traces", "corpus")
failures = []


def fail(what):
    failures.append(what)
    print("FAIL", what)


def chromium():
    found = os.environ.get("LOCKSTEP_CHROMIUM") or shutil.which("chromium")
    if not found:
        print("chromium is not installed: scripts/install-deps.sh --for-tests installs it")
        sys.exit(1)
    return found


class Dom(html.parser.HTMLParser):
    """The dumped DOM's elements as (tag, attributes, text) in document order."""

    def __init__(self, text):
        super().__init__()
        self.elements = []
        self.open = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        element = [tag, dict(attrs), ""]
        self.elements.append(element)
        if tag not in ("meta", "br", "img", "input", "link", "circle", "rect", "line"):
            self.open.append(element)

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for element in self.open:
            element[2] += data

    def find(self, tag=None, **attrs):
        return [e for e in self.elements if (tag is None or e[0] == tag) and
                all(e[1].get(k.replace("_", "-")) == v for k, v in attrs.items())]


def open_page(page, name, scratch):
    """Loads the page, saves a screenshot, returns its DOM after the page's script ran."""
    url = "file://" + os.path.abspath(page)
    common = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              *offline.CHROMIUM_FLAGS,
              "--user-data-dir=" + os.path.join(scratch, "profile-" + name),
              "--window-size=1400,1000"]
    shot = os.path.join(OUT, name + ".png")
    subprocess.run(common + ["--screenshot=" + shot, url], capture_output=True, timeout=120)
    if not os.path.exists(shot):
        fail(f"{name}: no screenshot was saved")
    dumped = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True,
                            timeout=120)
    dom = Dom(dumped.stdout)
    root = dom.find("html")
    body = dom.find("body")
    if not root or not body:
        fail(f"{name}: Chromium dumped no document ({dumped.stderr.strip()[-300:]})")
        return None
    errors = root[0][1].get("data-script-errors")
    if errors:
        fail(f"{name}: {errors} script error(s), the last: {root[0][1].get('data-last-error')}")
    if body[0][1].get("data-rendered") != "ok":
        fail(f"{name}: the page did not finish rendering ({body[0][1].get('data-rendered')})")
    return dom


def lockstep(*args, ok=(0,)):
    done = subprocess.run([LOCKSTEP, *args], capture_output=True, text=True, timeout=300)
    if done.returncode not in ok:
        fail(f"lockstep {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
    return done


def check_divergence(name, trace, log, scratch):
    """The page's highlighted row is the event check names."""
    verdict = json.loads(lockstep("check", trace, log, "--json", ok=(1,)).stdout)
    d = verdict["divergence"]
    page = os.path.join(scratch, name + ".html")
    lockstep("render", trace, "--log", log, "-o", page)
    dom = open_page(page, name, scratch)
    if dom is None:
        return
    rows = dom.find(id="divergence")
    if len(rows) != 1:
        fail(f"{name}: {len(rows)} highlighted divergences, expected 1")
        return
    attrs, text = rows[0][1], rows[0][2]
    for key, want in (("data-agent", d["agent"]), ("data-agent-index", str(d["agentIndex"])),
                      ("data-log-index", str(d.get("logIndex")))):
        if attrs.get(key) != want:
            fail(f"{name}: the page highlights {key}={attrs.get(key)}, check names {want}")
    observed = d["observed"]
    if observed["event"] not in text or f"(step {observed['step']})" not in text:
        fail(f"{name}: the highlighted row does not show the observed event: {text!r}")
    if len(dom.find("circle", **{"class": "event " + event_kind(d["instead"][0]) + " divergent"})) != 1:
        fail(f"{name}: the model's event is not marked in agent {d['agent']}'s lane")
    verdicts = dom.find("section", id="verdict")
    if not verdicts or "not allowed" not in verdicts[0][2]:
        fail(f"{name}: the verdict section does not say 'not allowed'")
    print(f"ok {name}: agent {d['agent']}'s event {d['agentIndex']} highlighted, as check says")


def event_kind(e):
    if e["event"] == "settled":
        return "rejected" if e["state"] == "rejected" else "fulfilled"
    return e["event"]


def main():
    os.makedirs(OUT, exist_ok=True)
    scratch = tempfile.mkdtemp()
    try:
        # Corpus traces of both specs render, with their coverage.
        for name in ("web-locks/example-token-refresh-across-tabs", "web-locks/steal-breaks-held-and-goes-first",
                     "scheduling/meet-lock-callback-yield-is-user-visible",
                     "scheduling/taskcontrol-delay-enqueue-order-at-expiry"):
            page = os.path.join(scratch, name.replace("/", "-") + ".html")
            lockstep("render", os.path.join(CORPUS, name + ".trace.json"), "--coverage", "-o", page)
            dom = open_page(page, name.replace("/", "-"), scratch)
            if dom is not None and not dom.find("section", id="coverage"):
                fail(f"{name}: no coverage section")
            elif dom is not None:
                print(f"ok {name}")

        # A divergence: two events of one agent swapped.
        trace = os.path.join(CORPUS, "web-locks/abort-non-head-request.trace.json")
        log = json.load(open(os.path.join(CORPUS, "web-locks/abort-non-head-request.log.json")))
        log["events"][1], log["events"][2] = log["events"][2], log["events"][1]
        swapped = os.path.join(scratch, "swapped.log.json")
        json.dump(log, open(swapped, "w"))
        check_divergence("divergence-swapped", trace, swapped, scratch)

        # A divergence reached only off the canonical schedule: the log of a pinned schedule that
        # runs A's lock callback before its tasks, with its last event moved to a later step.
        race = {"format": "lockstep-trace", "version": 1, "name": "callback-before-tasks",
                "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"}],
                "steps": [
                    {"agent": "A", "op": "postTask", "id": "t1", "settle": False},
                    {"agent": "A", "op": "request", "id": "r1", "name": "res", "settle": False},
                    {"agent": "A", "op": "postTask", "id": "t2"}]}
        race_trace = os.path.join(scratch, "race.trace.json")
        json.dump(race, open(race_trace, "w"))
        race["schedule"] = ["locks:default", "loop:A/web-locks"]
        pinned = os.path.join(scratch, "pinned.trace.json")
        json.dump(race, open(pinned, "w"))
        log = json.loads(lockstep("run", pinned).stdout)
        if log["events"][0]["event"] != "callback":
            fail(f"the pinned schedule did not run the callback first: {log['events'][0]}")
        log["events"][-1]["step"] += 1000
        moved = os.path.join(scratch, "moved.log.json")
        json.dump(log, open(moved, "w"))
        check_divergence("divergence-off-canonical", race_trace, moved, scratch)

        # A log allowed only under another reading (I-24): the page lists each reading searched,
        # with the verdict check gives it.
        trace = os.path.join(CORPUS, "web-locks/fifo-per-name.trace.json")
        log = os.path.join(CORPUS, "web-locks/fifo-per-name-note-reading.log.json")
        searches = json.loads(lockstep("check", trace, log, "--json").stdout)["searches"]
        page = os.path.join(scratch, "readings.html")
        lockstep("render", trace, "--log", log, "-o", page)
        dom = open_page(page, "readings-searched", scratch)
        if dom is not None:
            listed = [e[1].get("data-verdict") for e in dom.find("li") if "data-verdict" in e[1]]
            wanted = [s["verdict"] for s in searches]
            # The model's side is drawn under the readings that explain the log, so every row
            # of the comparison is the same event.
            differs = [e for e in dom.find("tr") if e[1].get("class") in ("differs", "divergence")]
            if len(dom.find("ul", **{"class": "searches"})) != 1 or listed != wanted:
                fail(f"readings: the page lists verdicts {listed}, check searched {wanted}")
            elif differs or not dom.find("tr", **{"class": "same"}):
                fail(f"readings: {len(differs)} rows differ from the model's run, though allowed")
            else:
                print(f"ok readings: the {len(listed)} readings searched listed, as check says")

        # A search that spends its budget: the page names the budget, as check's text does.
        trace = os.path.join(ROOT, "tests/check/loops-of-one-partition.trace.json")
        log = os.path.join(ROOT, "tests/check/loops-of-one-partition.log.json")
        report = json.loads(lockstep("check", trace, log, "--json", "--max-runs", "50",
                                     ok=(3,)).stdout)
        page = os.path.join(scratch, "unknown.html")
        lockstep("render", trace, "--log", log, "--max-runs", "50", "-o", page, ok=(0, 3))
        dom = open_page(page, "unknown-budget", scratch)
        if dom is not None:
            budget = dom.find("p", **{"class": "budget"})
            if report["verdict"] != "unknown" or report["maxRuns"] != 50:
                fail(f"unknown: check gave {report['verdict']} with maxRuns {report.get('maxRuns')}")
            elif len(budget) != 1 or budget[0][1].get("data-max-runs") != "50" \
                    or "--max-runs" not in budget[0][2]:
                fail(f"unknown: the page does not name the budget of 50 replays: {budget}")
            else:
                print("ok unknown: the page names the budget the search spent")

        # 500 steps over 6 agents: readable, because only what is in view is in the DOM.
        busy = os.path.join(scratch, "busy.trace.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/render/make_busy_trace.py"), busy],
                       check=True)
        page = os.path.join(scratch, "busy.html")
        lockstep("render", busy, "-o", page)
        dom = open_page(page, "busy-500-steps-6-agents", scratch)
        if dom is not None:
            b = dom.find("body")[0][1]
            drawn, drawable = int(b.get("data-drawn", 0)), int(b.get("data-drawable", 0))
            px, ticks = float(b.get("data-px-per-tick", 0)), int(b.get("data-ticks", 0))
            if ticks < 500 or not 0 < drawn < drawable / 2 or px < 4:
                fail(f"busy: {drawn} of {drawable} marks drawn over {ticks} ticks at {px} px/tick")
            else:
                print(f"ok busy: {drawn} of {drawable} marks in the DOM, {px} px per tick")
            agents = [e for e in dom.find("div") if "lane-label agent" == e[1].get("class")]
            if len(agents) != 6:
                fail(f"busy: {len(agents)} agent lanes, expected 6")

        # The corpus index: a card per scenario, each linking a page that exists.
        out = os.path.join(scratch, "corpus")
        lockstep("render", "--corpus", CORPUS, "-o", out)
        traces = [f for _, _, fs in os.walk(CORPUS) for f in fs if f.endswith(".trace.json")]
        dom = open_page(os.path.join(out, "index.html"), "corpus-index", scratch)
        if dom is not None:
            cards = dom.find("a", **{"class": "card"})
            pictures = dom.find("svg", **{"class": "thumb"})
            if len(cards) != len(traces) or len(pictures) != len(traces):
                fail(f"index: {len(cards)} cards, {len(pictures)} pictures for {len(traces)} traces")
            missing = [c[1]["href"] for c in cards if not os.path.exists(os.path.join(out, c[1]["href"]))]
            if missing:
                fail(f"index: links to pages not written: {missing[:3]}")
            not_allowed = [c[2] for c in cards if "expected log: allowed" not in c[2]]
            if not_allowed:
                fail(f"index: a corpus log is not shown as allowed: {not_allowed[0][:80]}")
            print(f"ok corpus index: {len(cards)} cards")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)


main()
