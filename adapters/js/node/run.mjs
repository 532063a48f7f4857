// lockstep's Node.js adapter: replays a trace with Node's own navigator.locks, one worker thread
// per agent, and writes the observed lockstep-log.
//
//   node adapters/js/node/run.mjs TRACE LOG
//
// Exit 0 when the log was written; 4 when the trace needs what Node cannot express (printed as
// "cannot express: ..."); 1 when the replay failed. After each step that settles, the runner
// waits for quiescence: no message from any agent for LOCKSTEP_QUIET_MS (default 40) and three
// turns of its own event loop, at most LOCKSTEP_SETTLE_LIMIT_MS (default 2000); never a fixed sleep.
//
// How a trace maps onto Node: every agent, window or worker, is a worker thread of one process
// (one origin, one partition: Node has one lock manager per process). Node has no documents, no
// `scheduler`, and no virtual clock, so unload, shared event loops, the scheduler's ops, timers
// and advanceTime cannot be expressed; nor can opaque origins, several origins or partitions.
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { cannotExpress } from '../agent.mjs';
import { logText, quiescence, replaySteps } from '../settle.mjs';

const OPS = ['request', 'query', 'newAbortController', 'abort', 'newPromise', 'settle', 'then',
  'queueMicrotask', 'run', 'await', 'mark', 'terminate'];

const [traceFile, logFile] = process.argv.slice(2);
if (!traceFile || !logFile) {
  console.error('usage: run.mjs TRACE LOG');
  process.exit(2);
}
const trace = JSON.parse(readFileSync(traceFile, 'utf8'));
const reason = cannotExpress(trace, { ops: OPS, features: [] });
if (reason) {
  console.error(`cannot express: ${reason}`);
  process.exit(4);
}
const quietMs = Number(process.env.LOCKSTEP_QUIET_MS || 40);
const limitMs = Number(process.env.LOCKSTEP_SETTLE_LIMIT_MS || 2000);

const events = [];
const errors = [];
let activity = 0;
let settling = 0;  // the step whose settling is under way: what arrives now happened in it
const workers = new Map();
const ready = [];
for (const agent of trace.agents) {
  const worker = new Worker(new URL('./agent-worker.mjs', import.meta.url));
  workers.set(agent.id, worker);
  ready.push(new Promise((resolve) => worker.once('message', resolve)));
  worker.on('message', (m) => {
    ++activity;
    if (m.type === 'event')
      events.push({ step: m.own === null ? settling : m.own, agent: agent.id, ...m.event });
    else if (m.type === 'error') errors.push(`agent ${agent.id}, step ${m.step}: ${m.message}`);
  });
  worker.on('error', (e) => errors.push(`agent ${agent.id}: ${e && e.stack || e}`));
}
await Promise.all(ready);

const settle = quiescence(() => activity, {
  quietMs, limitMs,
  turn: () => new Promise((resolve) => setImmediate(resolve)),
  pause: () => new Promise((resolve) => setTimeout(resolve, 1)),
});
await replaySteps(trace.steps, {
  perform: (agent, step, action) => workers.get(agent).postMessage({ type: 'perform', step, action }),
  terminate: async (agent) => {
    await workers.get(agent).terminate();
    workers.delete(agent);
  },
  settle,
  setSettling: (step) => { settling = step; },
});
await Promise.all([...workers.values()].map((w) => w.terminate()));
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
writeFileSync(logFile, logText(events));
