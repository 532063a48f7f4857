// One trace agent in a dedicated worker of runner.html: as agent-frame.html, over the worker's
// own message port.
import { Agent } from '../agent.mjs';

const id = new URLSearchParams(location.search).get('agent');
let own = null;
const agent = new Agent((event) => postMessage({ lockstep: 'event', agent: id, own, event }));
addEventListener('message', (m) => {
  if (!m.data || m.data.lockstep !== 'perform') return;
  own = m.data.step;
  try {
    agent.step(m.data.action);
  } catch (e) {
    postMessage({ lockstep: 'error', agent: id, message: String(e && e.stack || e) });
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { own = null; };
  channel.port2.postMessage(null);
});
postMessage({ lockstep: 'ready', agent: id });
