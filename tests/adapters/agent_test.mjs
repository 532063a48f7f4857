// Unit tests of adapters/js/agent.mjs that need no engine: which traces a runner refuses
// (cannotExpress) and how serveAgent stamps a step's events; and of settle.mjs, which settlings
// the browser runner lengthens for an agent's first lock call, how its quiet grows with the
// agents' round trips, that quiescence waits that long, and how LOCKSTEP_SETTLE_SCALE reads. Run with `node --test`.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  Agent, cannotExpress, hideNativeLocks, newStore, serveAgent,
} from '../../adapters/js/agent.mjs';
import {
  RoundTrips, firstLockCallSettles, quiescence, settleScale,
} from '../../adapters/js/settle.mjs';

// cannotExpress's reason for an object of another agent's (its ids in parentheses).
const othersObject = (who, what, maker) =>
  `an agent uses another agent's object (agent ${who} uses ${what}, which agent ${maker} made)`;
const everything = {
  ops: ['request', 'query', 'newAbortController', 'abort', 'newTaskController', 'setPriority',
    'taskSignalAny', 'onPriorityChange', 'postTask', 'then', 'newPromise', 'settle', 'mark'],
  features: ['windows', 'origins', 'opaque'],
};
const twoWindows = (steps) => ({
  agents: [{ id: 'A', kind: 'window', origin: 'https://a.test' },
    { id: 'B', kind: 'window', origin: 'https://a.test' }],
  steps,
});

test('an agent may use the controllers and signals it made', () => {
  const trace = twoWindows([
    { agent: 'A', op: 'newTaskController', id: 'tc' },
    { agent: 'A', op: 'setPriority', controller: 'tc', priority: 'background' },
    { agent: 'A', op: 'taskSignalAny', id: 'any', signals: ['tc'], priority: { signal: 'tc' } },
    { agent: 'A', op: 'onPriorityChange', signal: 'any' },
  ]);
  assert.equal(cannotExpress(trace, everything), null);
});

test("another agent's controller or signal is refused, whichever op uses it", () => {
  const made = { agent: 'A', op: 'newTaskController', id: 'tc' };
  const uses = [
    { agent: 'B', op: 'setPriority', controller: 'tc', priority: 'background' },
    { agent: 'B', op: 'taskSignalAny', id: 'any', signals: ['tc'] },
    { agent: 'B', op: 'taskSignalAny', id: 'any', signals: [], priority: { signal: 'tc' } },
    { agent: 'B', op: 'onPriorityChange', signal: 'tc' },
    { agent: 'B', op: 'abort', signal: 'tc' },
    { agent: 'B', op: 'postTask', id: 't', options: { signal: 'tc' } },
  ];
  for (const use of uses) {
    assert.equal(cannotExpress(twoWindows([made, use]), everything),
      othersObject('B', 'tc', 'A'), `${use.op} ${JSON.stringify(use)}`);
  }
});

test('a use inside a callback body belongs to the agent whose step holds the callback', () => {
  const trace = twoWindows([
    { agent: 'A', op: 'newTaskController', id: 'tc' },
    { agent: 'B', op: 'request', id: 'r', name: 'n',
      callback: { body: [{ op: 'setPriority', controller: 'tc', priority: 'user-visible' }] } },
  ]);
  assert.equal(cannotExpress(trace, everything), othersObject('B', 'tc', 'A'));
});

test("with peers, a window may use another window's objects of its origin, and only those", () => {
  const peers = { ...everything, features: [...everything.features, 'peers'] };
  const made = { agent: 'A', op: 'newPromise', id: 'g' };
  const awaitsIt = { agent: 'B', op: 'then', target: 'g', body: [] };
  assert.equal(cannotExpress(twoWindows([made, awaitsIt]), everything),
    othersObject('B', 'g', 'A'));
  assert.equal(cannotExpress(twoWindows([made, awaitsIt]), peers), null);
  const otherOrigin = twoWindows([made, awaitsIt]);
  otherOrigin.agents[1] = { ...otherOrigin.agents[1], origin: 'https://b.test' };
  assert.equal(cannotExpress(otherOrigin, peers), othersObject('B', 'g', 'A'));
  const worker = twoWindows([made, awaitsIt]);
  worker.agents[0] = { ...worker.agents[0], kind: 'worker' };
  assert.equal(cannotExpress(worker, peers), othersObject('B', 'g', 'A'));
});

test("agents that share a store find each other's objects, and none of a stranger's", async () => {
  const shared = newStore();
  const a = new Agent(() => {}, undefined, false, shared);
  const b = new Agent(() => {}, undefined, false, shared);
  const c = new Agent(() => {});
  a.perform({ op: 'newPromise', id: 'g' });
  c.perform({ op: 'newPromise', id: 'h' });
  assert.equal(b.promises.get('g'), a.promises.get('g'));
  assert.notEqual(b.promises.get('g'), undefined);
  assert.equal(b.promises.get('h'), undefined);
  const events = [];
  const d = new Agent((e) => events.push(e), undefined, false, shared);
  d.perform({ op: 'then', target: 'g', body: [{ op: 'mark', label: 'after-g' }] });
  d.perform({ op: 'settle', target: 'g', outcome: 'fulfill' });  // a's resolver, through d
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(events, [{ event: 'mark', label: 'after-g' }]);
});

