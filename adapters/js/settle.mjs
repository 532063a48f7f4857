// What the runners share: which step's settling an event belongs to, settling by quiescence, the
// loop that hands top-level steps to agents, and the log's text.

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

// Hands each top-level step to its agent (`perform(agentId, index, step)`, or `terminate(agentId)`)
// and settles after every step that settles, and once more at the end; `setSettling(i)` is told
// the step whose settling whatever arrives from now on belongs to.
export async function replaySteps(steps, { perform, terminate, settle, setSettling }) {
  const settlingStep = settlesAt(steps);
  for (let i = 0; i < steps.length; ++i) {
    const step = steps[i];
    setSettling(settlingStep[i]);
    if (step.op === 'terminate') await terminate(step.agent);
    else perform(step.agent, i, step);
    if (step.settle !== false) await settle();
  }
  await settle();
}

// The lockstep-log file for `events`, one event a line.
export function logText(events) {
  const lines = events.map((e) => '  ' + JSON.stringify(e));
  return `{"format": "lockstep-log", "version": 1, "events": [\n${lines.join(',\n')}\n]}\n`;
}
