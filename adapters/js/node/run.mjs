// lockstep's Node.js adapter: replays a trace with Node's own navigator.locks, one worker thread
// per agent, and writes the observed lockstep-log.
//
//   node adapters/js/node/run.mjs TRACE LOG [--preload MODULE] [--hide-locks]
//   node adapters/js/node/run.mjs TRACE LOG --lock-manager PROGRAM
//
// --hide-locks removes Node's own navigator.locks (the getter on Navigator.prototype) from the
// runner and every agent before anything else runs, and --preload then loads MODULE (a path)
// there: a polyfill under test and the glue that installs it (../polyfills/web-locks.mjs). When
// MODULE exports attachWorker(worker), the runner calls it with each agent's Worker (a polyfill
// that coordinates threads through their parent needs it), and the agent it stands for.
// --lock-manager PROGRAM judges a lock manager written in any language, PROGRAM, which speaks
// the lock-manager protocol (adapters/protocol/README.md) on its stdin and stdout.
//
// Exit 0 when the log was written; 4 when the trace needs what Node cannot express (printed as
// "cannot express: ..."); 1 when the replay failed. After each step that settles, the runner
// waits for quiescence: no message from any agent for LOCKSTEP_QUIET_MS (default 40) and three
// turns of its own event loop, at most LOCKSTEP_SETTLE_LIMIT_MS (default 2000); never a fixed sleep.
//
// How a trace maps onto Node: every agent, window or worker, is a worker thread of one process
// (one origin, one partition: Node has one lock manager per process). Node has no documents and
// no `scheduler`, so unload, shared event loops and the scheduler's ops cannot be expressed; nor
// can opaque origins, several origins or partitions. Timers and advanceTime follow the runner's
// plan of the virtual clock on real time (../clock.mjs): each step's budget is
// LOCKSTEP_STEP_MS (default 4 quiets and 60 ms), each virtual instant's slot LOCKSTEP_SLOT_MS
// (default the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TIMER_OPS, cannotExpress, hideNativeLocks } from '../agent.mjs';
import { Clock } from '../clock.mjs';
import {
  Recorder, logText, quiescence, replaySteps, settleScale, takeFlag, takeOption,
} from '../settle.mjs';

const OPS = ['request', 'query', 'newAbortController', 'abort', 'newPromise', 'settle', 'then',
  'queueMicrotask', 'run', 'await', 'mark', 'terminate', ...TIMER_OPS];

const args = process.argv.slice(2);
let preload = takeOption(args, '--preload');
let hideLocks = takeFlag(args, '--hide-locks');
// --lock-manager PROGRAM: navigator.locks over the lock-manager protocol, PROGRAM deciding
// (../protocol/lock-manager-client.mjs); Node's own navigator.locks is hidden.
const lockManager = takeOption(args, '--lock-manager');
const [traceFile, logFile] = args;
if (!traceFile || !logFile || args.length !== 2 || (lockManager && preload)) {
  console.error('usage: run.mjs TRACE LOG [--preload MODULE] [--hide-locks] | [--lock-manager PROGRAM]');
  process.exit(2);
}
if (lockManager) {
  process.env.LOCKSTEP_LOCK_MANAGER = resolve(lockManager);
  preload = new URL('../protocol/lock-manager-client.mjs', import.meta.url).pathname;
  hideLocks = true;
}
if (hideLocks) hideNativeLocks();
let preloaded = {};
const preloadUrl = preload ? pathToFileURL(resolve(preload)).href : null;
if (preloadUrl) {
  try {
    preloaded = await import(preloadUrl);
  } catch (e) {
    console.error(`${preload}: cannot load the preloaded module: ${e.message}`);
    process.exit(2);
  }
}
const trace = JSON.parse(readFileSync(traceFile, 'utf8'));
// A lock manager of the protocol has a lock manager per storage key, and refuses opaque origins.
const reason = cannotExpress(trace,
  { ops: OPS, features: lockManager ? ['origins', 'partitions', 'opaque', 'timers'] : ['timers'] });
if (reason) {
  console.error(`cannot express: ${reason}`);
  process.exit(4);
}
const scale = settleScale(process.env.LOCKSTEP_SETTLE_SCALE);
const quietBase = Number(process.env.LOCKSTEP_QUIET_MS || 40);
const quietMs = scale * quietBase;
const limitMs = scale * Number(process.env.LOCKSTEP_SETTLE_LIMIT_MS || 2000);
const stepMs = scale * Number(process.env.LOCKSTEP_STEP_MS || 4 * quietBase + 60);
const slotMs = scale * Number(process.env.LOCKSTEP_SLOT_MS || 4 * quietBase + 60);

const recorder = new Recorder();
const workers = new Map();
const performed = new Map();  // agent id -> what its next step acknowledgement resolves
const ready = [];
for (const agent of trace.agents) {
  const worker = new Worker(new URL('./agent-worker.mjs', import.meta.url),
    { workerData: { preload: preloadUrl, hideLocks } });
  workers.set(agent.id, worker);
  if (preloaded.attachWorker) preloaded.attachWorker(worker, agent);
  ready.push(new Promise((resolve) => {
    worker.on('message', (m) => m.type === 'ready' && resolve());
    worker.once('error', resolve);  // recorded below: the run fails
  }));
  worker.on('message', (m) => {
    if (m.type === 'performed') performed.get(agent.id)?.(m.sent);
    if (m.type === 'event') recorder.event(agent.id, m.own, m.event);
    else if (m.type === 'error') recorder.error(`agent ${agent.id}, step ${m.step}: ${m.message}`);
  });
  worker.on('error', (e) => recorder.error(`agent ${agent.id}: ${e && e.stack || e}`));
}
await Promise.all(ready);

// A preloaded module that relays the agents' calls (--lock-manager) counts what it relays, and is
// busy while a call has not been answered.
const settle = quiescence(() => recorder.activity + (preloaded.activity ? preloaded.activity() : 0), {
  quietMs, limitMs, busy: preloaded.busy,
  turn: () => new Promise((resolve) => setImmediate(resolve)),
  pause: () => new Promise((resolve) => setTimeout(resolve, 1)),
});
const clock = new Clock(trace.steps, { stepMs: () => stepMs, slotMs },
  (message) => recorder.error(`timers: ${message}`));
await replaySteps(trace.steps, recorder, {
  clock,
  perform: async (i, step, timerPlan) => {
    if (step.op !== 'terminate') {
      // With --lock-manager, a step that does not settle is followed by the next once the lock
      // manager has its calls: agents are threads, and another agent's next call could reach it
      // first (adapters/README.md, "Steps that do not settle").
      const ack = Boolean(lockManager) && step.settle === false;
      const acked = ack && new Promise((resolve) => performed.set(step.agent, resolve));
      workers.get(step.agent).postMessage({ type: 'perform', step: i, action: step, ack,
        clock: timerPlan });
      if (ack) await preloaded.delivered(step.agent, await acked);
      return;
    }
    await workers.get(step.agent).terminate();
    workers.delete(step.agent);
  },
  settle,
});
await Promise.all([...workers.values()].map((w) => w.terminate()));
if (recorder.errors.length) {
  console.error(recorder.errors.join('\n'));
  process.exit(1);
}
writeFileSync(logFile, logText(recorder.events));
