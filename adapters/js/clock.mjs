// The trace's virtual clock on real time (adapters/README.md, "Timers"). A trace's timers
// (setTimeout, AbortSignal.timeout, postTask's delay) fire only when an advanceTime step moves
// the virtual clock past them (docs/interpretations.md I-4): the clock moves from instant to
// instant where a timer is due, and the world settles after each. Engines' timers run on real
// time, so a run with timers follows a plan fixed before its first timer starts:
//
// - every step gets a budget of real time (stepMs), and each advanceTime step a window that
//   starts once the steps before it have had theirs;
// - in its window, each virtual instant at which a timer may fall due gets a slot (slotMs), in
//   the instants' order; a timer is started with the real delay that ends at its instant's slot;
// - what runs in an instant's slot must have settled before the next slot begins.
//
// The plan is sound only while the engine keeps to it, so the runner and the agents check that it
// did: a step begun after its window's start, a slot whose settling overran, or a timer that ran
// after its slot fails the run (an adapter failure, which lockstep runs again with every budget
// longer), never yields a log whose timers are out of order.

// How long a runner may wait for "never" (a timer no advanceTime reaches): beyond any run, and
// within the 32-bit range that HTML's timers take (a larger timeout is clamped to a few ms).
export const NEVER_MS = 1e9;

// How long after a window's end the next step begins (Clock.advance).
const END_MARGIN_MS = 10;

// Apart from the instant's slot, timers of one agent due at one instant are started this far
// apart, in the order they were started, so that the engine's order of equal deadlines (start
// order: html#run-steps-after-a-timeout waits for earlier timers of its ordering identifier)
// cannot be undone by whole-millisecond timeouts.
export const START_ORDER_MS = 2;

// The timer-making actions anywhere in `steps` with the step they belong to and their virtual
// delay: setTimeout and AbortSignal.timeout, and a postTask whose delay is above 0 (only then
// does postTask start a timer: scheduling#schedule-a-posttask-task step 13).
export function timerActions(steps) {
  const out = [];
  const walk = (actions, step) => {
    for (const a of actions || []) {
      if (a.op === 'setTimeout' || a.op === 'timeoutSignal') out.push({ step, ms: a.ms || 0 });
      if (a.op === 'postTask' && a.options && a.options.delay > 0)
        out.push({ step, ms: a.options.delay });
      walk(a.body, step);
      if (a.callback) walk(a.callback.body, step);
    }
  };
  steps.forEach((s, i) => walk([s], i));
  return out;
}

// The virtual time at which each step begins (the sum of the advanceTime steps before it).
export function stepInstants(steps) {
  let now = 0;
  return steps.map((s) => {
    const at = now;
    if (s.op === 'advanceTime') now += s.ms || 0;
    return at;
  });
}

// Every virtual instant at which one of the trace's timers may fall due: a timer starts at the
// instant of a step at or after its own, or at an instant where another timer is due (a timer's
// body, or a callback that runs then, starts it). Each action runs at most once, so a chain of
// timers is at most as long as the trace has timers; instants after the last step's are left
// out, since no advanceTime reaches them.
export function dueInstants(steps) {
  const timers = timerActions(steps);
  const instants = stepInstants(steps);
  const end = steps.length ? instants[steps.length - 1] +
    (steps[steps.length - 1].op === 'advanceTime' ? steps[steps.length - 1].ms || 0 : 0) : 0;
  const starts = new Set(instants);
  let dues = new Set();
  for (let round = 0; round < timers.length; ++round) {
    const next = new Set(dues);
    for (const t of timers)
      for (const x of [...starts, ...dues])
        if (x >= instants[t.step] && x + t.ms <= end) next.add(x + t.ms);
    if (next.size === dues.size) break;
    dues = next;
  }
  return [...dues].sort((a, b) => a - b);
}

// The plan of a trace with timers, in ms from the moment its first timer-making step begins, or
// null when the trace has no timer. `stepMs(i)`: the budget of step i's perform and settling;
// `slotMs(i)` (or a number): an instant's slot in step i's window, which must hold that step's
// settling. Each advanceTime step from the first timer's on gets a window:
// { step, from, to, start, slot, dues, end }, its due instants those in [from, to].
export function planTimers(steps, { stepMs, slotMs }) {
  const slotOf = typeof slotMs === 'function' ? slotMs : () => slotMs;
  const timers = timerActions(steps);
  if (!timers.length) return null;
  const first = Math.min(...timers.map((t) => t.step));
  const instants = stepInstants(steps);
  const dues = dueInstants(steps);
  const windows = [];
  let at = 0;
  for (let i = first; i < steps.length; ++i) {
    const s = steps[i];
    if (s.op === 'advanceTime') {
      const from = instants[i], to = from + (s.ms || 0);
      const mine = dues.filter((d) => d >= from && d <= to);
      const start = at, slot = slotOf(i);
      at += (mine.length + 1) * slot;
      windows.push({ step: i, from, to, start, slot, dues: mine, end: at });
    }
    at += stepMs(i);
  }
  return { first, windows };
}

// Where the plan stands at `t` ms after its start: the virtual time then, and, inside a window,
// the window and the slot (0 before its first instant's, k for the k-th instant's).
export function virtualAt(plan, t) {
  let now = 0;
  for (const w of plan.windows) {
    if (t < w.start) return { now: w.from };
    if (t < w.end) {
      const slot = Math.floor((t - w.start) / w.slot);
      if (slot === 0) return { now: w.from, window: w, slot };
      if (slot > w.dues.length) return { now: w.to };
      return { now: w.dues[slot - 1], window: w, slot };
    }
    now = w.to;
  }
  return { now };
}

