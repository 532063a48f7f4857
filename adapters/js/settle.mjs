// What the runners share: what they record of their agents, which step's settling an event belongs
// to, settling by quiescence, the loop that hands top-level steps to agents, and the log's text.

// What a runner records of its agents: each event stamped with its step (traces/README.md: the
// step whose own task logged it, or else the step being settled when it arrives), the errors, and
// how many of either arrived, which settling by quiescence watches.
export class Recorder {
  constructor() {
    this.events = [];
    this.errors = [];
    this.activity = 0;
    this.settling = 0;  // the step whose settling is under way: what arrives now happened in it
  }

  event(agent, own, event) {
    ++this.activity;
    this.events.push({ step: own === null ? this.settling : own, agent, ...event });
  }

  error(message) {
    ++this.activity;
    this.errors.push(message);
  }
}

// The browser runner's wait after each step (adapters/README.md): the agent says "performed" when
// the step's script has run (its task's microtasks may still be to come), and the runner settles
// or hands out the next step only then, so that frames and workers take their steps in the
// trace's order; what a step that does not settle left queued may still run before the next one
// (I-26). The
// Node and Deno runners do not wait: their agents are threads, and two such steps race as the
// trace format's "at the same moment" (a polyfill's race between threads shows only then).
export class Acks {
  constructor() {
    this.waiting = new Map();  // "agent step" -> resolve
  }

  // Resolves when the agent has performed the step, or after limitMs (an agent that hangs is the
  // replay's to report, not a reason to wait forever).
  wait(agent, step, limitMs = 3000) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      this.waiting.set(`${agent} ${step}`, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  performed(agent, step) {
    const key = `${agent} ${step}`;
    const resolve = this.waiting.get(key);
    this.waiting.delete(key);
    if (resolve) resolve();
  }

  // An agent that ended (terminated, or its thread died) performs nothing more.
  ended(agent) {
    for (const [key, resolve] of this.waiting)
      if (key.startsWith(`${agent} `)) {
        this.waiting.delete(key);
        resolve();
      }
  }
}

// How long the agents take to acknowledge a step (Acks), which settling's quiet grows with: on a
// loaded machine every message between the runner and its agents is slower, a grant or a
// snapshot as much as an acknowledgement, and a fixed quiet then ends a settling before what the
// step caused has arrived (its events stamped with the next step). quiet(q) is q, or FACTOR
// times the slowest of the last SAMPLES acknowledgements when that is longer, at most CAP ms.
export class RoundTrips {
  static SAMPLES = 8;
  static FACTOR = 4;
  static CAP = 1000;

  constructor() {
    this.samples = [];
  }

  add(ms) {
    this.samples.push(ms);
    if (this.samples.length > RoundTrips.SAMPLES) this.samples.shift();
  }

