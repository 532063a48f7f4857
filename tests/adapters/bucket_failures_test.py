#!/usr/bin/env python3
"""Tests scripts/bucket_failures.py on a results folder made of minimized divergences.

    bucket_failures_test.py LOCKSTEP SOURCE_DIR

The folder lists three navigator.locks failures: the stolen lock's DOMException "Error" twice
(as a campaign repeats one bug) and the aborted head request once. Checks that the two copies
share a bucket, that its signature says what the spec wants instead (an AbortError,
web-locks#algorithm-request-lock 3.4.1.1.2), that the missing grant reads as the agent's events
ending, that each bucket is matched to its own minimized divergence, and that a folder without
summary.json is refused with exit 2.

Then, against the Chromium divergences, Chromium's callbacks-without-a-checkpoint-between once as
minimized and once with its two inner requests made shared (trace and log alike, as a campaign
draws them): the first bucket looks like it, the second is like it but for the lock's mode.
"""
import json
import os
import subprocess
import sys
import tempfile

lockstep, source = sys.argv[1], sys.argv[2]
script = os.path.join(source, 'scripts', 'bucket_failures.py')
divergences = os.path.join(source, 'traces', 'divergences', 'navigator.locks')


def failure(seed, name):
    return {'seed': seed, 'kind': 'not allowed',
            'trace': os.path.join(divergences, name + '.trace.json'),
            'log': os.path.join(divergences, name + '.navigator.locks.log.json')}


problems = []
with tempfile.TemporaryDirectory() as results:
    with open(os.path.join(results, 'summary.json'), 'w') as f:
        json.dump({'target': 'navigator.locks', 'failures': [
            failure(1, 'stolen-lock-rejects-with-abort-error'),
            failure(2, 'aborted-head-request-processes-the-queue'),
            failure(3, 'stolen-lock-rejects-with-abort-error'),
            {'seed': 4, 'kind': 'adapter failure', 'trace': 'x', 'log': None}]}, f)
    done = subprocess.run([sys.executable, script, results, '--lockstep', lockstep,
                           '--divergences', divergences, '--json', '--jobs', '1'],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f'bucket_failures exited {done.returncode}: {done.stderr}')
    result = json.loads(done.stdout)
    by_seeds = {tuple(b['seeds']): b for b in result['buckets']}
    if result['failures'] != 3:
        problems.append(f"expected 3 failures judged (the adapter failure left out), got {result['failures']}")
    stolen = by_seeds.get((1, 3))
    if not stolen:
        problems.append(f'the two stolen-lock failures do not share a bucket: {result["buckets"]}')
    else:
        want = ('settled request rejected Error | instead: settled request rejected AbortError'
                " | model's step same")
        if stolen['signature'] != want:
            problems.append(f"stolen-lock signature: {stolen['signature']!r}, expected {want!r}")
        if stolen['targetDid'] != 'settled request rejected Error':
            problems.append(f"stolen-lock bucket's group: {stolen['targetDid']!r}")
        if stolen['looksLike'] != ['stolen-lock-rejects-with-abort-error']:
            problems.append(f"stolen-lock bucket looks like {stolen['looksLike']}")
    head = by_seeds.get((2,))
    if not head:
        problems.append(f'no bucket of its own for the aborted head request: {result["buckets"]}')
    else:
        if not head['signature'].startswith("the agent's events end | instead: callback shared"):
            problems.append(f"aborted-head signature: {head['signature']!r}")
        if head['looksLike'] != ['aborted-head-request-processes-the-queue']:
            problems.append(f"aborted-head bucket looks like {head['looksLike']}")
    if list(result['groups'].values()) != [2, 1]:
        problems.append(f"groups, largest first: {result['groups']}")

chromium = os.path.join(source, 'traces', 'divergences', 'chromium')
minimized = 'callbacks-without-a-checkpoint-between'
with tempfile.TemporaryDirectory() as results:
    with open(os.path.join(chromium, minimized + '.trace.json')) as f:
        trace = json.load(f)
    with open(os.path.join(chromium, minimized + '.chromium.log.json')) as f:
        log = json.load(f)
    inner = {'r2', 'r3'}
    for action in trace['steps'][0]['callback']['body']:
        if action.get('id') in inner:
            action['options'] = {'mode': 'shared'}
    for event in log['events']:
        if event.get('event') == 'callback' and event.get('request') in inner:
            event['lock']['mode'] = 'shared'
    with open(os.path.join(results, 'shared.trace.json'), 'w') as f:
        json.dump(trace, f)
    with open(os.path.join(results, 'shared.log.json'), 'w') as f:
        json.dump(log, f)
    with open(os.path.join(results, 'summary.json'), 'w') as f:
        json.dump({'target': 'chromium', 'failures': [
            {'seed': 5, 'kind': 'not allowed',
             'trace': os.path.join(chromium, minimized + '.trace.json'),
             'log': os.path.join(chromium, minimized + '.chromium.log.json')},
            {'seed': 6, 'kind': 'not allowed',
             'trace': os.path.join(results, 'shared.trace.json'),
             'log': os.path.join(results, 'shared.log.json')}]}, f)
    done = subprocess.run([sys.executable, script, results, '--lockstep', lockstep,
                           '--divergences', chromium, '--json', '--jobs', '1'],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f'bucket_failures (chromium) exited {done.returncode}: {done.stderr}')
    by_seeds = {tuple(b['seeds']): b for b in json.loads(done.stdout)['buckets']}
    exclusive, shared = by_seeds.get((5,)), by_seeds.get((6,))
    if not exclusive or not shared:
        problems.append(f'the two modes do not have a bucket each: {list(by_seeds.values())}')
    else:
        if (exclusive['looksLike'], exclusive['likeButForLockModes']) != ([minimized], []):
            problems.append(f'the minimized divergence: looks like {exclusive["looksLike"]}, '
                            f'like but for modes {exclusive["likeButForLockModes"]}')
        if not shared['targetDid'].startswith('callback shared'):
            problems.append(f"the shared copy's group: {shared['targetDid']!r}")
        if (shared['looksLike'], shared['likeButForLockModes']) != ([], [minimized]):
            problems.append(f'the shared copy: looks like {shared["looksLike"]}, '
                            f'like but for modes {shared["likeButForLockModes"]}')

with tempfile.TemporaryDirectory() as empty:
    done = subprocess.run([sys.executable, script, empty, '--lockstep', lockstep],
                          capture_output=True, text=True)
    if done.returncode != 2 or 'summary.json' not in done.stderr:
        problems.append(f'a folder without summary.json: exit {done.returncode}, {done.stderr!r}')

for p in problems:
    print('FAIL', p)
sys.exit(1 if problems else 0)
