// lockstep's Deno adapter: replays a trace with Deno's own navigator.locks, one Web Worker per
// agent, and writes the observed lockstep-log.
//
//   adapters/js/deno/run.sh TRACE LOG [--preload MODULE] [--without-locks]
//
// --preload loads MODULE (a path) into the runner and into every agent before anything runs: a
// polyfill under test, e.g. scheduler-polyfill, which gives Deno the `scheduler` it lacks.
// --without-locks refuses the Web Locks ops, so that such a target is judged on what it adds.
//
// Exit codes as the other runners: 0 the log was written, 4 "cannot express: ...", 1 the replay failed, 2 a file
// could not be read or written. Settling is by quiescence (../settle.mjs): no message from any
// agent for LOCKSTEP_QUIET_MS (default 40) and three turns, at most LOCKSTEP_SETTLE_LIMIT_MS
// (default 2000).
//
// How a trace maps onto Deno: every agent, window or worker, is a module Web Worker of one
// process (one origin, one partition: Deno has one lock manager per process). Deno has no
// documents and no `scheduler` (the scheduler's ops are offered where it has them), so unload and
// shared event loops cannot be expressed; nor can opaque origins, several origins or partitions.
// Timers and advanceTime follow the runner's plan of the virtual clock (../clock.mjs), with the
// budgets LOCKSTEP_STEP_MS and LOCKSTEP_SLOT_MS as in the Node runner.
import { TIMER_OPS, cannotExpress, schedulingOps } from '../agent.mjs';
import { Clock } from '../clock.mjs';
import {
  Recorder, logText, quiescence, replaySteps, settleScale, takeFlag, takeOption,
} from '../settle.mjs';

const args = [...Deno.args];
const preload = takeOption(args, '--preload');
const withoutLocks = takeFlag(args, '--without-locks');
const [traceFile, logFile] = args;
if (!traceFile || !logFile || args.length !== 2) {
  console.error('usage: run.mjs TRACE LOG [--preload MODULE] [--without-locks]');
  Deno.exit(2);
}
let preloadUrl = null;
if (preload) {
  preloadUrl = new URL(preload, `file://${Deno.cwd()}/`).href;
  try {
    await import(preloadUrl);
  } catch (e) {
    console.error(`${preload}: cannot load the preloaded module: ${e.message}`);
    Deno.exit(2);
  }
}
const OPS = ['newAbortController', 'abort', 'newPromise', 'settle', 'then', 'queueMicrotask', 'run',
  'await', 'mark', 'terminate', ...TIMER_OPS, ...(withoutLocks ? [] : ['request', 'query']),
  ...schedulingOps()];
let trace;
try {
  trace = JSON.parse(Deno.readTextFileSync(traceFile));
} catch (e) {
  console.error(`${traceFile}: cannot read the trace: ${e.message}`);
  Deno.exit(2);
}
const reason = cannotExpress(trace, { ops: OPS, features: ['timers'] });
if (reason) {
  console.error(`cannot express: ${reason}`);
  Deno.exit(4);
}
const scale = settleScale(Deno.env.get('LOCKSTEP_SETTLE_SCALE'));
const quietBase = Number(Deno.env.get('LOCKSTEP_QUIET_MS') || 40);
const quietMs = scale * quietBase;
const limitMs = scale * Number(Deno.env.get('LOCKSTEP_SETTLE_LIMIT_MS') || 2000);
const stepMs = scale * Number(Deno.env.get('LOCKSTEP_STEP_MS') || 4 * quietBase + 60);
const slotMs = scale * Number(Deno.env.get('LOCKSTEP_SLOT_MS') || 4 * quietBase + 60);

const recorder = new Recorder();
const workers = new Map();
const ready = [];
for (const agent of trace.agents) {
  const workerUrl = new URL('./agent-worker.mjs', import.meta.url);
  if (preloadUrl) workerUrl.searchParams.set('preload', preloadUrl);
  const worker = new Worker(workerUrl.href, { type: 'module', name: agent.id });
  workers.set(agent.id, worker);
  ready.push(new Promise((resolve) => {
    worker.addEventListener('message', (m) => m.data.lockstep === 'ready' && resolve());
  }));
  worker.addEventListener('message', ({ data }) => {
    if (data.lockstep === 'event') recorder.event(agent.id, data.own, data.event);
    else if (data.lockstep === 'error') recorder.error(`agent ${agent.id}: ${data.message}`);
  });
  worker.addEventListener('error', (e) => {
    recorder.error(`agent ${agent.id}: ${e.message}`);
    e.preventDefault();
  });
}
await Promise.all(ready);

const settle = quiescence(() => recorder.activity, {
  quietMs, limitMs,
  turn: () => new Promise((resolve) => setTimeout(resolve, 0)),
  pause: () => new Promise((resolve) => setTimeout(resolve, 1)),
});
const clock = new Clock(trace.steps, { stepMs: () => stepMs, slotMs },
  (message) => recorder.error(`timers: ${message}`));
await replaySteps(trace.steps, recorder, {
  clock,
  perform: (i, step, timerPlan) => {
    if (step.op !== 'terminate') {
      workers.get(step.agent).postMessage({ lockstep: 'perform', step: i, action: step,
        clock: timerPlan });
      return;
    }
    workers.get(step.agent).terminate();
    workers.delete(step.agent);
  },
  settle,
});
for (const worker of workers.values()) worker.terminate();
if (recorder.errors.length) {
  console.error(recorder.errors.join('\n'));
  Deno.exit(1);
}
try {
  Deno.writeTextFileSync(logFile, logText(recorder.events));
} catch (e) {
  console.error(`${logFile}: cannot write the log: ${e.message}`);
  Deno.exit(2);
}