  quiet(quietMs) {
    const slowest = this.samples.length ? Math.max(...this.samples) : 0;
    return Math.max(quietMs, Math.min(RoundTrips.CAP, RoundTrips.FACTOR * slowest));
  }
}

// LOCKSTEP_SETTLE_SCALE (adapters/README.md, "Flaky failures"): lockstep sets it when it runs a trace
// again before keeping a failure, so that every quiet and limit of that run is this many times
// longer. Anything but a finite number of at least 1 means 1.
export function settleScale(raw) {
  const scale = Number(raw);
  return Number.isFinite(scale) && scale >= 1 ? scale : 1;
}

// For each step, the step whose settling what happens during it belongs to: itself when it
// settles, else the next step that does (the last step's index when none does: the final settle).
export function settlesAt(steps) {
  const out = [];
  for (let i = steps.length - 1, next = steps.length - 1; i >= 0; --i) {
    if (steps[i].settle !== false) next = i;
    out[i] = next;
  }
  return out;
}

// A settle() that waits until `activity()` has not changed for quietMs and three turns of the
// runner's loop, at most limitMs: quiescence, never a fixed sleep. `turn` yields one turn;
// `pause`, when given, is awaited between quiet turns so that the loop does not spin. `quietMs`
// may be a function, asked at each settling (RoundTrips.quiet). `busy`, when given, holds the
// settling open while it says true (a relay whose calls are not answered yet).
export function quiescence(activity, { quietMs, limitMs, turn, pause, busy }) {
  return async function settle() {
    const quiet = typeof quietMs === 'function' ? quietMs() : quietMs;
    const start = performance.now();
    let seen = activity(), last = performance.now(), turns = 0;
    while (performance.now() - start < limitMs) {
      await turn();
      if (activity() !== seen) {
        seen = activity();
        last = performance.now();
        turns = 0;
      } else if (++turns >= 3 && performance.now() - last >= quiet && !(busy && busy())) {
        return;
      } else if (turns >= 3 && pause) {
        await pause();
      }
    }
  };
}

// Hands each top-level step to the runner (`await perform(index, step, clock)`: send it to its
// agent with `clock`, the timer plan it carries, or end the agent) and settles after every step
// that settles (`settle(index)`), and once more at the end (`settle(steps.length)`); an
// advanceTime step is the clock's (clock.mjs, Clock.advance), settling at each instant where a
// timer may be due. The recorder is told the step whose settling whatever arrives from then on
// belongs to (an advanceTime's own, the model's stamp, traces/README.md).
export async function replaySteps(steps, recorder, { perform, settle, clock }) {
  const settlingStep = settlesAt(steps);
  for (let i = 0; i < steps.length; ++i) {
    recorder.settling = settlingStep[i];
    if (steps[i].op === 'advanceTime') {
      // What the timers run belongs to this step, whether or not it settles: the clock settles
      // after every instant (I-4), so nothing is left for a later step's settling.
      recorder.settling = i;
      await clock.advance(i, () => settle(i));
    } else {
      await perform(i, steps[i], clock.message(i));
    }
    if (steps[i].settle !== false) await settle(i);
  }
  await settle(steps.length);
}

// The settlings (replaySteps' indexes: a step's, or steps.length for the last) at or before
// which some agent makes its first call on navigator.locks: a request or query anywhere in the
// step, nested bodies and callbacks included (a postTask's or a lock's callback runs on the same
// agent, most often while that step settles). A browser may answer a context's first call late
// (Chromium binds the context's lock manager then), so the browser runner gives those settlings a
// longer quiet (runner.mjs). A call that request() or query() rejects before it reaches the lock
// manager (an opaque origin's, a name starting with "-", options that do not go together:
// web-locks#dom-lockmanager-request steps 4-8) is not that first call: Chromium makes none of it.
export function firstLockCallSettles(steps, agents = []) {
  const opaque = new Set(agents.filter((a) => a.origin === 'opaque').map((a) => a.id));
  const reachesTheManager = (a) => {
    if (a.op === 'query') return true;
    if (a.op !== 'request') return false;
    const o = a.options || {};
    const badOptions = (o.steal && o.ifAvailable) || (o.steal && o.mode === 'shared') ||
      (o.signal !== undefined && (o.steal || o.ifAvailable));
    return !String(a.name).startsWith('-') && !badOptions;
  };
  const calls = (actions) => (actions || []).some((a) =>
    reachesTheManager(a) || calls(a.body) || calls(a.callback && a.callback.body));
  const called = new Set();
  const out = new Set();
  let pending = false;
  steps.forEach((s, i) => {
    if (!called.has(s.agent) && !opaque.has(s.agent) && calls([s])) {
      called.add(s.agent);
      pending = true;
    }
    if (s.settle !== false && pending) {
      out.add(i);
      pending = false;
    }
  });
  if (pending) out.add(steps.length);
  return out;
}

// The lockstep-log file for `events`, one event a line.
export function logText(events) {
  const lines = events.map((e) => '  ' + JSON.stringify(e));
  return `{"format": "lockstep-log", "version": 1, "events": [\n${lines.join(',\n')}\n]}\n`;
}

// A runner's command line: takes `name VALUE` out of `args` (null when absent).
export function takeOption(args, name) {
  const i = args.indexOf(name);
  return i < 0 ? null : args.splice(i, 2)[1];
}

// Takes the flag `name` out of `args`: whether it was there.
export function takeFlag(args, name) {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
}
