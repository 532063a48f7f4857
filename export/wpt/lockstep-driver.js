// lockstep's trace driver for web pages: replays a lockstep trace (traces/README.md) with the
// browser's real navigator.locks and scheduler and records what each agent's script observes, in
// the lockstep-log event shapes. `lockstep export --wpt` writes testharness.js tests that call it;
// it knows no test framework itself.
//
// Agents: a window of the page's origin is an iframe without src, driven directly (so script that
// still holds an unloaded document's navigator.locks can run); a window of the remote origin
// (get_host_info()) or an opaque one (a sandboxed iframe) is resources/lockstep-frame.html, and a
// worker is resources/lockstep-worker.js, both driven by messages (in resources/, so that WPT takes
// them for support files). Ops: request, query, newAbortController, abort, settle, newPromise,
// then, queueMicrotask, run, await, mark, unload, terminate, postTask (without delay), yield,
// newTaskController, setPriority, taskSignalAny, onPriorityChange and requestIdleCallback. The
// exporter leaves out traces that need anything else (partitions, virtual time).
'use strict';

(function (global) {
  const isDOMException = (v) => Object.prototype.toString.call(v) === '[object DOMException]';

  // A script value as a log writes it: DOMExceptions by name, other errors as {"Error": name}
  // (which no expected value has); undefined stays undefined.
  function toLogValue(v) {
    if (isDOMException(v)) return {DOMException: v.name};
    if (Object.prototype.toString.call(v) === '[object Error]') return {Error: v.name};
    if (Array.isArray(v)) return v.map(toLogValue);
    if (v && typeof v === 'object') {
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = toLogValue(x);
      return out;
    }
    return v;
  }

  // A trace value as script sees it ({"DOMException": name} becomes one, of the agent's realm).
  function fromTraceValue(g, v) {
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 &&
        typeof v.DOMException === 'string')
      return new g.DOMException('', v.DOMException);
    return v;
  }

  // A query snapshot as plain data.
  function plainSnapshot(s) {
    const entry = (l) => ({name: l.name, mode: l.mode, clientId: l.clientId});
    return {held: (s.held || []).map(entry), pending: (s.pending || []).map(entry)};
  }

  const awaits = (body) => (body || []).some((a) => a.op === 'await' || a.op === 'yield');

  // What script holds by trace id. The windows that the page drives directly share one: one
  // agent may settle or abort what another made, as script of one page can; so do the windows of
  // the remote origin, among themselves.
  function newStore() {
    return {
      promises: new Map(),     // request, query, postTask, yield and newPromise ids
      resolvers: new Map(),    // newPromise ids and pending callback results
      controllers: new Map(),  // AbortController and TaskController ids
      signals: new Map(),      // their signals, and TaskSignal.any's
    };
  }

  // One agent's script: performs actions with the APIs of global `g`, holding what it makes in
  // `store`, and passes each event it observes to `emit`.
  class Agent {
    constructor(g, emit, store) {
      this.g = g;
      this.emit = emit;
      Object.assign(this, store || newStore());
    }

    // A top-level step, in the task that delivers it (a `run` step: its body as an async
    // function in that task).
    step(a) {
      if (a.op === 'run')
        this.runAsync(a.body);
      else
        this.perform(a);
    }

    // The reaction attached when the promise is made (the log's `settled` event).
    observe(id, promise, isQuery) {
      this.promises.set(id, promise);
      promise.then(
          (v) => {
            const e = {event: 'settled', target: id, state: 'fulfilled'};
            if (v !== undefined) e.value = isQuery ? plainSnapshot(v) : toLogValue(v);
            this.emit(e);
          },
          (r) => {
            const e = {event: 'settled', target: id, state: 'rejected'};
            if (r !== undefined) e.reason = toLogValue(r);
            this.emit(e);
          });
    }

    // A callback of the trace as a function: logs, runs its body, returns its result.
    callbackFor(owner, callback, onInvoke) {
      callback = callback || {};
      const g = this.g;
      const result = callback.result || {return: undefined};
      const finish = () => {
        if ('throw' in result) throw fromTraceValue(g, result.throw);
        if (result.pending)
          return new g.Promise((resolve, reject) => this.resolvers.set(owner, {resolve, reject}));
        return fromTraceValue(g, result.return);
      };
      if (awaits(callback.body)) {
        return async (...args) => {
          onInvoke(...args);
          await this.runAsync(callback.body);
          return finish();
        };
      }
      return (...args) => {
        onInvoke(...args);
        for (const a of callback.body || []) this.perform(a);
        return finish();
      };
    }

    async runAsync(body) {
      for (const a of body || []) {
        if (a.op === 'await') {
          await this.promises.get(a.target);
        } else if (a.op === 'yield') {
          const p = this.g.scheduler.yield();
          this.observe(a.id, p, false);  // before the await's own reaction, as the log has it
          await p;
        } else {
          this.perform(a);
        }
      }
    }

    perform(a) {
      const g = this.g;
      switch (a.op) {
        case 'request': {
          const cb = this.callbackFor(a.id, a.callback, (lock) => this.emit({
            event: 'callback',
            request: a.id,
            lock: lock ? {name: lock.name, mode: lock.mode} : null,
          }));
          let p;
          if (a.options) {
            const options = {};
            for (const key of ['mode', 'ifAvailable', 'steal'])
              if (key in a.options) options[key] = a.options[key];
            if (a.options.signal) options.signal = this.signals.get(a.options.signal);
            p = g.navigator.locks.request(a.name, options, cb);
          } else {
            p = g.navigator.locks.request(a.name, cb);
          }
          this.observe(a.id, p, false);
          return;
        }
        case 'query':
          this.observe(a.id, g.navigator.locks.query(), true);
          return;
        case 'newAbortController': {
          const controller = new g.AbortController();
          this.controllers.set(a.id, controller);
          this.signals.set(a.id, controller.signal);
          return;
        }
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
          this.promises.get(a.target).then(() => this.runAsync(a.body));
          return;
        case 'queueMicrotask':
          g.queueMicrotask(() => this.runAsync(a.body));
          return;
        case 'run':
          g.setTimeout(() => this.runAsync(a.body), 0);
          return;
        case 'mark':
          this.emit({event: 'mark', label: a.label});
          return;
        default:
          this.performScheduling(a);
      }
    }

    performScheduling(a) {
      const g = this.g;
      switch (a.op) {
        case 'postTask': {
          const cb = this.callbackFor(a.id, a.callback, () => this.emit({event: 'task', task: a.id}));
          const options = {};
          if (a.options && a.options.priority) options.priority = a.options.priority;
          if (a.options && a.options.signal) options.signal = this.signals.get(a.options.signal);
          this.observe(a.id, g.scheduler.postTask(cb, options), false);
          return;
        }
        case 'newTaskController': {
          const controller = new g.TaskController(a.priority ? {priority: a.priority} : {});
          this.controllers.set(a.id, controller);
          this.signals.set(a.id, controller.signal);
          return;
        }
        case 'setPriority':
          try {
            this.controllers.get(a.controller).setPriority(a.priority);
          } catch (e) {
            this.emit({event: 'threw', op: 'setPriority', error: toLogValue(e)});
          }
          return;
        case 'taskSignalAny': {
          const init = {};
          if (typeof a.priority === 'string')
            init.priority = a.priority;
          else if (a.priority && a.priority.signal)
            init.priority = this.signals.get(a.priority.signal);
          const signals = a.signals.map((id) => this.signals.get(id));
          this.signals.set(a.id, g.TaskSignal.any(signals, init));
          return;
        }
        case 'onPriorityChange': {
          const signal = this.signals.get(a.signal);
          signal.addEventListener('prioritychange', (e) => {
            this.emit({
              event: 'prioritychange',
              signal: a.signal,
              previousPriority: e.previousPriority,
              priority: signal.priority,
            });
            this.runAsync(a.body);
          });
          return;
        }
        case 'requestIdleCallback': {
          const cb = this.callbackFor(a.id, a.callback, () => this.emit({event: 'idle', id: a.id}));
          g.requestIdleCallback(() => {
            cb();
          });
          return;
        }
        default:
          throw new Error(`lockstep driver: op ${a.op} is not supported here`);
      }
    }
  }

  // An agent driven by messages (resources/lockstep-worker.js and -frame.html): performs each step
  // that `listen` delivers and sends its events through `post`.
  // A messaged agent's side: `store` is what it holds by trace id, shared with the other windows
  // of its origin that the page messages (resources/lockstep-frame.html), or its own.
  function serve(id, post, listen, store) {
    const agent = new Agent(global, (event) => post({lockstep: 'event', agent: id, event}), store);
    listen((data) => {
      if (!data || data.lockstep !== 'perform') return;
      try {
        agent.step(data.action);
      } catch (e) {
        post({lockstep: 'error', agent: id, message: String(e && e.stack || e)});
      }
    });
    warmUp(global).then(() => post({lockstep: 'ready', agent: id}));
  }

  // A first query connects the agent to its lock manager, which can take longer than settling
  // waits for; a query changes no lock state, and its result (a SecurityError when opaque) is
  // not logged.
  function warmUp(g) {
    return g.navigator.locks.query().catch(() => {});
  }

  // The remote origin of a page with two: WPT's get_host_info() (common/get-host-info.sub.js;
  // outside WPT, the stand-in beside the pages).
  function remoteOrigin() {
    const info = global.get_host_info();
    return location.protocol === 'https:' ? info.HTTPS_REMOTE_ORIGIN : info.HTTP_REMOTE_ORIGIN;
  }

  // Runs `f` in a new task of the page; resolves after it. A message, not a timer: a timer set
  // from a timer is clamped to 4 ms after a few levels, which would leave time between a step
  // that does not settle and the next.
  function newTask(f) {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        f();
        resolve();
      };
      channel.port2.postMessage(null);
    });
  }

  class Replay {
    constructor(trace, doc) {
      this.trace = trace;
      this.doc = doc;
      this.events = {};  // agent id -> events
      for (const agent of trace.agents) this.events[agent.id] = [];
      this.agents = {};  // agent id -> {perform(step), end()}
      this.errors = [];
      this.activity = 0;
    }

    log(agent, event) {
      ++this.activity;
      this.events[agent].push(event);
    }

    fail(agent, message) {
      ++this.activity;
      this.errors.push(`agent ${agent}: ${message}`);
    }

    // The agents, in trace order; resolves when the messaged ones are ready.
    async start() {
      const own = this.trace.agents.find((a) => a.origin !== 'opaque');
      const store = newStore();  // the directly driven windows'
      const ready = [];
      const waiters = {};
      const receive = (data) => {
        if (!data || !data.lockstep || !(data.agent in this.events)) return;
        ++this.activity;
        if (data.lockstep === 'ready') waiters[data.agent]();
        if (data.lockstep === 'event') this.log(data.agent, data.event);
        if (data.lockstep === 'error') this.fail(data.agent, data.message);
      };
      global.addEventListener('message', (m) => receive(m.data));
      for (const a of this.trace.agents) {
        if (a.kind === 'worker' || a.origin !== own.origin) {
          ready.push(new Promise((resolve) => {
            waiters[a.id] = resolve;
          }));
        }
        if (a.kind === 'worker') {
          const worker = new Worker(`resources/lockstep-worker.js?agent=${encodeURIComponent(a.id)}`);
          worker.onmessage = (m) => receive(m.data);
          this.agents[a.id] = {
            perform: (step) => worker.postMessage({lockstep: 'perform', action: step}),
            end: () => worker.terminate(),
          };
          continue;
        }
        const frame = this.doc.createElement('iframe');
        frame.title = a.id;
        if (a.origin === own.origin) {
          // No src: the initial about:blank document is ready at once, and a navigation would
          // replace the window the agent holds. The window is kept after the iframe goes.
          this.doc.body.appendChild(frame);
          const agent = new Agent(frame.contentWindow, (event) => this.log(a.id, event), store);
          ready.push(warmUp(frame.contentWindow));
          this.agents[a.id] = {perform: (step) => agent.step(step), end: () => frame.remove()};
          continue;
        }
        const query = `resources/lockstep-frame.html?agent=${encodeURIComponent(a.id)}`;
        if (a.origin === 'opaque') {
          frame.sandbox = 'allow-scripts';
          frame.src = query;
        } else {
          frame.src = new URL(query, remoteOrigin() + location.pathname).href;
        }
        this.doc.body.appendChild(frame);
        this.agents[a.id] = {
          perform: (step) => frame.contentWindow.postMessage({lockstep: 'perform', action: step}, '*'),
          end: () => frame.remove(),
        };
      }
      await Promise.all(ready);
    }

    // Quiescence: waits until nothing has happened for `quietMs` and a few task turns (the lock
    // task queue runs in parallel, often in another process, so task turns alone say little).
    // Bounded by `limitMs`; never a fixed sleep. A slow machine may ask for more quiet with
    // `?quiet=MS` in the page's URL.
    async settle(quietMs = Number(new URLSearchParams(location.search).get('quiet')) || 60,
                 limitMs = 3000) {
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

    // Each top-level step in a task of the page (a messaged agent's own task is the message's),
    // then settling unless the step says not to.
    async run() {
      for (const step of this.trace.steps) {
        const agent = step.agent;
        await newTask(() => {
          ++this.activity;
          try {
            if (step.op === 'unload' || step.op === 'terminate')
              this.agents[agent].end();
            else
              this.agents[agent].perform(step);
          } catch (e) {
            this.fail(agent, String(e && e.stack || e));
          }
        });
        if (step.settle !== false) await this.settle();
      }
      await this.settle();
      if (this.errors.length) throw new Error(`the replay failed: ${this.errors.join('; ')}`);
      return this.events;
    }
  }

  // An event as the tests compare it: no step numbers (a page has no steps to count); a query
  // snapshot's held locks as a sorted list and its pending requests grouped by name in queue
  // order, without clientIds (the page cannot learn which id a browser gave which agent).
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

  // Of the allowed logs (lists of events), the first whose every agent's events are the observed
  // ones; if none is, the first (the model's canonical schedule), for the assertions to name what
  // differs.
  function closest(trace, allowed, observed) {
    const wants = allowed.map((events) => comparableLog(trace, byAgent(trace, events)));
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    return wants.find((w) => Object.keys(w).every((agent) => same(observed[agent], w[agent]))) ||
        wants[0];
  }

  async function replay(trace, doc) {
    const r = new Replay(trace, doc || global.document);
    await r.start();
    return comparableLog(trace, await r.run());
  }

  global.lockstep = {replay, comparableLog, byAgent, closest, serve, newStore};
})(globalThis);
