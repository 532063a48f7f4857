// What the runners share: which step's settling an event belongs to, and settling by quiescence.

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
