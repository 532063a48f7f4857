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
// `pause`, when given, is awaited between quiet turns so that the loop does not spin.
export function quiescence(activity, { quietMs, limitMs, turn, pause }) {
  return async function settle() {
    const start = performance.now();
    let seen = activity(), last = performance.now(), turns = 0;
    while (performance.now() - start < limitMs) {
      await turn();
      if (activity() !== seen) {
        seen = activity();
        last = performance.now();
        turns = 0;
      } else if (++turns >= 3 && performance.now() - last >= quietMs) {
        return;
      } else if (turns >= 3 && pause) {
        await pause();
      }
    }
  };
}

// Hands each top-level step to the runner (`await perform(index, step)`: send it to its agent, or
// end the agent) and settles after every step that settles, and once more at the end; the
// recorder is told the step whose settling whatever arrives from then on belongs to.
export async function replaySteps(steps, recorder, { perform, settle }) {
  const settlingStep = settlesAt(steps);
  for (let i = 0; i < steps.length; ++i) {
    recorder.settling = settlingStep[i];
    await perform(i, steps[i]);
    if (steps[i].settle !== false) await settle();
  }
  await settle();
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
