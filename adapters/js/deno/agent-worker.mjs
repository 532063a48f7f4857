// One trace agent in a Deno Web Worker of run.mjs: the browsers' agent side (serveAgent), over the
// worker's own message port. The agent's id is the worker's name; a module to load first (run.mjs
// --preload, a polyfill under test) comes as the `preload` parameter of this module's URL.
import { serveAgent } from '../agent.mjs';

// A web page only reports an unhandled rejection; a Deno worker would fail. Traces reject promises
// nobody handles (a callback's result, a settle with "reject"), so do as a page does.
self.addEventListener('unhandledrejection', (e) => e.preventDefault());

const preload = new URL(import.meta.url).searchParams.get('preload');
if (preload) await import(preload);

serveAgent(self.name,
  (message) => self.postMessage(message),
  (receive) => self.addEventListener('message', (m) => receive(m.data)));
