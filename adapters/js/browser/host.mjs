import { queueTaskEnd } from '../agent.mjs';

// Makes trace agents in this page, for runner.mjs (the agents of its own partition) and
// partition.mjs (another partition's, in a second browser): a window is an iframe (of this
// page's origin for the trace's first origin, of `secondOrigin` for its second, sandboxed for
// "opaque"), a worker a dedicated worker of this page, or of a frame of the worker's origin for a
// worker of the second origin or an opaque one (worker-host.html; sandboxed for opaque). Every
// agent talks by postMessage, whatever its origin, so a page treats them all alike.

// `agents`: the trace's agents to make here; `origins`: the trace's non-opaque origins in order
// (the first is this page's); `agentParams`: what every agent's URL carries (preload, hideLocks);
// `onMessage(data)`: what an agent posts. Returns the agents (id -> {send, end(step), endsAcked})
// and a promise of their "ready"; an agent whose `endsAcked` says "performed" for the step that
// ended it once it has gone (its end is a message, not a call).
export function hostAgents(agents, { origins, secondOrigin, agentParams, onMessage }) {
  const hosted = new Map();
  const ready = [];
  const keeper = agents.some((a) => a.kind === 'window' && a.origin === origins[1])
    ? makeKeeper(secondOrigin, ready) : null;
  for (const a of agents) {
    let resolveReady;
    ready.push(new Promise((r) => { resolveReady = r; }));
    const readyOnce = (data) => {
      if (data && data.lockstep === 'ready' && data.agent === a.id) resolveReady();
    };
    const base = a.origin === origins[0] || a.origin === 'opaque' ? '' : `${secondOrigin}/browser/`;
    const opaque = a.origin === 'opaque';
    if (a.kind === 'worker' && (base || opaque)) {
      const frame = document.createElement('iframe');
      frame.title = a.id;
      frame.src = `${base}worker-host.html?agent=${encodeURIComponent(a.id)}${agentParams}` +
        (opaque ? '&opaque=1' : '');
      if (opaque) frame.sandbox = 'allow-scripts';
      addEventListener('message', (m) => readyOnce(m.data));
      document.body.append(frame);
      hosted.set(a.id, {
        send: (msg) => frame.contentWindow.postMessage(msg, '*'),
        end: (step) => frame.contentWindow.postMessage({ lockstep: 'end', step }, '*'),
        endsAcked: true,
      });
    } else if (a.kind === 'worker') {
      const worker = new Worker(`agent-worker.mjs?agent=${encodeURIComponent(a.id)}${agentParams}`,
        { type: 'module' });
      worker.onmessage = (m) => { readyOnce(m.data); onMessage(m.data); };
      hosted.set(a.id, { send: (msg) => worker.postMessage(msg), end: () => worker.terminate() });
    } else {
      const frame = document.createElement('iframe');
      frame.title = a.id;
      frame.src = `${base}agent-frame.html?agent=${encodeURIComponent(a.id)}${agentParams}`;
      if (opaque) frame.sandbox = 'allow-scripts';
      addEventListener('message', (m) => readyOnce(m.data));
      document.body.append(frame);
      // A removed frame's window, while script of its document still runs (steps after its
      // unload): no message reaches it, so a page of its origin calls into it, this one for a
      // frame of its own origin, the keeper for one of the second (scriptAfterUnload).
      let removed = null;
      let kept = false;
      hosted.set(a.id, {
        send: (msg) => {
          if (removed) removed.lockstepPerform(structuredClone(msg), queueTaskEnd);
          else if (kept) keeper.deliver(a.id, msg);
          else frame.contentWindow.postMessage(msg, '*');
        },
        end: async () => {
          if (!frame.isConnected) return;  // ended before (an unload, then a terminate)
          if (!base && !opaque) removed = frame.contentWindow;
          else if (base && keeper) kept = await keeper.keep(a.id, frame);
          frame.remove();
        },
      });
    }
  }
  addEventListener('message', (m) => onMessage(m.data));  // the frames' (a worker's: onmessage)
  return { hosted, ready: Promise.all(ready) };
}

// The keeper (keeper.html): a frame of the second origin that keeps that origin's removed frames
// and calls their steps into them. keep(id, frame) resolves once it holds the frame's window.
function makeKeeper(secondOrigin, ready) {
  const frame = document.createElement('iframe');
  frame.title = 'keeper';
  frame.src = `${secondOrigin}/browser/keeper.html`;
  const waiting = new Map();  // agent id -> resolve, until "kept"
  ready.push(new Promise((resolve) => {
    addEventListener('message', (m) => {
      if (!m.data) return;
      if (m.data.lockstep === 'keeper-ready') resolve();
      if (m.data.lockstep === 'kept') waiting.get(m.data.agent)();
    });
  }));
  document.body.append(frame);
  const post = (message) => frame.contentWindow.postMessage(message, '*');
  return {
    keep: (agent, agentFrame) => new Promise((resolve) => {
      waiting.set(agent, () => resolve(true));
      post({ lockstep: 'keep', agent, index: [...Array(frames.length).keys()]
        .find((i) => frames[i] === agentFrame.contentWindow) });
    }),
    deliver: (agent, message) => post({ lockstep: 'deliver', agent, message }),
  };
}

// Whether the page can run agent `a`'s steps after its document unloads (host.mjs keeps the
// removed frame's window): a window of one of the trace's two origins, not an opaque one.
export const scriptAfterUnload = (a, origins) => a.kind === 'window' &&
  (a.origin === origins[0] || a.origin === origins[1]);

// The trace's non-opaque origins in the order the agents name them.
export function originsOf(trace) {
  return [...new Set(trace.agents.filter((a) => a.origin !== 'opaque').map((a) => a.origin))];
}

// The partition of agent `a` (traces/README.md: "default" unless named).
export const partitionOf = (a) => a.partition || 'default';

// What every agent's URL carries from the page's own: the polyfill to preload, whether to hide
// the browser's navigator.locks.
export function agentParamsOf(params) {
  return ['preload', 'hideLocks'].filter((k) => params.has(k))
    .map((k) => `&${k}=${encodeURIComponent(params.get(k))}`).join('');
}
