// Node.js's built-in navigator.locks on the same lock workloads as bench/locks_bench.cpp, so that
// the numbers sit next to the spec model's and impl's (docs/performance.md).
//
// Usage: node --expose-gc locks_bench.mjs [output.json]
//
// Every workload names its op the way the C++ benchmark does, and is reported as
// BM_<Workload>/node[/<arg>] with the median ns per op of REPS timed repetitions (after one
// warm-up): ns_per_op in CPU time of the process, like the C++ figures, and wall_ns_per_op. What Node measures includes JavaScript, promise jobs and the hop through Node's C++
// lock manager and back; it is the cost a script sees, not the cost of a lock manager alone.
//
// Queue depths and 10^5 distinct names (with the memory figures) run in fresh child processes
// (same binary, --expose-gc). Node scans its pending requests and its held locks on every request
// and release, so filling a queue of 10^5, or holding 10^5 locks, takes minutes: a queue-depth
// child fills its queue once, times batches of steady-state ops, and exits without draining it.
//
// BENCH_MAX_DEPTH=100 BENCH_MAX_NAMES=10000 make a quick run (a minute or two).

import os from 'node:os';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';

const locks = navigator.locks;
const now = () => process.hrtime.bigint();
// CPU time of the whole process (all its threads: V8's GC helpers and Node's lock manager work
// count too), in ns.
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
const noop = async () => {};
const REPS = 5;

function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

// Resolves `done` after `count` calls of tick().
function counter(count) {
  const d = deferred();
  let n = 0;
  if (count === 0) d.resolve();
  return { done: d.promise, tick: () => { if (++n === count) d.resolve(); }, get n() { return n; } };
}

const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// `samples` are CPU ns per op (the primary figure, as for the C++ benchmarks, which report CPU
// time); `wall` the wall-clock ns per op of the same repetitions.
function result(workload, arg, opsPerRep, samples, wall, extra = {}) {
  const nsPerOp = median(samples);
  const r = {
    name: `${workload}/node${arg === undefined ? '' : '/' + arg}`,
    workload,
    ...(arg === undefined ? {} : { arg }),
    ops_per_repetition: opsPerRep,
    repetitions: samples.length,
    ns_per_op: round(nsPerOp),
    ops_per_s: Math.round(1e9 / nsPerOp),
    samples_ns_per_op: samples.map(round),
    wall_ns_per_op: round(median(wall)),
    samples_wall_ns_per_op: wall.map(round),
    ...extra,
  };
  process.stderr.write(`${r.name}: ${r.ns_per_op} CPU ns/op (${r.ops_per_s} ops/s), ${r.wall_ns_per_op} wall ns/op; CPU samples=${JSON.stringify(r.samples_ns_per_op)}\n`);
  return r;
}

// One warm-up, then REPS timed runs of fn(), which returns elapsed wall ns for `ops` ops; the CPU
// time is taken around the whole call.
async function measure(workload, arg, ops, fn, reps = REPS) {
  gc();
  await fn();
  const samples = [];
  const wall = [];
  for (let i = 0; i < reps; i++) {
    gc();
    const c0 = cpuNow();
    wall.push((await fn()) / ops);
    samples.push((cpuNow() - c0) / ops);
  }
  return result(workload, arg, ops, samples, wall);
}

// ---------------------------------------------------------------- workloads

// Cycle. op: request + grant + release of one exclusive lock on a free name.
async function cycle(n) {
  const t0 = now();
  for (let i = 0; i < n; i++) await locks.request('a', noop);
  return Number(now() - t0);
}

