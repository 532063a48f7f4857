#!/usr/bin/env python3
"""The table of targets in docs/conformance.md, made from data, so that it cannot go stale.

    python3 scripts/conformance_tables.py           # rewrite the table in docs/conformance.md
    python3 scripts/conformance_tables.py --check   # exit 1 when the table is not what the data says

A row per target of adapters/targets.json, in its order: what runs it (the target's description),
the corpus suite's last recorded run (docs/campaigns/TARGET/corpus.json, written by
`tests/adapters/engine_corpus.py ... --record`), every recorded campaign
(docs/campaigns/TARGET/*-seed-*.json, written by scripts/record_campaign.py from a campaign's
summary.json), and the minimized divergences kept in traces/divergences/TARGET/. The table sits
between the BEGIN and END markers below; the rest of the report is prose.
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = os.path.join(ROOT, "docs", "conformance.md")
BEGIN = "<!-- BEGIN table of targets: made by scripts/conformance_tables.py from docs/campaigns/; do not edit -->"
END = "<!-- END table of targets -->"


def first_clause(text):
    """The description up to its first comma or colon outside parentheses."""
    depth = 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if c in ",:" and depth == 0:
            return text[:i]
    return text


def n(count, one, many=None):
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def corpus_cell(target):
    path = os.path.join(ROOT, "docs", "campaigns", target, "corpus.json")
    if not os.path.exists(path):
        return "not recorded"
    c = json.load(open(path))
    counts = c["counts"]
    expressible = c["traces"] - counts.get("cannot", 0)
    parts = [f"{counts.get('allowed', 0)} allowed"]
    explained = len(c["explainedBy"])
    departed = expressible - counts.get("allowed", 0) - counts.get("flaky", 0)
    if departed:
        parts.append(f"{departed} not allowed or crashed, explained by "
                     f"{n(len(set(c['explainedBy'].values())), 'divergence')}"
                     + (f" ({departed - explained} unexplained)" if departed > explained else ""))
    if counts.get("flaky"):
        parts.append(f"{counts['flaky']} flaky")
    return (f"{expressible} of {c['traces']} traces expressible ({c['date']}"
            f"{', served' if c.get('served') else ''}): " + ", ".join(parts))


def campaign_cell(target):
    records = [json.load(open(p)) for p in
               glob.glob(os.path.join(ROOT, "docs", "campaigns", target, "*-seed-*.json"))]
    if not records:
        return "none recorded"
    out = []
    for r in sorted(records, key=lambda r: (r["date"], r["firstSeed"])):
        counts = [f"{r['allowed']:,} allowed", f"{r['notAllowed']:,} not allowed"]
        for key, words in (("adapterFailures", "adapter failure"),
                           ("cannotExpress", "cannot express"), ("unknown", "unknown"),
                           ("flaky", "flaky")):
            if r.get(key):
                counts.append(f"{r[key]:,} {words}" + ("s" if key == "adapterFailures" and
                                                         r[key] != 1 else ""))
        groups = r.get("failureGroups") or []
        last = r["firstSeed"] + r["traces"] - 1
        out.append(f"{r['traces']:,} traces (seeds {r['firstSeed']}-{last}, {r['date']}, "
                   f"{r['seconds']:,.0f} s{', served' if r.get('served') else ''}): "
                   + ", ".join(counts)
                   + (f"; {n(len(groups), 'signature')} of failure" if groups else ""))
    return "; ".join(out)


def divergences_cell(target):
    kept = sorted(glob.glob(os.path.join(ROOT, "traces", "divergences", target, "*.trace.json")))
    return f"{len(kept)} minimized (`traces/divergences/{target}/`)" if kept else "none"


def table():
    targets = json.load(open(os.path.join(ROOT, "adapters", "targets.json")))["targets"]
    rows = ["| target | what runs it | corpus suite, last recorded run | campaigns recorded "
            "| divergences |", "|---|---|---|---|---|"]
    for name, entry in targets.items():
        known = os.path.join(ROOT, "traces", "divergences", name, "known.json")
        version = json.load(open(known)).get("version") if os.path.exists(known) else None
        # A version that is a number says which release; one that is words says what runs.
        described = first_clause(entry["description"])
        runs = (version if version and not version[0].isdigit()
                else described + (f"; version {version}" if version else ""))
        cells = [f"`{name}`", runs, corpus_cell(name),
                 campaign_cell(name), divergences_cell(name)]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def main():
    report = open(REPORT, encoding="utf-8").read()
    if BEGIN not in report or END not in report:
        print(f"conformance_tables: {REPORT} has no {BEGIN!r} ... {END!r}", file=sys.stderr)
        return 2
    head, rest = report.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    made = head + BEGIN + "\n" + table() + END + tail
    if "--check" in sys.argv[1:]:
        if made != report:
            print("conformance_tables: docs/conformance.md's table of targets is not what "
                  "docs/campaigns/ and traces/divergences/ say: run scripts/conformance_tables.py")
            return 1
        print("conformance_tables: the table of targets is up to date")
        return 0
    open(REPORT, "w", encoding="utf-8").write(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
