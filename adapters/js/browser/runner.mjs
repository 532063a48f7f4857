// Replays a lockstep trace in a browser with its real navigator.locks and posts the observed log
// to the server that served the page (adapters/js/chromium/run.py). Agents (host.mjs): a window is
// an iframe (of this origin; of a second loopback origin for the trace's second origin;
// sandboxed, so opaque, for "opaque"), a worker is a dedicated worker of this page. Steps and
// events travel by postMessage, so the runner treats every agent alike whatever its origin. The
// agents of the trace's other partitions live in other browsers (partition.mjs), reached through
// the loopback server's relay (relay.mjs).
//
// Settling after a step is quiescence: no message from any agent for QUIET_MS (longer when the
// agents' round trips are slow: RoundTrips in settle.mjs) and three turns, at most LIMIT_MS, and, with other partitions, a round trip to each of their pages that brings
// nothing new. An event that a step's own task logs carries that step; any other carries the
// step being settled when it arrives (traces/README.md).
import { TIMER_OPS, cannotExpress, schedulingOps } from '../agent.mjs';
import { Clock } from '../clock.mjs';
import {
  Acks, Recorder, RoundTrips, firstLockCallSettles, quiescence, replaySteps, settleScale,
} from '../settle.mjs';
import {
  agentParamsOf, hostAgents, originsOf, partitionOf, scriptAfterUnload,
} from './host.mjs';
import { RUNNER, Relay, partitionMailbox } from './relay.mjs';

// The scheduler's ops where this browser has them: its windows and workers are the same engine
// (requestIdleCallback, which only windows have, the trace reader allows only in windows).
const params = new URLSearchParams(location.search);
// A polyfill under test (launch.py --preload, --hide-locks, --without): the module each agent
// loads first, and what the target leaves out (the scheduler, when only the polyfill is judged;
// workers, for a polyfill that installs itself only in windows).
const without = (params.get('without') || '').split(',').filter(Boolean);
const OPS = ['request', 'query', 'newAbortController', 'abort', 'newPromise', 'settle', 'then',
  'queueMicrotask', 'run', 'await', 'mark', 'terminate', 'unload', ...TIMER_OPS,
  ...(without.includes('scheduler') ? [] : schedulingOps())];
// launch.py passes LOCKSTEP_SETTLE_SCALE on as settleScale: every quiet and the limit that long.
const SCALE = settleScale(params.get('settleScale'));
const QUIET_MS = SCALE * Number(params.get('quiet') || 60);
// After an agent's first navigator.locks call: Chromium binds a context's lock manager on its
// first call, and on a loaded machine the answer (a grant, a snapshot) took longer than 60 ms in
// 10 of 100 runs, so its events were stamped with a later step (docs/conformance.md).
const FIRST_CALL_QUIET_MS =
  Math.max(QUIET_MS, SCALE * Number(params.get('firstCallQuiet') || 250));
const LIMIT_MS = SCALE * Number(params.get('limit') || 3000);
// The timer plan's budgets (../clock.mjs): a step's, four times its quiet and 150 ms (a lock call
// that crosses processes, a frame that unloads), and each virtual instant's slot in an
// advanceTime step, the same as that step's (its settling has the step's quiet).
const stepBudget = (quietMs) => 4 * quietMs + SCALE * 150;
const secondOrigin = params.get('secondOrigin');  // e.g. http://localhost:PORT

const post = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });

function whyNot(trace) {
  const reason = cannotExpress(trace,
    { ops: OPS, features: ['windows', 'origins', 'opaque', 'partitions', 'peers', 'timers'] });
  if (reason) return reason;
  const origins = originsOf(trace);
  if (origins.length > 2) return 'it uses more than two origins';
  const worker = trace.agents.find((a) => a.kind === 'worker');
  if (worker && without.includes('workers'))
    return `an agent is a worker, and the target runs only in windows (agent ${worker.id})`;
  // An unloaded window's script that still runs is called into its removed frame by a page of
  // its origin, which no page is for an opaque one (host.mjs, scriptAfterUnload).
  const unloaded = new Set();
  const byId = new Map(trace.agents.map((a) => [a.id, a]));
  for (const s of trace.steps) {
    if (unloaded.has(s.agent) && !scriptAfterUnload(byId.get(s.agent), origins))
      return `an agent of an opaque origin runs script after its document unloads ` +
        `(agent ${s.agent})`;
    if (s.op === 'unload') unloaded.add(s.agent);
  }
  return null;
}

