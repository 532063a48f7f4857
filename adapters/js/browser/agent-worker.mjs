// One trace agent in a dedicated worker of runner.html, over the worker's own message port.
import { serveAgent } from '../agent.mjs';

serveAgent(new URLSearchParams(location.search).get('agent'),
  (message) => postMessage(message),
  (receive) => addEventListener('message', (m) => receive(m.data)));
