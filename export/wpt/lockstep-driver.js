// lockstep's trace driver for web pages: replays a lockstep trace (traces/README.md) with the
// real navigator.locks of one same-origin iframe per agent and records what each agent's script
// observes, in the lockstep-log event shapes. `lockstep export --wpt` writes testharness.js tests
// that call it; it knows no test framework itself.
//
// What it covers: window agents of one origin; request, query, AbortController, abort, settle,
// newPromise, then, queueMicrotask, run, await, mark, unload and terminate (both remove the
// agent's iframe). The exporter leaves out traces that need anything else (workers, partitions,
// opaque origins, the scheduler, virtual time).
'use strict';

(function (global) {
  const isDOMException = (v) => Object.prototype.toString.call(v) === '[object DOMException]';

  // A script value as a log writes it (DOMExceptions by name; undefined stays undefined).
  function toLogValue(v) {
    if (isDOMException(v)) return {DOMException: v.name};
    return v;
  }

  // A trace value as script sees it ({"DOMException": name} becomes one, of the agent's realm).
  function fromTraceValue(g, v) {
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 &&
        typeof v.DOMException === 'string')
      return new g.DOMException('', v.DOMException);
    return v;
  }

  const awaits = (body) => (body || []).some((a) => a.op === 'await' || a.op === 'yield');

  class Replay {
    constructor(trace, frames) {
      this.trace = trace;
      this.frames = frames;  // agent id -> iframe
      // Each agent's window, kept after its iframe goes: script that still holds an unloaded
      // document's navigator.locks gets InvalidStateError from it.
      this.windows = {};
      for (const [agent, frame] of Object.entries(frames)) this.windows[agent] = frame.contentWindow;
      this.events = {};      // agent id -> events
      for (const agent of trace.agents) this.events[agent.id] = [];
      this.promises = new Map();
      this.resolvers = new Map();  // newPromise ids and pending callback results
      this.controllers = new Map();
      this.activity = 0;
    }

    global(agent) { return this.windows[agent]; }

    log(agent, event) {
      ++this.activity;
      this.events[agent].push(event);
    }

    // The reaction attached when the promise is made (the log's `settled` event).
    observe(agent, id, promise) {
      this.promises.set(id, promise);
      promise.then(
          (v) => {
            const e = {event: 'settled', target: id, state: 'fulfilled'};
            if (v !== undefined) e.value = toLogValue(v);
            this.log(agent, e);
          },
          (r) => {
            const e = {event: 'settled', target: id, state: 'rejected'};
            if (r !== undefined) e.reason = toLogValue(r);
            this.log(agent, e);
          });
    }

    // A callback of the trace as a function: logs, runs its body, returns its result.
    callbackFor(agent, owner, callback, onInvoke) {
      callback = callback || {};
      const g = this.global(agent);
      const result = callback.result || {return: undefined};
      const finish = () => {
        if ('throw' in result) throw fromTraceValue(g, result.throw);
        if (result.pending) {
          return new g.Promise((resolve, reject) => this.resolvers.set(owner, {resolve, reject}));
        }
        return fromTraceValue(g, result.return);
      };
      if (awaits(callback.body)) {
        return async (...args) => {
          onInvoke(...args);
          await this.runAsync(agent, callback.body);
          return finish();
        };
      }
      return (...args) => {
        onInvoke(...args);
        this.runSync(agent, callback.body || []);
        return finish();
      };
    }

    runSync(agent, body) {
      for (const a of body) this.perform(agent, a);
    }

    async runAsync(agent, body) {
      for (const a of body || []) {
        if (a.op === 'await') {
          await this.promises.get(a.target);
        } else {
          this.perform(agent, a);
        }
      }
    }

    // One action of `agent`, synchronously (an `await` only happens in runAsync).
    perform(agent, a) {
      ++this.activity;
      const g = this.global(agent);
      switch (a.op) {
        case 'request': {
          const cb = this.callbackFor(agent, a.id, a.callback, (lock) => this.log(agent, {
            event: 'callback',
            request: a.id,
            lock: lock ? {name: lock.name, mode: lock.mode} : null,
          }));
          let p;
          if (a.options) {
            const options = {};
            for (const key of ['mode', 'ifAvailable', 'steal'])
              if (key in a.options) options[key] = a.options[key];
            if (a.options.signal) options.signal = this.controllers.get(a.options.signal).signal;
            p = g.navigator.locks.request(a.name, options, cb);
          } else {
            p = g.navigator.locks.request(a.name, cb);
          }
          this.observe(agent, a.id, p);
          return;
        }
        case 'query':
          this.observe(agent, a.id, g.navigator.locks.query());
          return;
        case 'newAbortController':
          this.controllers.set(a.id, new g.AbortController());
          return;
        case 'abort': {
          const controller = this.controllers.get(a.signal);
          if ('reason' in a)
            controller.abort(fromTraceValue(g, a.reason));
          else
            controller.abort();
          return;
        }
        case 'newPromise':
          this.promises.set(a.id, new g.Promise((resolve, reject) => {
            this.resolvers.set(a.id, {resolve, reject});
          }));
          return;
        case 'settle': {
          const r = this.resolvers.get(a.target);
          const value = fromTraceValue(g, a.value);
          if (a.outcome === 'reject')
            r.reject(value);
          else
            r.resolve(value);
          return;
        }
        case 'then':
          this.promises.get(a.target).then(() => this.runAsync(agent, a.body));
          return;
        case 'queueMicrotask':
          g.queueMicrotask(() => this.runAsync(agent, a.body));
          return;
        case 'run':
          g.setTimeout(() => this.runAsync(agent, a.body), 0);
          return;
        case 'mark':
          this.log(agent, {event: 'mark', label: a.label});
          return;
        case 'unload':
        case 'terminate':
          this.frames[agent].remove();
          return;
        default:
          throw new Error(`lockstep driver: op ${a.op} is not supported here`);
      }
    }

    // Quiescence: waits until nothing has happened for `quietMs` and a few task turns (the lock
    // task queue runs in parallel, often in another process, so task turns alone say little).
    // Bounded by `limitMs`; never a fixed sleep.
    async settle(quietMs = 60, limitMs = 3000) {
      const start = performance.now();
      let last = performance.now(), seen = this.activity, turns = 0;
      while (performance.now() - start < limitMs) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.activity !== seen) {
          seen = this.activity;
          last = performance.now();
          turns = 0;
        } else if (++turns >= 3 && performance.now() - last >= quietMs) {
          return;
        }
      }
    }

    async run() {
      for (const step of this.trace.steps) {
        const agent = step.agent;
        // A top-level step runs as a task of its agent (a `run` step: its body as an async
        // function in that task).
        // The page's own timer: an unloaded agent's window runs no timers.
        await new Promise((resolve) => setTimeout(() => {
          if (step.op === 'run')
            this.runAsync(agent, step.body);
          else
            this.perform(agent, step);
          resolve();
        }, 0));
        if (step.settle !== false) await this.settle();
      }
      await this.settle();
      return this.events;
    }
  }

  // One same-origin iframe per agent, in trace order. No `src`: the initial about:blank document
  // is ready at once, and a navigation would replace the window the driver holds.
  async function makeFrames(trace, doc) {
    const frames = {};
    for (const agent of trace.agents) {
      const frame = doc.createElement('iframe');
      frame.title = agent.id;
      doc.body.appendChild(frame);
      frames[agent.id] = frame;
    }
    return frames;
  }

  // An event as the tests compare it: no step numbers (a page has no steps to count); a query
  // snapshot's held locks as a sorted list and its pending requests grouped by name in queue
  // order, without clientIds (the page cannot learn which id a browser gave which iframe).
  function comparable(event, queries) {
    const e = Object.assign({}, event);
    delete e.step;
    delete e.agent;
    if (e.event === 'settled' && queries.has(e.target) && e.value && e.value.held) {
      const entry = (l) => `${l.name} ${l.mode}`;
      const held = e.value.held.map(entry).sort();
      const byName = {};
      for (const l of e.value.pending) (byName[l.name] = byName[l.name] || []).push(l.mode);
      const pending = Object.keys(byName).sort().map((n) => `${n}: ${byName[n].join(' ')}`);
      e.value = {held, pending};
    }
    return canonical(e);
  }

  // JSON with every object's keys sorted, so that equal events give equal strings.
  function canonical(v) {
    if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
    if (v && typeof v === 'object')
      return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
    return JSON.stringify(v);
  }

  // A lockstep-log's events, per agent of the trace.
  function byAgent(trace, events) {
    const out = {};
    for (const agent of trace.agents) out[agent.id] = [];
    for (const e of events) out[e.agent].push(e);
    return out;
  }

  function queryIds(trace) {
    const ids = new Set();
    const walk = (actions) => {
      for (const a of actions || []) {
        if (a.op === 'query') ids.add(a.id);
        walk(a.body);
        if (a.callback) walk(a.callback.body);
      }
    };
    walk(trace.steps);
    return ids;
  }

  // Per agent, the events as comparable strings.
  function comparableLog(trace, eventsByAgent) {
    const queries = queryIds(trace);
    const out = {};
    for (const [agent, events] of Object.entries(eventsByAgent))
      out[agent] = events.map((e) => comparable(e, queries));
    return out;
  }

  async function replay(trace, doc) {
    const frames = await makeFrames(trace, doc || global.document);
    return comparableLog(trace, await new Replay(trace, frames).run());
  }

  global.lockstep = {replay, comparableLog, byAgent};
})(globalThis);
