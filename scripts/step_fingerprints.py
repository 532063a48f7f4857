#!/usr/bin/env python3
"""Fingerprints of the spec text behind every numbered step of spec-model/<spec>/steps.json.

    python3 scripts/step_fingerprints.py [--reference DIR]          # check (exit 1 on a change)
    python3 scripts/step_fingerprints.py [--reference DIR] --write  # record the text as it is

Each algorithm of a steps.json that the index locates in the spec source (`locate`, not `prose`)
carries `"fingerprint": "1:4f0c9a12 2:..."`: for each numbered step, the FNV-1a hash (32 bits)
of the step's own text in the spec source (its line and the lines that continue it, blanks
collapsed). The step index test catches a step that moves or is renumbered; this catches one
whose words change under the same number, which the model's code for that step must then be
read against again. --write updates the fingerprints in place (the anchor line of each
algorithm) once that is done. DIR defaults to ../shared/reference beside the checkout; when it
is not there the check is skipped (exit 0, said on stderr).
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBERED = re.compile(r"^( *)1\. (.*)$")


def fnv1a(text):
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def step_texts(source, locate):
    """{number: text} of the numbered steps of the algorithm block holding `locate`, numbered as
    the spec numbers them (every item is written "1." in Bikeshed's source)."""
    at = source.find(locate)
    if at < 0:
        return None
    # The block that holds `locate`: a locate text may be the block's own opening tag.
    begin = source.rfind("<div algorithm", 0, at + len("<div algorithm"))
    end = source.find("</div>", at)
    lines = source[begin:end].split("\n")
    out, counters, indents = {}, [], []
    current = None  # (number, indent) of the step whose text is being gathered
    for line in lines:
        m = NUMBERED.match(line)
        if m:
            indent = len(m.group(1))
            while indents and indents[-1] > indent:
                indents.pop()
            if not indents or indents[-1] < indent:
                indents.append(indent)
            level = len(indents) - 1
            del counters[level + 1:]
            counters.extend([0] * (level + 1 - len(counters)))
            counters[level] += 1
            number = ".".join(str(c) for c in counters[: level + 1])
            out[number] = m.group(2).strip()
            current = (number, indent)
        elif current and line.strip() and len(line) - len(line.lstrip(" ")) > current[1]:
            out[current[0]] += " " + line.strip()  # the step's text, continued
        else:
            current = None
    return {n: " ".join(t.split()) for n, t in out.items()}


def fingerprint(texts):
    return " ".join(f"{n}:{fnv1a(t)}" for n, t in texts.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default=os.path.join(os.path.dirname(ROOT), "shared",
                                                             "reference"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    problems, written = [], 0
    for spec in sorted(os.listdir(os.path.join(ROOT, "spec-model"))):
        path = os.path.join(ROOT, "spec-model", spec, "steps.json")
        if not os.path.exists(path):
            continue
        index = json.load(open(path))
        source_path = os.path.join(args.reference, index["source"])
        if not os.path.exists(source_path):
            print(f"step fingerprints: {source_path} is not here; skipped", file=sys.stderr)
            return 0
        source = open(source_path, encoding="utf-8").read()
        text = open(path, encoding="utf-8").read()
        for algorithm in index["algorithms"]:
            if algorithm.get("prose") or not algorithm.get("locate"):
                continue
            anchor = algorithm["anchor"]
            texts = step_texts(source, algorithm["locate"])
            if texts is None:
                problems.append(f"{spec}: {anchor}: its locate text is not in {index['source']}")
                continue
            indexed = set(algorithm["steps"])
            if set(texts) != indexed:
                problems.append(f"{spec}: {anchor}: the source's steps {sorted(set(texts) - indexed)} "
                                f"are not indexed, the index's {sorted(indexed - set(texts))} are "
                                "not in the source")
                continue
            now = fingerprint(texts)
            was = algorithm.get("fingerprint")
            if args.write:
                if was != now:
                    text = set_fingerprint(text, anchor, now)
                    written += 1
                continue
            if was is None:
                problems.append(f"{spec}: {anchor}: no fingerprint (--write records it)")
                continue
            old = dict(p.split(":") for p in was.split())
            for number, step in texts.items():
                if old.get(number) != fnv1a(step):
                    problems.append(f"{spec}: {anchor} {number}: the spec's text is not the one "
                                    f"recorded; read the model's step against it: {step}")
            for number in sorted(set(old) - set(texts)):
                problems.append(f"{spec}: {anchor} {number}: recorded, no longer in the spec")
        if args.write:
            open(path, "w", encoding="utf-8").write(text)
            json.loads(text)  # still JSON
    for p in problems:
        print("FAIL", p)
    if args.write:
        print(f"step fingerprints: {written} algorithms written")
    else:
        print(f"step fingerprints: {'ok' if not problems else f'{len(problems)} changed'}")
    return 1 if problems else 0


def set_fingerprint(text, anchor, value):
    """steps.json with the algorithm's anchor line carrying "fingerprint": value."""
    lines = text.split("\n")
    key = f'{{"anchor": "{anchor}",'
    for i, line in enumerate(lines):
        if line.strip().startswith(key):
            line = re.sub(r', "fingerprint": "[^"]*"', "", line)
            stripped = line.rstrip()
            assert stripped.endswith(","), f"{anchor}: its anchor line does not end in a comma"
            lines[i] = stripped[:-1] + f', "fingerprint": "{value}",'
            return "\n".join(lines)
    raise SystemExit(f"{anchor}: no anchor line in steps.json")


if __name__ == "__main__":
    sys.exit(main())
