#!/usr/bin/env python3
"""Groups the failures of a `lockstep fuzz --target` results folder by what departs.

    python3 scripts/bucket_failures.py RESULTS_DIR [--lockstep build/lockstep]
        [--divergences traces/divergences/TARGET] [--max-runs N] [--json]

Each "not allowed" (and "unknown") failure that summary.json lists is checked again with
`lockstep check --json` (with --partial where adapters/targets.json marks the target's logs
partial), and reduced to its divergence's signature, which check gives (check/README.md,
"Signatures"): the first observed event no schedule explains and what the model logged there
instead, each as its event kind, the op behind its target (request, query, postTask, ...) and
outcome, plus whether the model's event belongs to an earlier, the same or a later step.
Failures with one signature form a bucket; buckets are printed largest first with a
few seeds each, so that a campaign's thousands of logs come down to a few behaviours to minimize.

With --divergences, the signature of every minimized divergence in that folder (a trace with the
target's log beside it, `NAME.<target>.log.json`) is computed the same way, and a bucket whose
signature equals one is marked "looks like NAME". A bucket whose signature differs from one only
in the modes of the lock callbacks it names (exclusive, shared, or a null lock) is marked "like
NAME but for the lock's mode": a bug in when callbacks run seldom depends on the mode, and a
campaign draws all three. A signature is coarse: a match says where to look first, not that the
cause is the same (docs/conformance.md classifies logs one by one).
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def signature(report):
    """The bucket of one check report: its divergence's signature, as `lockstep check --json`
    gives it (check/README.md, "Signatures"), split into what the target did and what the model
    did instead; None when check found no divergence."""
    divergence = report.get('divergence')
    if not divergence or not divergence.get('signature'):
        return None
    did, _, instead = divergence['signature'].partition(' | ')
    return did, instead


def key_text(key):
    return ' | '.join(part for part in key if part)


CALLBACK_MODE = re.compile(r'\bcallback (?:exclusive|shared|null lock|\?)')


def without_lock_modes(text):
    """A signature's text with the lock mode of every callback it names left out."""
    return CALLBACK_MODE.sub('callback', text)


def check(lockstep, trace_path, log_path, partial, max_runs):
    """Runs `lockstep check --json`; returns (verdict, report) or ('error', message)."""
    command = [lockstep, 'check', trace_path, log_path, '--json', '--max-runs', str(max_runs)]
    if partial:
        command.append('--partial')
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 2 or not done.stdout.strip():
        return 'error', (done.stderr.strip() or f'exit {done.returncode}')
    report = json.loads(done.stdout)
    return report.get('verdict', '?'), report


def target_is_partial(target):
    with open(os.path.join(ROOT, 'adapters', 'targets.json')) as f:
        targets = json.load(f)['targets']
    return bool(targets.get(target, {}).get('partial', False))


def known_signatures(lockstep, folder, target, partial, max_runs):
    """Signature -> names of the minimized divergences in `folder` that have it."""
    known = defaultdict(list)
    suffix = f'.{target}.log.json'
    for name in sorted(os.listdir(folder)):
        if not name.endswith(suffix):
            continue
        stem = name[:-len(suffix)]
        trace_path = os.path.join(folder, stem + '.trace.json')
        if not os.path.exists(trace_path):
            continue
        verdict, report = check(lockstep, trace_path, os.path.join(folder, name), partial,
                                max_runs)
        if verdict in ('not allowed', 'unknown'):
            key = signature(report)
            if key:
                known[key_text(key)].append(stem)
    return known


def bucket(results_dir, lockstep, divergences=None, max_runs=2000, jobs=2):
    with open(os.path.join(results_dir, 'summary.json')) as f:
        summary = json.load(f)
    target = summary.get('target', '')
    partial = target_is_partial(target)
    failures = [x for x in summary.get('failures', [])
                if x.get('kind') in ('not allowed', 'unknown') and x.get('log')]

    def one(failure):
        verdict, report = check(lockstep, failure['trace'], failure['log'], partial, max_runs)
        if verdict == 'error':
            return failure['seed'], verdict, (f'check failed: {report}', '')
        if verdict == 'allowed':
            return failure['seed'], verdict, ('allowed on this check', '')
        key = signature(report)
        return failure['seed'], verdict, key or ('no divergence reported', '')

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, failures))
    buckets = defaultdict(list)
    for seed, verdict, key in results:
        buckets[key].append({'seed': seed, 'verdict': verdict})
    known = known_signatures(lockstep, divergences, target, partial, max_runs) \
        if divergences else {}
    # Grouped by what the target did, largest group first.
    group_size = defaultdict(int)
    for (did, _), members in buckets.items():
        group_size[did] += len(members)
    known_but_for_modes = defaultdict(list)
    for text, names in known.items():
        known_but_for_modes[without_lock_modes(text)].extend(names)

    def row(did, instead, members):
        text = key_text((did, instead))
        looks_like = known.get(text, [])
        return {'signature': text, 'targetDid': did, 'instead': instead, 'count': len(members),
                'looksLike': looks_like,
                'likeButForLockModes': [name for name in
                                        known_but_for_modes.get(without_lock_modes(text), [])
                                        if name not in looks_like],
                'seeds': [m['seed'] for m in members]}

    rows = [row(did, instead, members) for (did, instead), members in buckets.items()]
    rows.sort(key=lambda r: (-group_size[r['targetDid']], r['targetDid'], -r['count'],
                             r['instead']))
    return {'target': target, 'failures': len(failures), 'buckets': rows,
            'groups': {k: v for k, v in sorted(group_size.items(), key=lambda kv: -kv[1])}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('results_dir')
    parser.add_argument('--lockstep', default=os.path.join(ROOT, 'build', 'lockstep'))
    parser.add_argument('--divergences', help='a traces/divergences/<target> folder')
    parser.add_argument('--max-runs', type=int, default=2000)
    parser.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.results_dir, 'summary.json')):
        print(f'bucket_failures: {args.results_dir}/summary.json: no such file '
              '(a `lockstep fuzz --target` results folder has one)', file=sys.stderr)
        return 2
    result = bucket(args.results_dir, args.lockstep, args.divergences, args.max_runs, args.jobs)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0
    print(f"{result['target']}: {result['failures']} failures in {len(result['buckets'])} buckets"
          f" ({len(result['groups'])} groups by what the target did)")
    group = None
    for row in result['buckets']:
        if row['targetDid'] != group:
            group = row['targetDid']
            print(f"{result['groups'][group]:6}  the target: {group}")
        like = f"  [looks like {', '.join(row['looksLike'])}]" if row['looksLike'] else ''
        if row['likeButForLockModes']:
            like += (f"  [like {', '.join(row['likeButForLockModes'])} but for the lock's"
                     ' mode]')
        seeds = ', '.join(f'gen-{s}' for s in row['seeds'][:3])
        print(f"{row['count']:10}  {row['instead']}{like}  (e.g. {seeds})")
    return 0


if __name__ == '__main__':
    sys.exit(main())
