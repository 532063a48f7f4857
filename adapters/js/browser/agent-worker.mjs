// One trace agent in a dedicated worker of runner.html, over the worker's own message port.
import { hideNativeLocks, serveAgent } from '../agent.mjs';

// The agent's parameters come with this module's URL: the worker's own URL, or, for a worker of an
// opaque origin (worker-host.html), the URL its data: script imports this module by.
const params = new URL(import.meta.url).searchParams;
const id = params.get('agent');
// A polyfill under test (runner.mjs): the browser's own navigator.locks goes, the polyfill comes.
try {
  if (params.has('hideLocks')) hideNativeLocks();
  if (params.get('preload')) await import(params.get('preload'));
} catch (e) {
  postMessage({ lockstep: 'error', agent: id, message: `cannot load the preloaded module: ${e}` });
}
serveAgent(id, (message) => postMessage(message),
  (receive) => addEventListener('message', (m) => receive(m.data)),
  { locksAreTasks: !params.has('hideLocks') });
