// Unit tests of adapters/js/clock.mjs, the runners' plan of a trace's virtual clock on real time:
// which instants a timer may fall due at, the windows and slots a plan gives them, the real
// deadline a timer starts with, and the checks that fail a run whose engine did not keep to the
// plan (the last one end to end, through the Node runner). Run with `node --test`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  AgentClock, Clock, START_ORDER_MS, dueInstants, deadlineAt, now, planTimers, stepInstants,
  virtualAt,
} from '../../adapters/js/clock.mjs';

// A setTimeout of 5 and a postTask delayed 10 ms at instant 0, the clock moved to 5, a lock
// callback that starts a 0 ms timer (at instant 5 at the earliest), the clock moved to 15.
const steps = [
  { agent: 'A', op: 'setTimeout', id: 't1', ms: 5 },
  { agent: 'A', op: 'postTask', id: 'p', options: { delay: 10 } },
  { op: 'advanceTime', ms: 5 },
  { agent: 'A', op: 'request', id: 'r', name: 'L',
    callback: { body: [{ op: 'setTimeout', id: 't3', ms: 0 }] } },
  { op: 'advanceTime', ms: 10 },
];
// Budgets: 100 ms a step, 50 ms an instant's slot.
const plan = planTimers(steps, { stepMs: () => 100, slotMs: 50 });

test('steps begin at the virtual time the advanceTime steps before them reached', () => {
  assert.deepEqual(stepInstants(steps), [0, 0, 0, 5, 5]);
});

test('a timer may fall due at a step instant or a due instant plus its delay, up to the end', () => {
  // t1: 0+5, 5+5, 10+5; p: 0+10, 5+10; t3: 5, 10, 15; 20 and 25 lie past the last instant, 15.
  assert.deepEqual(dueInstants(steps), [5, 10, 15]);
  // A postTask without a delay starts no timer; nor does one delayed 0 ms.
  assert.deepEqual(dueInstants([{ agent: 'A', op: 'postTask', id: 'p', options: { delay: 0 } },
    { op: 'advanceTime', ms: 10 }]), []);
  assert.equal(planTimers([{ agent: 'A', op: 'postTask', id: 'p' }],
    { stepMs: () => 1, slotMs: 1 }), null);
});

test("an advanceTime's window gives each instant in [from, to] a slot, after the steps' budgets", () => {
  assert.equal(plan.first, 0);
  assert.deepEqual(plan.windows, [
    // Steps 0 and 1 take 200 ms; instant 5's slot is 250-300.
    { step: 2, from: 0, to: 5, start: 200, slot: 50, dues: [5], end: 300 },
    // Step 2's own settling and step 3: 300 ms more; instants 5, 10 and 15 at 550, 600, 650.
    { step: 4, from: 5, to: 15, start: 500, slot: 50, dues: [5, 10, 15], end: 700 },
  ]);
  // A slot as long as its step's settling: step 4's 80 ms, so instants 5, 10, 15 at 580, 660, 740.
  const longer = planTimers(steps, { stepMs: () => 100, slotMs: (i) => (i === 4 ? 80 : 50) });
  assert.deepEqual(longer.windows[1], { step: 4, from: 5, to: 15, start: 500, slot: 80,
    dues: [5, 10, 15], end: 820 });
  assert.deepEqual(deadlineAt(longer, 420, 5), { at: 660, until: 740 });  // due at 10
});

test('the virtual time at a moment of the plan', () => {
  assert.deepEqual(virtualAt(plan, 50), { now: 0 });
  assert.equal(virtualAt(plan, 210).now, 0);  // the window has begun, its first slot not yet
  assert.equal(virtualAt(plan, 250).now, 5);
  assert.deepEqual(virtualAt(plan, 350), { now: 5 });
  assert.equal(virtualAt(plan, 610).now, 10);
  assert.equal(virtualAt(plan, 660).now, 15);
  assert.deepEqual(virtualAt(plan, 800), { now: 15 });
});

test("a timer's deadline is its instant's slot in the first window that reaches it", () => {
  const at = (t, ms) => deadlineAt(plan, t, ms);
  assert.deepEqual(at(10, 5), { at: 250, until: 300 });    // t1
  assert.deepEqual(at(120, 10), { at: 600, until: 650 });  // p: window 1, instant 10
  assert.deepEqual(at(420, 0), { at: 550, until: 600 });   // t3 at instant 5, in window 1
  assert.deepEqual(at(560, 5), { at: 600, until: 650 });   // started in instant 5's slot, due at 10
  // Due at the instant that is running (slot 600-650): half a slot on, within that slot.
  assert.deepEqual(at(610, 0), { at: 635, until: 650 });
  assert.deepEqual(at(640, 0), { at: 650, until: 650 });
  assert.equal(at(800, 1), null);                          // no advanceTime reaches 16
  assert.throws(() => deadlineAt(plan, 420, 3), /no slot for virtual instant 8 ms/);
});

test("an agent's timers for one instant start in order, a few ms apart", () => {
  const reports = [];
  const clock = new AgentClock((m) => reports.push(m));
  clock.receive({ plan, start: now() - 10 });
  const first = clock.timer(5, 'setTimeout a');
  const second = clock.timer(5, 'setTimeout b');
  assert.ok(first.delay > 200 && first.delay <= 240, `delay ${first.delay}`);
  assert.ok(Math.abs(second.delay - first.delay - START_ORDER_MS) <= 1);
  first.ran();  // long before its slot ends
  assert.deepEqual(reports, []);
  const never = clock.timer(1000, 'setTimeout c');
  assert.ok(never.delay >= 1e8);
});

