// A stand-in for your Web Locks library: a LockManager with request() and query(). As shipped it
// passes every call to Node's own navigator.locks, so that the template runs as it is; replace
// the two functions with your implementation (docs/testing-your-implementation.md).
//
// This module is loaded once in the runner's main thread and once in each agent's worker thread,
// so each agent gets its own instance: whatever state must be shared between agents (who holds
// what, who waits) has to travel between threads (a SharedArrayBuffer, or messages relayed by the
// main thread; glue.mjs's attachWorker hands you each agent's Worker for that).
const engine = globalThis.navigator.locks;

export const locks = {
  request: (...args) => engine.request(...args),
  query: () => engine.query(),
};
