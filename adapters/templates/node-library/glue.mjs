// What makes my-locks.mjs the navigator.locks that lockstep's Node runner drives: run.mjs loads
// this module (--preload) in its main thread and in every agent's worker thread before the agent
// script starts (adapters/js/node/run.mjs).
import { locks } from './my-locks.mjs';

// An own property of navigator hides the engine's getter on Navigator.prototype. (With
// --hide-locks the runner deletes that getter first, for a library that installs itself only
// where navigator.locks is missing; the pass-through above needs the engine's, so it is off.)
Object.defineProperty(globalThis.navigator, 'locks', { value: locks, configurable: true });

// Called in the main thread with each agent's Worker, before its script runs: a library whose
// threads coordinate through their parent (as npm's web-locks does) attaches it here.
export function attachWorker(_worker) {}