// serveAgent with a lock manager whose query has already resolved: the settlement's reaction runs
// before the step's own task is marked over, as a browser's queued task can.
async function queryEventOwner(locksAreTasks) {
  hideNativeLocks();
  Object.defineProperty(globalThis.navigator, 'locks', {
    configurable: true,
    value: { query: () => Promise.resolve({ held: [], pending: [] }) },
  });
  const posted = [];
  let deliver;
  serveAgent('A', (m) => posted.push(m), (f) => { deliver = f; }, { locksAreTasks });
  deliver({ lockstep: 'perform', step: 3, action: { op: 'query', id: 'q' } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const events = posted.filter((m) => m.lockstep === 'event');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].event,
    { event: 'settled', target: 'q', state: 'fulfilled', value: { held: [], pending: [] } });
  return events[0].own;
}

test("a browser's query result is not stamped as the step's own", async () => {
  assert.equal(await queryEventOwner(true), null);
});

test("a polyfill's query result may be the step's own", async () => {
  assert.equal(await queryEventOwner(false), 3);
});

test("the settlings after each agent's first lock call, its own step's or a later one's", () => {
  const steps = [
    { agent: 'A', op: 'mark', label: 'm' },
    { agent: 'A', op: 'request', id: 'r1', name: 'n' },  // A's first call: settles here (1)
    { agent: 'A', op: 'query', id: 'q1' },  // not A's first
    { agent: 'B', op: 'run', body: [{ op: 'query', id: 'q2' }], settle: false },  // B's first,
    { agent: 'A', op: 'mark', label: 'm2', settle: false },
    { agent: 'A', op: 'mark', label: 'm3' },  // settled by the next settling step (5)
    { agent: 'C', op: 'newPromise', id: 'p' },
    { agent: 'C', op: 'request', id: 'r2', name: 'n', settle: false },  // C's: the final settle
  ];
  assert.deepEqual([...firstLockCallSettles(steps)].sort((a, b) => a - b), [1, 5, 8]);
  assert.deepEqual([...firstLockCallSettles([{ agent: 'A', op: 'mark', label: 'x' }])], []);
});

test('a first lock call in a callback counts; one rejected before the lock manager does not', () => {
  const held = { result: { pending: true } };
  const steps = [
    // A's first call is made by a postTask callback (gen-310518): the settling of step 0.
    { agent: 'A', op: 'postTask', id: 't0',
      callback: { body: [{ op: 'request', id: 'r1', name: 'n', callback: held }] } },
    // B's calls that request() rejects at once are not its first: step 3's query is.
    { agent: 'B', op: 'request', id: 'r2', name: 'n', options: { steal: true, mode: 'shared' } },
    { agent: 'B', op: 'request', id: 'r3', name: '-reserved' },
    { agent: 'B', op: 'query', id: 'q3' },
    // An opaque window's calls reach no lock manager.
    { agent: 'O', op: 'query', id: 'q4' },
  ];
  const agents = [{ id: 'A', origin: 'https://a.test' }, { id: 'B', origin: 'https://a.test' },
    { id: 'O', origin: 'opaque' }];
  assert.deepEqual([...firstLockCallSettles(steps, agents)].sort((a, b) => a - b), [0, 3]);
  // A then's body counts too, and a request with a signal and ifAvailable does not.
  const nested = [
    { agent: 'A', op: 'request', id: 'r0', name: 'x', options: { signal: 's', ifAvailable: true } },
    { agent: 'A', op: 'run', body: [{ op: 'then', target: 'p', body: [{ op: 'query', id: 'q' }] }] },
  ];
  assert.deepEqual([...firstLockCallSettles(nested)], [1]);
});

test('the quiet grows with the slowest recent round trip, within its cap', () => {
  const trips = new RoundTrips();
  assert.equal(trips.quiet(60), 60);  // nothing measured yet
  trips.add(5);
  assert.equal(trips.quiet(60), 60);  // an idle machine: 4 x 5 ms is less than the quiet asked
  trips.add(40);
  assert.equal(trips.quiet(60), 160);  // a loaded one: 4 x the slowest
  trips.add(3000);  // an acknowledgement that timed out
  assert.equal(trips.quiet(60), 1000);
  for (let i = 0; i < 8; ++i) trips.add(10);  // the slow ones age out
  assert.equal(trips.quiet(60), 60);
});

test('quiescence asks a quiet given as a function at each settling', async () => {
  let quiet = 0;
  const settle = quiescence(() => 0, {
    quietMs: () => quiet, limitMs: 5000, turn: () => new Promise((r) => setTimeout(r, 5)),
  });
  for (const ms of [0, 150]) {
    quiet = ms;
    const start = performance.now();
    await settle();
    const took = performance.now() - start;
    assert.ok(took >= ms, `settled after ${took} ms, before the quiet of ${ms} ms`);
  }
});

test('LOCKSTEP_SETTLE_SCALE lengthens settling by its factor, and nothing else shortens it', () => {
  assert.equal(settleScale('4'), 4);
  assert.equal(settleScale('2.5'), 2.5);
  // Unset, empty, not a number, infinite, or below 1: settling as usual.
  for (const raw of [undefined, null, '', 'x', 'Infinity', '0.5', '0', '-3']) {
    assert.equal(settleScale(raw), 1, String(raw));
  }
});