// Queue depth (run in a child). One holder and `depth` requests waiting on "q". op: the holder
// releases (the front request is granted and becomes the holder), then one new request joins the
// back: the depth stays `depth`. Every callback holds its lock until the harness releases it.
async function queueDepthChild(depth, ops, reps) {
  let release = null;
  let granted = null;
  const cb = () => new Promise((resolve) => { release = resolve; granted(); });
  for (let i = 0; i < 1000; i++) await locks.request('warm', noop);
  let g = deferred();
  granted = g.resolve;
  locks.request('q', cb);
  await g.promise;
  gc(); gc();
  const m0 = process.memoryUsage();
  const s0 = now();
  for (let i = 0; i < depth; i++) locks.request('q', cb);
  const setupNs = Number(now() - s0);
  gc(); gc();
  const m1 = process.memoryUsage();
  const batch = async () => {
    const c0 = cpuNow();
    const t0 = now();
    for (let k = 0; k < ops; k++) {
      g = deferred();
      granted = g.resolve;
      release();
      locks.request('q', cb);
      await g.promise;
    }
    return { wall: Number(now() - t0), cpu: cpuNow() - c0 };
  };
  await batch();  // warm-up
  const samples = [];
  const wall = [];
  for (let i = 0; i < reps; i++) {
    const b = await batch();
    samples.push(b.cpu / ops);
    wall.push(b.wall / ops);
  }
  const q = await locks.query();
  return {
    samples,
    wall,
    setup_ns: setupNs,
    pending_seen: q.pending.length,
    heap_used_bytes_per_pending: (m1.heapUsed - m0.heapUsed) / depth,
    rss_bytes_per_pending: (m1.rss - m0.rss) / depth,
  };
}

// Distinct names. op: request + grant of a lock on a free name, all n held at once, then each
// released.
async function distinctNames(n, names) {
  const release = deferred();
  const grants = counter(n);
  const cb = () => { grants.tick(); return release.promise; };
  const ps = new Array(n);
  const t0 = now();
  for (let i = 0; i < n; i++) ps[i] = locks.request(names[i], cb);
  await grants.done;
  release.resolve();
  await Promise.all(ps);
  return Number(now() - t0);
}

// Readers and a writer. `readers` shared locks held; an exclusive request queues; `readers` more
// shared requests queue behind it. The first readers release (the writer is granted), the writer
// releases (the late readers are granted) and they release. op: one of the 2R+1 requests.
async function readersWriter(readers) {
  const releaseFirst = deferred();
  const firstGrants = counter(readers);
  const firstCb = () => { firstGrants.tick(); return releaseFirst.promise; };
  const shared = { mode: 'shared' };
  let writerGranted = false;
  let overtaken = 0;
  const lateCb = async () => { if (!writerGranted) overtaken++; };
  const ps = [];
  const t0 = now();
  for (let i = 0; i < readers; i++) ps.push(locks.request('rw', shared, firstCb));
  await firstGrants.done;
  ps.push(locks.request('rw', async () => { writerGranted = true; }));
  for (let i = 0; i < readers; i++) ps.push(locks.request('rw', shared, lateCb));
  releaseFirst.resolve();
  await Promise.all(ps);
  if (overtaken) throw new Error(`readers_writer: ${overtaken} late readers overtook the writer`);
  return Number(now() - t0);
}

// Steal. op: one request takes an exclusive lock, a steal takes it over (the holder's request
// promise rejects with AbortError, the stealer's callback runs and returns), then the stolen
// holder's callback promise settles late.
async function steal(iterations) {
  const stealOpts = { steal: true };
  let rejections = 0;
  const t0 = now();
  for (let i = 0; i < iterations; i++) {
    const hold = deferred();
    const granted = deferred();
    const holder = locks.request('s', () => { granted.resolve(); return hold.promise; })
      .then(() => { throw new Error('holder was not stolen'); },
        (e) => { if (e && e.name === 'AbortError') rejections++; else throw e; });
    await granted.promise;
    await Promise.all([locks.request('s', stealOpts, noop), holder]);
    hold.resolve();
  }
  const ns = Number(now() - t0);
  if (rejections !== iterations) throw new Error(`steal: ${rejections} rejections, expected ${iterations}`);
  return ns;
}

