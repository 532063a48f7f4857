// A stand-in for your Web Locks library in a web page: it installs a LockManager with request()
// and query() as navigator.locks. As shipped it passes every call to the browser's own, so that
// the template runs as it is; replace the two functions with your implementation
// (docs/testing-your-implementation.md).
//
// lockstep's browser runner loads this module (--preload) first in every agent: each window is
// an iframe and each worker a dedicated worker, so each agent gets its own instance, and what
// agents share (who holds what) must travel between them as your library makes it travel
// (localStorage and storage events, a BroadcastChannel, a SharedWorker, ...).
const engine = navigator.locks;

const locks = {
  request: (...args) => engine.request(...args),
  query: () => engine.query(),
};

// An own property of navigator hides the browser's getter on Navigator.prototype. (With
// --hide-locks the runner deletes that getter first, for a library that installs itself only
// where navigator.locks is missing; the pass-through above needs the browser's, so it is off.)
Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
