// A trace agent in a Node.js worker thread: top-level steps arrive as messages from run.mjs, and
// events leave as messages. An event that the step's own task (or its microtasks) logs carries
// the step; run.mjs stamps every other event with the step it is settling when the event arrives
// (traces/README.md: the step during whose settling it happened). The runner's clock, not the worker's, decides: a lock
// callback queued by another thread can run here before a message the runner sent earlier.
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, hideNativeLocks } from '../agent.mjs';

// run.mjs --hide-locks and --preload: Node's own navigator.locks goes, a polyfill comes first.
if (workerData.hideLocks) hideNativeLocks();
if (workerData.preload) await import(workerData.preload);

// A web page only reports an unhandled rejection; Node would end the thread. Traces reject
// promises nobody handles (a callback's result, a settle with "reject"), so do as a page does.
process.on('unhandledRejection', () => {});

let own = null;  // the step whose own task is running here, or null
const agent = new Agent((event) => parentPort.postMessage({ type: 'event', own, event }),
  () => { own = null; },  // a task of its own began: the step's is over
  false, undefined,
  (message) => parentPort.postMessage({ type: 'error', step: own, message }));

parentPort.on('message', (m) => {
  if (m.type !== 'perform') return;
  own = m.step;
  try {
    agent.step(m.action, m.clock);
  } catch (e) {
    parentPort.postMessage({ type: 'error', step: m.step, message: String(e && e.stack || e) });
  }
  // The step's own task ends after its microtask checkpoint: Node drains every microtask (chained
  // ones too) before it runs the tick queue, so a tick queued from the first microtask after the
  // step runs once the checkpoint is over, and before any other task of this thread.
  // A step that does not settle, with --lock-manager: once the step's task is over, microtasks
  // included, the runner is told how many calls the client has sent, and waits for the lock
  // manager to have them all before the next step.
  queueMicrotask(() => process.nextTick(() => {
    own = null;
    if (m.ack) {
      parentPort.postMessage({ type: 'performed', step: m.step,
        sent: navigator.locks?.[Symbol.for('lockstep.lock-manager.sent')] ?? 0 });
    }
  }));
});
parentPort.postMessage({ type: 'ready' });