// Termination. A worker holds n locks (n names); the main thread waits for each of them. Timed:
// the worker terminates, until the main thread has been granted all n. op: one lock handed over.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const n = workerData.n;
let granted = 0;
const never = new Promise(() => {});
// A worker with nothing left to do exits, which would release its locks before the timing starts:
// listening on the port keeps it alive until terminate().
parentPort.on('message', () => {});
for (let i = 0; i < n; i++) {
  navigator.locks.request('t' + i, () => {
    if (++granted === n) parentPort.postMessage('held');
    return never;
  });
}
`;

// Returns elapsed ns, or null when the locks were not handed over within `patienceMs` (Node 26.10
// keeps a terminated worker's locks: see docs/performance.md).
async function terminateAgent(n, patienceMs = 5000) {
  const worker = new Worker(workerSource, { eval: true, workerData: { n } });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const grants = counter(n);
  const cb = () => { grants.tick(); };
  const ps = new Array(n);
  for (let i = 0; i < n; i++) ps[i] = locks.request('t' + i, cb);
  // Node's query() from this thread lists this thread's pending requests but not the worker's
  // held locks, so only the pending side can be checked.
  const q = await locks.query();
  const pending = q.pending.filter((l) => l.name.startsWith('t')).length;
  if (grants.n !== 0 || pending !== n)
    throw new Error(`terminate: not blocked before terminate (granted=${grants.n}, pending=${pending})`);
  const c0 = cpuNow();
  const t0 = now();
  const terminated = worker.terminate();
  let timer;
  const handed = await Promise.race([
    grants.done.then(() => true),
    new Promise((r) => { timer = setTimeout(() => r(false), patienceMs); }),
  ]);
  clearTimeout(timer);
  const ns = Number(now() - t0);
  const cpu = cpuNow() - c0;
  await terminated;
  if (!handed) return { ns: null, granted: grants.n };
  await Promise.all(ps);
  return { ns, cpu };
}

async function terminateChild(n) {
  const samples = [];
  const wall = [];
  for (let i = 0; i <= REPS; i++) {  // the first is the warm-up
    gc();
    const r = await terminateAgent(n);
    if (r.ns === null)
      return { error: `after worker.terminate(), ${r.granted} of ${n} waiting requests were granted within 5 s: Node keeps a terminated worker's locks` };
    if (i > 0) {
      samples.push(r.cpu / n);
      wall.push(r.ns / n);
    }
  }
  return { samples, wall };
}

// Query. n locks held (n names) and n requests pending (one behind each). op: one query().
async function queryWorkload(n) {
  const release = deferred();
  const grants = counter(n);
  const cb = () => { grants.tick(); return release.promise; };
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(locks.request('h' + i, cb));
  await grants.done;
  for (let i = 0; i < n; i++) ps.push(locks.request('h' + i, noop));
  const first = await locks.query();
  if (first.held.length !== n || first.pending.length !== n)
    throw new Error(`query: saw ${first.held.length} held, ${first.pending.length} pending`);
  const r = await measure('BM_Query', n, 20, async () => {
    const t0 = now();
    for (let i = 0; i < 20; i++) await locks.query();
    return Number(now() - t0);
  });
  release.resolve();
  await Promise.all(ps);
  return r;
}

// Distinct names at 10^5, with the memory per held lock (run in a child, one repetition: Node
// scans its held locks on every request, so this takes minutes). Timed: the requests until all
// are granted, then the releases until all request promises settled; the gc() and memory reading
// in between are not timed.
async function distinctNamesChild(n) {
  const release = deferred();
  const grants = counter(n);
  const cb = () => { grants.tick(); return release.promise; };
  for (let i = 0; i < 1000; i++) await locks.request('warm', noop);
  const names = Array.from({ length: n }, (_, i) => 'm' + i);
  const ps = new Array(n);
  gc(); gc();
  const m0 = process.memoryUsage();
  const c0 = cpuNow();
  const t0 = now();
  for (let i = 0; i < n; i++) ps[i] = locks.request(names[i], cb);
  await grants.done;
  const t1 = now();
  const c1 = cpuNow();
  gc(); gc();
  const m1 = process.memoryUsage();
  const q = await locks.query();
  const c2 = cpuNow();
  const t2 = now();
  release.resolve();
  await Promise.all(ps);
  const t3 = now();
  const c3 = cpuNow();
  return {
    n,
    ns: Number(t1 - t0) + Number(t3 - t2),
    cpu_ns: (c1 - c0) + (c3 - c2),
    held_seen: q.held.length,
    heap_used_bytes_per_held: (m1.heapUsed - m0.heapUsed) / n,
    rss_bytes_per_held: (m1.rss - m0.rss) / n,
  };
}

function runChild(mode, args) {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--expose-gc', script], {
    env: { ...process.env, BENCH_CHILD: mode, BENCH_ARGS: JSON.stringify(args) },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`child ${mode} ${JSON.stringify(args)} failed (status ${r.status})`);
  return JSON.parse(r.stdout);
}

