// The agents of one of a trace's other partitions, in a browser of their own (launch.py starts
// one per partition beyond the runner's, each on a fresh profile: another user agent, with lock
// managers and storage of its own). This page makes that partition's agents as the runner makes
// its own (host.mjs) and stands in for the runner towards them: what the runner sends through
// the relay it hands to the agent, and what its agents post it relays to the runner, in order.
import { agentParamsOf, hostAgents, originsOf, partitionOf } from './host.mjs';
import { RUNNER, Relay, partitionMailbox } from './relay.mjs';

const params = new URLSearchParams(location.search);
const partition = params.get('partition');
const relay = new Relay(partitionMailbox(partition),
  (message) => relay.send(RUNNER, { lockstep: 'error', agent: partition, message }));

async function main() {
  const trace = await (await fetch(params.get('trace'))).json();
  const { hosted } = hostAgents(trace.agents.filter((a) => partitionOf(a) === partition), {
    origins: originsOf(trace),
    secondOrigin: params.get('secondOrigin'),
    agentParams: agentParamsOf(params),
    onMessage: (data) => { if (data && data.lockstep) relay.send(RUNNER, data); },
  });
  await relay.listen((m) => {
    const agent = hosted.get(m.agent);
    if (m.lockstep === 'ping') {
      // Sent after everything this page had relayed when the ping came (runner.mjs, settling).
      relay.send(RUNNER, { lockstep: 'pong', partition, n: m.n });
    } else if (!agent) {
      relay.send(RUNNER, { lockstep: 'error', agent: m.agent, message: `no agent ${m.agent} in partition ${partition}` });
    } else if (m.lockstep === 'end') {
      // The runner sends nothing more for this agent before "performed" (a window's end may wait
      // for the keeper, host.mjs).
      Promise.resolve(agent.end(m.step)).then(() => {
        if (!agent.endsAcked) relay.send(RUNNER, { lockstep: 'performed', agent: m.agent, step: m.step });
      });
    } else {
      agent.send(m.message);
    }
  });
}

main().catch((e) => relay.send(RUNNER, { lockstep: 'error', agent: partition, message: String(e && e.stack || e) }));
