#!/usr/bin/python3
"""Turns bench/results/*.json into docs/perf-queue-depth.png and markdown tables.

Usage: bench/plot.py [--results DIR] [--png FILE] [--tables]

- cpp.json: Google Benchmark JSON of build/bench/lockstep_bench (spec and impl);
- node.json: bench/node/locks_bench.mjs (Node's navigator.locks), optional;
- memory.json: Google Benchmark JSON of lockstep_memory_bench, optional (tables only);
- replay.json: bench/run.sh's whole-trace replay figures, optional (tables only).

ns/op is taken from items_per_second (CPU time) for C++ and from the median sample for Node. For
a C++ benchmark repeated several times, the median aggregate is used.
It needs Debian's python3-matplotlib (hence /usr/bin/python3).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_name(name):
    """'BM_QueueDepth/impl/1000/repeats:5' -> ('BM_QueueDepth', 'impl', 1000)."""
    parts = [p for p in name.split("/") if ":" not in p]
    family, engine = parts[0], parts[1]
    arg = int(parts[2]) if len(parts) > 2 else None
    return family, engine, arg


def load_cpp(path):
    """{(family, engine, arg): benchmark entry} with ns_per_op and ops_per_s added."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            continue
        repeated = b.get("run_type") == "aggregate" or b.get("repetitions", 1) > 1
        if repeated and b.get("aggregate_name") != "median":
            continue
        if "items_per_second" not in b:
            continue
        key = parse_name(b["run_name"])
        entry = dict(b)
        entry["ops_per_s"] = b["items_per_second"]
        entry["ns_per_op"] = 1e9 / b["items_per_second"]
        out[key] = entry
    return out, data.get("context", {})


def load_node(path):
    if not os.path.exists(path):
        return {}, None
    with open(path) as f:
        data = json.load(f)
    out = {}
    for r in data["results"]:
        if "ns_per_op" in r:  # a workload Node could not run carries "error" instead
            out[(r["workload"], "node", r.get("arg"))] = r
    return out, data


def plot(cpp, node, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    series = [("spec", "spec model", "o-", cpp), ("impl", "impl (LockManager core)", "s-", cpp),
              ("node", "Node.js 26 navigator.locks", "^-", node)]
    for engine, label, style, source in series:
        points = sorted((k[2], v["ns_per_op"]) for k, v in source.items()
                        if k[0] == "BM_QueueDepth" and k[1] == engine)
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("requests waiting on the name (queue depth)")
    ax.set_ylabel("ns per op (release that grants the next + one request)")
    ax.set_title("Cost per op vs queue depth, one name (lower is better)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.text(0.01, 0.01, "CPU time per op. spec/impl: Google Benchmark on the C++ models; Node: whole "
             "process, incl. JS and promise jobs. Shared 2-core VM: noisy.", fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(png)
    print(f"wrote {png}", file=sys.stderr)


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"


def fmt_rate(ops):
    if ops is None:
        return "–"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if ops >= scale:
            return f"{ops / scale:.3g} {unit}"
    return f"{ops:.3g}"


def tables(cpp, node, results_dir):
    keys = []
    for k in list(cpp) + list(node):
        row = (k[0], k[2])
        if row not in keys:
            keys.append(row)
    print("| workload | N | spec ns/op | impl ns/op | Node ns/op | spec ops/s | impl ops/s | "
          "Node ops/s | impl vs spec | impl vs Node |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for family, arg in keys:
        s = cpp.get((family, "spec", arg))
        i = cpp.get((family, "impl", arg))
        n = node.get((family, "node", arg))
        ns = lambda e: e["ns_per_op"] if e else None
        ops = lambda e: e["ops_per_s"] if e else None
        ratio = lambda a, b: f"{a['ns_per_op'] / b['ns_per_op']:.3g}×" if a and b else "–"
        print(f"| {family[3:]} | {arg if arg is not None else ''} | {fmt_ns(ns(s))} | "
              f"{fmt_ns(ns(i))} | {fmt_ns(ns(n))} | {fmt_rate(ops(s))} | {fmt_rate(ops(i))} | "
              f"{fmt_rate(ops(n))} | {ratio(s, i)} | {ratio(n, i)} |")

    memory_path = os.path.join(results_dir, "memory.json")
    if os.path.exists(memory_path):
        with open(memory_path) as f:
            memory = json.load(f)
        print("\n| measurement | engine | N | bytes per held lock | bytes per pending request |")
        print("|---|---|---|---|---|")
        for b in memory["benchmarks"]:
            family, engine, arg = parse_name(b["run_name"])
            held = b.get("bytes_per_held_lock")
            pending = b.get("bytes_per_pending_request")
            print(f"| {family[3:]} | {engine} | {arg} | {f'{held:.0f}' if held else '–'} | "
                  f"{f'{pending:.0f}' if pending else '–'} |")

    replay_path = os.path.join(results_dir, "replay.json")
    if os.path.exists(replay_path):
        with open(replay_path) as f:
            print("\nreplay:", json.dumps(json.load(f), indent=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    parser.add_argument("--png", default=os.path.join(ROOT, "docs", "perf-queue-depth.png"))
    parser.add_argument("--tables", action="store_true", help="print markdown tables as well")
    args = parser.parse_args()
    cpp, _ = load_cpp(os.path.join(args.results, "cpp.json"))
    node, _ = load_node(os.path.join(args.results, "node.json"))
    plot(cpp, node, args.png)
    if args.tables:
        tables(cpp, node, args.results)


if __name__ == "__main__":
    main()