// ---------------------------------------------------------------- main

async function main() {
  const started = now();
  const results = [];
  // BENCH_MAX_DEPTH and BENCH_MAX_NAMES lower the largest sizes for a quick run.
  const maxDepth = Number(process.env.BENCH_MAX_DEPTH || 100000);

  results.push(await measure('BM_Cycle', undefined, 100000, () => cycle(100000)));

  let pendingMemory = null;
  for (const [depth, ops, reps] of [[1, 20000, 5], [10, 20000, 5], [100, 20000, 5],
    [1000, 5000, 5], [10000, 1000, 5], [100000, 200, 3]]) {
    if (depth > maxDepth) continue;
    const c = runChild('queue_depth', { depth, ops, reps });
    if (c.pending_seen !== depth) throw new Error(`queue_depth/${depth}: ${c.pending_seen} pending`);
    results.push(result('BM_QueueDepth', depth, ops, c.samples, c.wall,
      { setup_s: Math.round(c.setup_ns / 1e7) / 100, note: 'fresh child process; setup (filling the queue) not timed' }));
    pendingMemory = { n: depth, heap_used: round(c.heap_used_bytes_per_pending), rss: round(c.rss_bytes_per_pending) };
  }

  const names = Array.from({ length: 10000 }, (_, i) => 'n' + i);
  for (const n of [1000, 10000])
    results.push(await measure('BM_DistinctNames', n, n, () => distinctNames(n, names)));
  const maxNames = Number(process.env.BENCH_MAX_NAMES || 100000);
  const held = runChild('distinct', { n: maxNames });
  results.push(result('BM_DistinctNames', maxNames, maxNames, [held.cpu_ns / maxNames],
    [held.ns / maxNames],
    { note: 'fresh child process, one repetition, no warm-up (it takes minutes)' }));

  results.push(await measure('BM_ReadersWriter', 1000, 2001, () => readersWriter(1000)));
  results.push(await measure('BM_Steal', undefined, 10000, () => steal(10000)));
  // In a child: when the handover fails, names t0..t9999 stay blocked for good.
  const term = runChild('terminate', { n: 10000 });
  if (term.error) {
    process.stderr.write(`BM_Terminate/node/10000: not measured: ${term.error}\n`);
    results.push({ name: 'BM_Terminate/node/10000', workload: 'BM_Terminate', arg: 10000, error: term.error });
  } else {
    results.push(result('BM_Terminate', 10000, 10000, term.samples, term.wall, { note: 'fresh child process' }));
  }
  results.push(await queryWorkload(10000));

  const out = {
    node: process.version,
    cpu: os.cpus()[0].model,
    cores: os.cpus().length,
    expose_gc: typeof globalThis.gc === 'function',
    results,
    memory_per_held_lock_bytes: {
      n: held.n,
      held_seen: held.held_seen,
      heap_used: round(held.heap_used_bytes_per_held),
      rss: round(held.rss_bytes_per_held),
      note: 'the DistinctNames child: n requests on n names, callbacks return one shared pending promise, request promises kept in an array; deltas after gc(), divided by n (the JS heap holds promises and closures; Node\'s own lock records are native memory, seen only in RSS)',
    },
    memory_per_pending_request_bytes: pendingMemory && {
      ...pendingMemory,
      note: 'from the deepest queue_depth child: the requests queued behind one holder (request promises not kept by the harness); deltas after gc(), divided by n',
    },
    total_runtime_s: round(Number(now() - started) / 1e9),
  };
  const json = JSON.stringify(out, null, 2);
  process.stdout.write(json + '\n');
  if (process.argv[2]) fs.writeFileSync(process.argv[2], json + '\n');
}

if (process.env.BENCH_CHILD) {
  const args = JSON.parse(process.env.BENCH_ARGS);
  const child = process.env.BENCH_CHILD;
  const r = child === 'queue_depth' ? await queueDepthChild(args.depth, args.ops, args.reps)
    : child === 'terminate' ? await terminateChild(args.n)
      : await distinctNamesChild(args.n);
  process.stdout.write(JSON.stringify(r));
  // A queue_depth child leaves its queue full: draining it would cost as much as filling it.
  process.exit(0);
} else {
  await main();
}