test('a timer that runs after its slot fails the run', () => {
  const reports = [];
  const clock = new AgentClock((m) => reports.push(m));
  clock.receive({ plan, start: now() - 10 });
  const late = clock.timer(5, 'setTimeout a');
  clock.start -= 300;  // as though 300 ms had gone by: its slot ended at 300
  late.ran();
  assert.equal(reports.length, 1);
  assert.match(reports[0], /^setTimeout a ran \d+ ms after its instant's slot ended/);
  // A timer started before the runner sent the plan cannot be placed.
  const unplanned = new AgentClock((m) => reports.push(m));
  unplanned.timer(5, 'setTimeout z');
  assert.match(reports[1], /started before the runner sent the timer plan/);
});

test('advanceTime waits out its window and reports where the steps or a slot overran', async () => {
  const small = [{ agent: 'A', op: 'setTimeout', id: 't', ms: 1 }, { op: 'advanceTime', ms: 1 }];
  const reports = [];
  const clock = new Clock(small, { stepMs: () => 20, slotMs: 30 }, (m) => reports.push(m));
  const carried = clock.message(0);
  assert.equal(carried.plan, clock.plan);
  let settled = 0;
  await clock.advance(1, async () => { ++settled; });
  assert.equal(settled, 1);  // one instant, 1 ms
  assert.ok(now() - carried.start >= clock.plan.windows[0].end);
  assert.deepEqual(reports, []);

  const late = new Clock(small, { stepMs: () => 20, slotMs: 30 }, (m) => reports.push(m));
  late.message(0);
  late.start -= 1000;  // the steps took a second
  await late.advance(1, async () => {});
  assert.match(reports[0], /^advanceTime \(step 1\) began \d+ ms after its window's start/);

  const slow = new Clock(small, { stepMs: () => 20, slotMs: 30 }, (m) => reports.push(m));
  slow.message(0);
  await slow.advance(1, () => new Promise((r) => setTimeout(r, 80)));
  assert.match(reports[1], /virtual instant 1 ms settled \d+ ms after its slot ended/);
});

test('the plan takes the budgets its runner gives when the first timer-making step begins', () => {
  const steps = [{ agent: 'A', op: 'mark', label: 'x' },
    { agent: 'A', op: 'setTimeout', id: 't', ms: 1 }, { op: 'advanceTime', ms: 1 }];
  let slot = 30;
  const clock = new Clock(steps, { stepMs: () => 20, slotMs: () => slot }, () => {});
  slot = 90;  // the runner measured slower round trips during step 0
  assert.equal(clock.message(0), undefined);
  const carried = clock.message(1);
  assert.equal(carried.plan.windows[0].slot, 90);
  // From then on the plan holds: an agent and the runner share it.
  slot = 500;
  assert.equal(clock.message(2).plan, carried.plan);
});

test('advanceTime where no timer can be due only settles', async () => {
  const clock = new Clock([{ op: 'advanceTime', ms: 50 }], { stepMs: () => 1000, slotMs: 1000 },
    () => assert.fail('nothing to report'));
  assert.equal(clock.plan, null);
  const before = now();
  let settled = 0;
  await clock.advance(0, async () => { ++settled; });
  assert.equal(settled, 1);
  assert.ok(now() - before < 500);
});

// End to end: with budgets far too small for the steps before the advanceTime, the Node runner
// fails the run and names the overrun, rather than writing a log with the timer out of place.
test('the Node runner fails a run whose steps overran the plan', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clock-test-'));
  const trace = join(dir, 'trace.json');
  const log = join(dir, 'log.json');
  const many = Array.from({ length: 6 }, (_, i) => ({ agent: 'A', op: 'mark', label: `m${i}` }));
  writeFileSync(trace, JSON.stringify({
    format: 'lockstep-trace', version: 1, agents: [{ id: 'A', kind: 'window', origin: 'https://a.test' }],
    steps: [{ agent: 'A', op: 'setTimeout', id: 't', ms: 10, body: [{ op: 'mark', label: 'fired' }] },
      ...many, { op: 'advanceTime', ms: 10 }],
  }));
  const runner = fileURLToPath(new URL('../../adapters/js/node/run.mjs', import.meta.url));
  const run = (env) => spawnSync(process.execPath, [runner, trace, log],
    { encoding: 'utf8', env: { ...process.env, ...env } });
  const overran = run({ LOCKSTEP_STEP_MS: '1', LOCKSTEP_SLOT_MS: '1' });
  assert.equal(overran.status, 1, overran.stderr);
  assert.match(overran.stderr, /timers: advanceTime \(step 7\) began \d+ ms after its window's start/);
  // With the default budgets the timer fires in the advanceTime's settling, step 7.
  const kept = run({});
  assert.equal(kept.status, 0, kept.stderr);
  const events = JSON.parse(readFileSync(log, 'utf8')).events;
  assert.deepEqual(events.filter((e) => e.label === 'fired'),
    [{ step: 7, agent: 'A', event: 'mark', label: 'fired' }]);
});