// When (ms after the plan's start) a timer of `ms` virtual ms started at `t` should fire, `at`,
// and by when its task must have run, `until` (its slot's end); null when no advanceTime reaches
// it. A timer that falls due at the very instant whose slot is running (0 ms, started by what
// that instant's timers ran) fires in a further round at that instant (I-4): half a slot later,
// the rest of the slot left to settle. An instant the plan lacks is the plan's defect, thrown.
export function deadlineAt(plan, t, ms) {
  const here = virtualAt(plan, t);
  const due = here.now + ms;
  if (here.window && here.slot > 0 && due === here.now) {
    const w = here.window;
    const until = w.start + (here.slot + 1) * w.slot;
    return { at: Math.min(t + w.slot / 2, until), until };
  }
  for (const w of plan.windows) {
    if (w.end <= t || due > w.to) continue;
    const k = w.dues.indexOf(due);
    if (k < 0 || (w === here.window && k + 1 <= here.slot))
      throw new Error(`the timer plan has no slot for virtual instant ${due} ms`);
    const at = w.start + (k + 1) * w.slot;
    return { at, until: at + w.slot };
  }
  return null;
}

// An agent's side of the plan: the real delays its timers start with, and the check that each
// ran in its slot. `plan` and `start` (an absolute time, now()) come with every step from the
// first timer's on (the runner's Clock.message); `report(message)` fails the run.
export class AgentClock {
  constructor(report) {
    this.report = report;
    this.plan = null;
    this.start = 0;
    this.started = new Map();  // a deadline -> how many timers this agent started for it
  }

  receive(clock) {
    if (clock) ({ plan: this.plan, start: this.start } = clock);
  }

  // The real delay for a timer of `ms` virtual ms started now, and `ran()`, to be called when the
  // timer's task runs: it reports a task that runs after its instant's slot.
  timer(ms, what) {
    if (!this.plan) {
      this.report(`${what} started before the runner sent the timer plan`);
      return { delay: NEVER_MS, ran: () => {} };
    }
    const t = now() - this.start;
    let deadline;
    try {
      deadline = deadlineAt(this.plan, t, ms);
    } catch (e) {
      this.report(`${what}: ${e.message}`);
      return { delay: NEVER_MS, ran: () => {} };
    }
    if (deadline === null) return { delay: NEVER_MS, ran: () => {} };
    const order = this.started.get(deadline.at) || 0;
    this.started.set(deadline.at, order + 1);
    const fireAt = deadline.at + order * START_ORDER_MS;
    const slotEnd = deadline.until;
    return {
      delay: Math.max(0, Math.ceil(fireAt - t)),
      ran: () => {
        const late = now() - this.start - slotEnd;
        if (late > 0)
          this.report(`${what} ran ${Math.round(late)} ms after its instant's slot ended ` +
            '(the timer plan was not kept: the engine was slower than its budgets)');
      },
    };
  }
}

// An absolute time in ms that every agent of the machine reads alike (a worker's and a frame's
// performance.timeOrigin differ; their sums with now() agree).
export function now() {
  return performance.timeOrigin + performance.now();
}

// The runner's side: the plan, made when the trace's first timer-making step begins; what each
// step's message carries; and advanceTime, which waits out its window slot by slot, settling
// after each, and fails the run where the steps or a slot overran.
export class Clock {
  constructor(steps, budgets, report) {
    this.steps = steps;
    this.budgets = budgets;
    this.plan = planTimers(steps, budgets);
    this.report = report;
    this.start = null;
  }

  // What step i's message to its agent carries: { plan, start } from the first timer's step on.
  // The plan is made again as that step begins, its budgets asked then: a runner whose budgets
  // follow the latency it has measured (browser/runner.mjs) plans with what the steps before
  // have shown.
  message(i) {
    if (!this.plan || i < this.plan.first) return undefined;
    if (this.start === null) {
      this.plan = planTimers(this.steps, this.budgets);
      this.start = now();
    }
    return { plan: this.plan, start: this.start };
  }

  // Step i, an advanceTime: `settle()` waits for quiescence.
  async advance(i, settle) {
    const w = this.plan && this.start !== null && this.plan.windows.find((x) => x.step === i);
    if (!w) return settle();  // no timer can be due: the world only settles
    const late = now() - this.start - w.start;
    if (late > 0) {
      this.report(`advanceTime (step ${i}) began ${Math.round(late)} ms after its window's ` +
        'start: the steps before it overran their budgets');
    }
    for (let k = 1; k <= w.dues.length; ++k) {
      await sleepUntil(this.start + w.start + k * w.slot);
      await settle();
      const over = now() - this.start - (w.start + (k + 1) * w.slot);
      if (over > 0) {
        this.report(`advanceTime (step ${i}): virtual instant ${w.dues[k - 1]} ms settled ` +
          `${Math.round(over)} ms after its slot ended`);
      }
    }
    // A little past the window's end, so that an agent whose clock reads a millisecond behind
    // (a rounded performance.now(), another process) already finds the clock at `to`.
    await sleepUntil(this.start + w.end + END_MARGIN_MS);
  }
}

// Timers may wake a millisecond early (whole-millisecond timeouts, clocks rounded), and a step
// that began while the plan still says the previous instant would place its timers there.
async function sleepUntil(at) {
  for (let wait = at - now(); wait > 0; wait = at - now())
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
}
