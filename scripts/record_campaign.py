#!/usr/bin/env python3
"""Keeps a `lockstep fuzz --target` campaign's summary as a record for docs/conformance.md.

    python3 scripts/record_campaign.py RESULTS_DIR [--into docs/campaigns]

Writes docs/campaigns/TARGET/DATE-seed-FIRST.json: summary.json's counts, reasons and groups of
failures (signatures, counts, first seeds), without the paths of the kept files, which stay in
RESULTS_DIR; with the date and the target's version as its known.json gives it.
scripts/conformance_tables.py makes the report's table of targets from these records.
"""
import argparse
import datetime
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEPT = ("failures", "unknowns", "flakes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir")
    parser.add_argument("--into", default=os.path.join(ROOT, "docs", "campaigns"))
    args = parser.parse_args()
    summary_path = os.path.join(args.results_dir, "summary.json")
    if not os.path.exists(summary_path):
        print(f"record_campaign: {summary_path}: no such file", file=sys.stderr)
        return 2
    summary = json.load(open(summary_path))
    if summary.get("stoppedBy"):
        print(f"record_campaign: the campaign was stopped by {summary['stoppedBy']}; resume it "
              "first", file=sys.stderr)
        return 2
    target = summary["target"]
    known = os.path.join(ROOT, "traces", "divergences", target, "known.json")
    entry = json.load(open(os.path.join(ROOT, "adapters", "targets.json")))["targets"].get(target, {})
    record = {"target": target,
              "version": json.load(open(known)).get("version") if os.path.exists(known) else None,
              "date": datetime.date.today().isoformat(),
              "profile": entry.get("profile"), "without": entry.get("without")}
    for key, value in summary.items():
        if key in KEPT:
            record[key] = len(value)
        elif key == "failureGroups":
            record[key] = [{"signature": g["signature"], "failures": g["failures"],
                            "seeds": g["seeds"]} for g in value]
        elif key not in ("command",):
            record[key] = value
    folder = os.path.join(args.into, target)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{record['date']}-seed-{summary['firstSeed']}.json")
    with open(path, "w") as out:
        json.dump(record, out, indent=1)
        out.write("\n")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