async function main() {
  const trace = await (await fetch(params.get('trace'))).json();
  const reason = whyNot(trace);
  if (reason) return post({ cannot: reason });
  const recorder = new Recorder();
  const acks = new Acks();
  // The partitions in the order the agents name them: this browser hosts the first, launch.py
  // has started a browser on partition.html for each other one.
  const partitions = [...new Set(trace.agents.map(partitionOf))];
  const remote = new Remote(partitions.slice(1), recorder);
  const onMessage = (data) => {
    if (!data || !data.lockstep) return;
    if (data.lockstep === 'event') recorder.event(data.agent, data.own, data.event);
    else if (data.lockstep === 'performed') acks.performed(data.agent, data.step);
    else if (data.lockstep === 'error') recorder.error(`agent ${data.agent}: ${data.message}`);
    else if (data.lockstep === 'ready') remote.ready(data.agent);
    else if (data.lockstep === 'pong') remote.pong(data.n);
  };
  const local = hostAgents(trace.agents.filter((a) => partitionOf(a) === partitions[0]), {
    origins: originsOf(trace), secondOrigin, agentParams: agentParamsOf(params), onMessage,
  });
  const agents = new Map(local.hosted);
  for (const a of trace.agents)
    if (partitionOf(a) !== partitions[0]) agents.set(a.id, remote.agent(a));
  remote.listen(onMessage);
  await Promise.all([local.ready, remote.allReady()]);

  // The quiet grows with the agents' round trips (RoundTrips): under load it lengthens by itself.
  const roundTrips = new RoundTrips();
  const quietFor = (quietMs) => quiescence(() => recorder.activity, {
    quietMs: () => roundTrips.quiet(quietMs), limitMs: LIMIT_MS,
    turn: () => new Promise((r) => setTimeout(r, 0)),
  });
  const [shortQuiet, longQuiet] = [quietFor(QUIET_MS), quietFor(FIRST_CALL_QUIET_MS)];
  const firstCalls = firstLockCallSettles(trace.steps, trace.agents);
  const quietAfter = (i) => (firstCalls.has(i) ? longQuiet : shortQuiet);
  // Asked when the first timer-making step begins (Clock.message): the quiet that the round trips
  // measured by then ask for, so that on a loaded machine (or beside other traces in this
  // browser, launch.py --serve) the plan's budgets are as long as settling has become.
  const budget = (i) =>
    stepBudget(roundTrips.quiet(firstCalls.has(i) ? FIRST_CALL_QUIET_MS : QUIET_MS));
  const clock = new Clock(trace.steps, { stepMs: budget, slotMs: budget },
    (message) => recorder.error(`timers: ${message}`));
  await replaySteps(trace.steps, recorder, {
    clock,
    perform: async (i, step, timerPlan) => {
      const agent = agents.get(step.agent);
      if (step.op === 'terminate' || step.op === 'unload') {
        // Another partition's page, or a worker's host frame, says when the agent has gone, as
        // it says a step performed.
        const ended = agent.endsAcked ? acks.wait(step.agent, i) : null;
        await agent.end(i);
        await ended;
        acks.ended(step.agent);
        return;
      }
      // Every step is waited for, one that settles too: settling watches what arrives from the
      // moment the step has run, not from when it set out. A step to another partition crosses the
      // relay, and one to a frame of the second origin crosses processes (Firefox's site
      // isolation): it could take longer than the quiet that settling waits for, and the runner
      // went on, or ended, before the step's events came (corpus trace
      // scheduling/prioritychange-heard-in-another-window, now and then on Firefox).
      const performed = acks.wait(step.agent, i);
      const sent = performance.now();
      agent.send({ lockstep: 'perform', step: i, action: step, clock: timerPlan });
      await performed;
      roundTrips.add(performance.now() - sent);
    },
    settle: (i) => (remote.partitions.length ? remote.settle(quietAfter(i)) : quietAfter(i)()),
  });
  if (recorder.errors.length) return post({ error: recorder.errors.join('\n') });
  return post({ log: { format: 'lockstep-log', version: 1, events: recorder.events } });
}

// The agents of the other partitions, as the runner sees them: reached through the relay, ready
// when their page relays their "ready", settled when a ping to each page comes back with nothing
// new before it.
class Remote {
  constructor(partitions, recorder) {
    this.partitions = partitions;
    this.recorder = recorder;
    this.relay = new Relay(RUNNER, (message) => recorder.error(message));
    this.waitingReady = new Map();  // agent id -> resolve
    this.readyPromises = [];
    this.pings = 0;
    this.pongs = new Map();  // n -> resolve
  }

  agent(a) {
    this.readyPromises.push(new Promise((r) => this.waitingReady.set(a.id, r)));
    const mailbox = partitionMailbox(partitionOf(a));
    return {
      remote: true,
      endsAcked: true,
      send: (message) => this.relay.send(mailbox, { lockstep: 'deliver', agent: a.id, message }),
      end: (step) => this.relay.send(mailbox, { lockstep: 'end', agent: a.id, step }),
    };
  }

  listen(onMessage) {
    if (!this.partitions.length) return;
    this.relay.listen(onMessage)
      .catch((e) => this.recorder.error(`the relay to the other partitions failed: ${e}`));
  }

  ready(agent) {
    const resolve = this.waitingReady.get(agent);
    if (resolve) resolve();
  }

  allReady() {
    return Promise.all(this.readyPromises);
  }

  pong(n) {
    const resolve = this.pongs.get(n);
    this.pongs.delete(n);
    if (resolve) resolve();
  }

  // A round trip to every other partition's page: what it relayed before the ping has arrived
  // when the pong does (the relay keeps each page's messages in order). At most LIMIT_MS.
  pingAll() {
    return Promise.all(this.partitions.map((p) => new Promise((resolve) => {
      const n = ++this.pings;
      const timer = setTimeout(resolve, LIMIT_MS);
      this.pongs.set(n, () => { clearTimeout(timer); resolve(); });
      this.relay.send(partitionMailbox(p), { lockstep: 'ping', n });
    })));
  }

  // Quiet here, then quiet over there: repeated while a round trip brings something new (what
  // arrives re-starts the local quiet), a few times at most.
  async settle(quiet) {
    for (let round = 0; round < 10; ++round) {
      await quiet();
      const seen = this.recorder.activity;
      await this.pingAll();
      if (this.recorder.activity === seen) return;
    }
  }
}

main().catch((e) => post({ error: String(e && e.stack || e) }));
