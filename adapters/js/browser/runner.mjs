// Replays a lockstep trace in a browser with its real navigator.locks and posts the observed log
// to the server that served the page (adapters/js/chromium/run.py). Agents: a window is an
// iframe (of this origin; of a second loopback origin for the trace's second origin; sandboxed,
// so opaque, for "opaque"), a worker is a dedicated worker of this page. Steps and events travel
// by postMessage, so the runner treats every agent alike whatever its origin.
//
// Settling after a step is quiescence: no message from any agent for QUIET_MS and three turns,
// at most LIMIT_MS. An event that a step's own task logs carries that step; any other carries
// the step being settled when it arrives (traces/README.md).
import { cannotExpress, schedulingOps } from '../agent.mjs';
import { Acks, Recorder, quiescence, replaySteps } from '../settle.mjs';

// The scheduler's ops where this browser has them: its windows and workers are the same engine
// (requestIdleCallback, which only windows have, the trace reader allows only in windows).
const params = new URLSearchParams(location.search);
// A polyfill under test (launch.py --preload, --hide-locks, --without): the module each agent
// loads first, and what the target leaves out (the scheduler, when only the polyfill is judged;
// workers, for a polyfill that installs itself only in windows).
const without = (params.get('without') || '').split(',').filter(Boolean);
const OPS = ['request', 'query', 'newAbortController', 'abort', 'newPromise', 'settle', 'then',
  'queueMicrotask', 'run', 'await', 'mark', 'terminate', 'unload',
  ...(without.includes('scheduler') ? [] : schedulingOps())];
const agentParams = ['preload', 'hideLocks'].filter((k) => params.has(k))
  .map((k) => `&${k}=${encodeURIComponent(params.get(k))}`).join('');
const QUIET_MS = Number(params.get('quiet') || 60);
const LIMIT_MS = Number(params.get('limit') || 3000);
const secondOrigin = params.get('secondOrigin');  // e.g. http://localhost:PORT

const post = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });

function whyNot(trace) {
  const reason = cannotExpress(trace, { ops: OPS, features: ['windows', 'origins', 'opaque'] });
  if (reason) return reason;
  const origins = [...new Set(trace.agents.filter((a) => a.origin !== 'opaque').map((a) => a.origin))];
  if (origins.length > 2) return 'it uses more than two origins';
  const worker = trace.agents.find((a) => a.kind === 'worker');
  if (worker && without.includes('workers'))
    return `agent ${worker.id} is a worker, and the target runs only in windows`;
  for (const a of trace.agents)
    if (a.kind === 'worker' && a.origin !== origins[0])
      return `worker ${a.id} is not of the first origin`;
  // An unloaded window's script that still runs needs the window itself, which the runner does
  // not reach through postMessage.
  const unloaded = new Set();
  for (const s of trace.steps) {
    if (unloaded.has(s.agent)) return `agent ${s.agent} runs script after its document unloads`;
    if (s.op === 'unload') unloaded.add(s.agent);
  }
  return null;
}

async function main() {
  const trace = await (await fetch(params.get('trace'))).json();
  const reason = whyNot(trace);
  if (reason) return post({ cannot: reason });
  const origins = [...new Set(trace.agents.filter((a) => a.origin !== 'opaque').map((a) => a.origin))];
  const recorder = new Recorder();
  const acks = new Acks();
  const agents = new Map();  // id -> {send, end}
  const ready = [];
  const onMessage = (data) => {
    if (!data || !data.lockstep) return;
    if (data.lockstep === 'event') recorder.event(data.agent, data.own, data.event);
    else if (data.lockstep === 'performed') acks.performed(data.agent, data.step);
    else if (data.lockstep === 'error') recorder.error(`agent ${data.agent}: ${data.message}`);
  };
  addEventListener('message', (m) => onMessage(m.data));
  for (const a of trace.agents) {
    let resolveReady;
    ready.push(new Promise((r) => { resolveReady = r; }));
    const readyOnce = (data) => { if (data && data.lockstep === 'ready' && data.agent === a.id) resolveReady(); };
    if (a.kind === 'worker') {
      const worker = new Worker(`agent-worker.mjs?agent=${encodeURIComponent(a.id)}${agentParams}`, { type: 'module' });
      worker.onmessage = (m) => { readyOnce(m.data); onMessage(m.data); };
      agents.set(a.id, { send: (msg) => worker.postMessage(msg), end: () => worker.terminate() });
    } else {
      const frame = document.createElement('iframe');
      frame.title = a.id;
      const base = a.origin === origins[0] || a.origin === 'opaque' ? '' : `${secondOrigin}/browser/`;
      frame.src = `${base}agent-frame.html?agent=${encodeURIComponent(a.id)}${agentParams}`;
      if (a.origin === 'opaque') frame.sandbox = 'allow-scripts';
      addEventListener('message', (m) => readyOnce(m.data));
      document.body.append(frame);
      agents.set(a.id, {
        send: (msg) => frame.contentWindow.postMessage(msg, '*'),
        end: () => frame.remove(),
      });
    }
  }
  await Promise.all(ready);

  const settle = quiescence(() => recorder.activity, {
    quietMs: QUIET_MS, limitMs: LIMIT_MS, turn: () => new Promise((r) => setTimeout(r, 0)),
  });
  await replaySteps(trace.steps, recorder, {
    perform: async (i, step) => {
      const agent = agents.get(step.agent);
      if (step.op === 'terminate' || step.op === 'unload') {
        agent.end();
        acks.ended(step.agent);
        return;
      }
      const performed = step.settle === false ? acks.wait(step.agent, i) : null;
      agent.send({ lockstep: 'perform', step: i, action: step });
      await performed;
    },
    settle,
  });
  if (recorder.errors.length) return post({ error: recorder.errors.join('\n') });
  return post({ log: { format: 'lockstep-log', version: 1, events: recorder.events } });
}

main().catch((e) => post({ error: String(e && e.stack || e) }));
