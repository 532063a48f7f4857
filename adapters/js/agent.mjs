// One agent of a lockstep trace, replayed with the real APIs of the global it runs in (a Node.js
// worker thread, a Deno or browser dedicated worker): performs the trace's actions
// (traces/README.md) and reports what its script observes, in the lockstep-log event shapes.
// Host glue (how steps arrive and events leave) is in each runner; this file knows none.
//
// Ops here: request, query, newAbortController, abort, newPromise, settle, then, queueMicrotask,
// run, await, mark, the timers (TIMER_OPS: setTimeout, timeoutSignal, on the runner's plan of the
// virtual clock, clock.mjs), and where the global has the scheduler (SCHEDULING_OPS,
// schedulingOps()): postTask (its `delay` a timer too), yield, newTaskController, setPriority,
// taskSignalAny, onPriorityChange, requestIdleCallback. Everything else is refused before a run
// starts (cannotExpress in the runner).
import { AgentClock } from './clock.mjs';

const isDOMException = (v) => Object.prototype.toString.call(v) === '[object DOMException]' ||
  (typeof DOMException !== 'undefined' && v instanceof DOMException);

// A script value as a log writes it: DOMExceptions by name; another error as {"Error": name},
// which no spec outcome matches; undefined stays undefined.
export function toLogValue(v) {
  if (isDOMException(v)) return { DOMException: v.name };
  if (v instanceof Error) return { Error: v.name };
  if (Array.isArray(v)) return v.map(toLogValue);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = toLogValue(x);
    return out;
  }
  return v;
}

// A trace value as script sees it: {"DOMException": name} becomes one.
function fromTraceValue(v) {
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 &&
      typeof v.DOMException === 'string')
    return new DOMException('', v.DOMException);
  return v;
}

const awaits = (body) => (body || []).some((a) => a.op === 'await' || a.op === 'yield');

// The ops of the virtual clock (advanceTime is the runner's: Clock in clock.mjs). A runner that
// lists them lists the feature "timers" too, which postTask's delay needs.
export const TIMER_OPS = ['setTimeout', 'timeoutSignal', 'advanceTime'];

// The scheduler's ops, and those of them this global has.
export const SCHEDULING_OPS = ['postTask', 'yield', 'newTaskController', 'setPriority',
  'taskSignalAny', 'onPriorityChange', 'requestIdleCallback'];
export function schedulingOps(global = globalThis) {
  const has = {
    postTask: typeof global.scheduler?.postTask === 'function',
    yield: typeof global.scheduler?.yield === 'function',
    newTaskController: typeof global.TaskController === 'function',
    setPriority: typeof global.TaskController?.prototype?.setPriority === 'function',
    taskSignalAny: typeof global.TaskSignal?.any === 'function',
    onPriorityChange: typeof global.TaskController === 'function',
    requestIdleCallback: typeof global.requestIdleCallback === 'function',
  };
  return SCHEDULING_OPS.filter((op) => has[op]);
}

// A lock query snapshot as plain data (some engines return objects of their own classes).
function plainSnapshot(s) {
  const entry = (l) => ({ name: l.name, mode: l.mode, clientId: l.clientId });
  return { held: (s.held || []).map(entry), pending: (s.pending || []).map(entry) };
}

// What an agent holds by trace id.
export function newStore() {
  return {
    promises: new Map(),     // request, query and newPromise ids
    resolvers: new Map(),    // newPromise ids and pending callback results
    controllers: new Map(),  // AbortController and TaskController ids
    signals: new Map(),      // their signals, and TaskSignal.any's results
  };
}

export class Agent {
  // emit(event): called with each event (no `step`, no `agent`: the runner adds them).
  // taskStarted(): called where a task of the agent's own begins (a postTask or idle callback
  // invoked, a yield resumed), which proves the step's own task over: a user-blocking task or a
  // continuation may run ahead of the message and timer that mark that end (serveAgent).
  // locksAreTasks: what the lock task queue delivers (a lock's callback, a query's snapshot) also
  // comes in a task of its own (a browser's navigator.locks, not a polyfill, which may deliver it
  // from the requesting task).
  // store: what the agent holds by trace id (newStore()); windows of one origin whose runner lets
  // their frames reach each other share one (the browser runner's agent-frame.html), so a window
  // may use what another made. A peer's promise awaited here still gets a reaction of this
  // agent's realm, as the trace means (docs/interpretations.md I-28), and a peer's objects stay
  // reachable after it has ended.
  // fail(message): what the host does with an error of the run's own (a timer the plan could not
  // place or that ran late: AgentClock), which fails the run.
  constructor(emit, taskStarted = () => {}, locksAreTasks = false, store = newStore(),
    fail = (message) => { throw new Error(message); }) {
    this.emit = emit;
    this.taskStarted = taskStarted;
    this.lockTaskStarted = locksAreTasks ? taskStarted : () => {};
    this.clock = new AgentClock(fail);
    Object.assign(this, store);
  }

  // A top-level step: the message that carries it is the task it runs in, a top-level `run`'s
  // body included (the model runs it as the step's own task; in a task of its own it would log
  // after the next step had begun whenever the step does not settle). `clock`: the runner's
  // timer plan, which steps carry from the trace's first timer on (Clock.message).
  step(action, clock) {
    this.clock.receive(clock);
    if (action.op === 'run') this.runAsync(action.body);
    else this.perform(action);
  }

  // The reaction attached when the promise is made (the log's `settled` event).
  observe(id, promise, isQuery, onFulfilled = () => {}) {
    this.promises.set(id, promise);
    promise.then(
      (v) => {
        onFulfilled();
        const e = { event: 'settled', target: id, state: 'fulfilled' };
        if (v !== undefined) e.value = isQuery ? plainSnapshot(v) : toLogValue(v);
        this.emit(e);
      },
      (r) => {
        const e = { event: 'settled', target: id, state: 'rejected' };
        if (r !== undefined) e.reason = toLogValue(r);
        this.emit(e);
      });
  }

  // A callback of the trace as a function: logs, runs its body, returns its result.
  callbackFor(owner, callback, onInvoke) {
    callback = callback || {};
    const result = callback.result || { return: undefined };
    const finish = () => {
      if ('throw' in result) throw fromTraceValue(result.throw);
      if (result.pending)
        return new Promise((resolve, reject) => this.resolvers.set(owner, { resolve, reject }));
      return fromTraceValue(result.return);
    };
    // A body that awaits makes the callback an async function: its awaits resume in that
    // function's own frame, as the trace's `async () => body` does (runAsync with `finish` as its
    // end); awaiting a second async function that ran the body put every resumption of the
    // callback's promise a microtask later.
    if (awaits(callback.body)) {
      return (...args) => {
        onInvoke(...args);
        return this.runAsync(callback.body, finish);
      };
    }
    return (...args) => {
      onInvoke(...args);
      for (const a of callback.body || []) this.perform(a);
      return finish();
    };
  }

  // `body` as an async function's: its awaits and yields, and the rest performed in turn; then
  // what `end`, if given, returns or throws is the function's result.
  async runAsync(body, end) {
    for (const a of body || []) {
      if (a.op === 'await') {
        await this.promises.get(a.target);
      } else if (a.op === 'yield') {
        const p = scheduler.yield();
        // Before the await's own reaction, as the log expects. A yield fulfils in the task of
        // its continuation (an abort rejects it in whatever task aborts, maybe the step's own).
        this.observe(a.id, p, false, this.taskStarted);
        await p;
      } else {
        this.perform(a);
      }
    }
    return end ? end() : undefined;
  }

  // A controller or signal that action `a` makes, or null when making it throws: Chromium takes
  // the interface objects away from the realm of a removed frame whose script still runs. The
  // log says so (`threw`), for check to judge, and the actions that would use the object do
  // nothing, there being none.
  construct(a, make) {
    try {
      return make();
    } catch (e) {
      this.emit({ event: 'threw', op: a.op, error: toLogValue(e) });
      return null;
    }
  }

  perform(a) {
    switch (a.op) {
      case 'request': {
        const cb = this.callbackFor(a.id, a.callback, (lock) => {
          this.lockTaskStarted();
          this.emit({
            event: 'callback', request: a.id,
            lock: lock ? { name: lock.name, mode: lock.mode } : null,
          });
        });
        let p;
        try {
          if (a.options) {
            const options = {};
            for (const key of ['mode', 'ifAvailable', 'steal'])
              if (key in a.options) options[key] = a.options[key];
            if (a.options.signal) options.signal = this.signals.get(a.options.signal);
            p = navigator.locks.request(a.name, options, cb);
          } else {
            p = navigator.locks.request(a.name, cb);
          }
        } catch (e) {
          // WebIDL rejects a promise-returning operation's errors; an engine that throws instead
          // is still observed, as a rejection, and check judges it.
          p = Promise.reject(e);
        }
        this.observe(a.id, p, false);
        return;
      }
      case 'query': {
        let p;
        try {
          p = navigator.locks.query();
        } catch (e) {
          p = Promise.reject(e);  // as for request: observed as a rejection, judged by check
        }
        // A browser resolves a query in a task that the lock task queue queues (snapshot the lock
        // state, step 6; I-6), never in the step's own, so its fulfilment proves that task over
        // as a lock's callback does (a rejection, such as an opaque origin's, is the step's own).
        this.observe(a.id, p, true, this.lockTaskStarted);
        return;
      }
      case 'newAbortController': {
        const controller = this.construct(a, () => new AbortController());
        if (!controller) return;
        this.controllers.set(a.id, controller);
        this.signals.set(a.id, controller.signal);
        return;
      }
      case 'abort': {
        const controller = this.controllers.get(a.signal);
        if (!controller) return;  // its constructor threw (construct)
        if ('reason' in a) controller.abort(fromTraceValue(a.reason));
        else controller.abort();
        return;
      }
      case 'newPromise':
        this.promises.set(a.id, new Promise((resolve, reject) => {
          this.resolvers.set(a.id, { resolve, reject });
        }));
        return;
      case 'settle': {
        const r = this.resolvers.get(a.target);
        // A callback's result before the callback ran (a target that has not granted the lock
        // yet): there is nothing to settle, and the log, which lacks the callback, says so.
        if (!r) return;
        const value = fromTraceValue(a.value);
        if (a.outcome === 'reject') r.reject(value);
        else r.resolve(value);
        return;
      }
      case 'then':
        this.promises.get(a.target).then(() => this.runAsync(a.body));
        return;
      case 'queueMicrotask':
        queueMicrotask(() => this.runAsync(a.body));
        return;
      case 'run':
        setTimeout(() => this.runAsync(a.body), 0);
        return;
      case 'mark':
        this.emit({ event: 'mark', label: a.label });
        return;
      case 'setTimeout': {
        // html#timer-initialisation-steps: the body runs as the timer's task, with no
        // scheduling state of the code that started it.
        const timer = this.clock.timer(a.ms || 0, `setTimeout ${a.id}`);
        setTimeout(() => {
          timer.ran();
          this.runAsync(a.body);
        }, timer.delay);
        return;
      }
      case 'timeoutSignal': {
        // dom#dom-abortsignal-timeout. The listener only checks when the abort came: the abort
        // algorithms (a request's, a task's) run before any listener.
        const timer = this.clock.timer(a.ms || 0, `AbortSignal.timeout ${a.id}`);
        const signal = this.construct(a, () => AbortSignal.timeout(timer.delay));
        if (!signal) return;
        signal.addEventListener('abort', () => timer.ran(), { once: true });
        this.signals.set(a.id, signal);
        return;
      }
      default:
        this.performScheduling(a);
    }
  }

  performScheduling(a) {
    switch (a.op) {
      case 'postTask': {
        const delay = a.options && a.options.delay;
        const timer = delay > 0 ? this.clock.timer(delay, `postTask ${a.id}'s delay`) : null;
        const cb = this.callbackFor(a.id, a.callback, () => {
          if (timer) timer.ran();
          this.taskStarted();
          this.emit({ event: 'task', task: a.id });
        });
        const options = {};
        if (a.options && a.options.priority) options.priority = a.options.priority;
        if (a.options && a.options.signal) options.signal = this.signals.get(a.options.signal);
        if (timer) options.delay = timer.delay;
        let p;
        try {
          p = scheduler.postTask(cb, options);
        } catch (e) {
          p = Promise.reject(e);  // as for request: observed as a rejection, judged by check
        }
        this.observe(a.id, p, false);
        return;
      }
      case 'newTaskController': {
        const controller = this.construct(a,
          () => new TaskController(a.priority ? { priority: a.priority } : {}));
        if (!controller) return;
        this.controllers.set(a.id, controller);
        this.signals.set(a.id, controller.signal);
        return;
      }
      case 'setPriority':
        if (!this.controllers.has(a.controller)) return;  // its constructor threw (construct)
        try {
          this.controllers.get(a.controller).setPriority(a.priority);
        } catch (e) {
          this.emit({ event: 'threw', op: 'setPriority', error: toLogValue(e) });
        }
        return;
      case 'taskSignalAny': {
        const init = {};
        if (typeof a.priority === 'string') init.priority = a.priority;
        else if (a.priority && a.priority.signal) init.priority = this.signals.get(a.priority.signal);
        const any = this.construct(a,
          () => TaskSignal.any(a.signals.map((id) => this.signals.get(id)), init));
        if (any) this.signals.set(a.id, any);
        return;
      }
      case 'onPriorityChange': {
        const signal = this.signals.get(a.signal);
        if (!signal) return;  // its constructor threw (construct)
        signal.addEventListener('prioritychange', (e) => {
          this.emit({ event: 'prioritychange', signal: a.signal,
            previousPriority: e.previousPriority, priority: signal.priority });
          this.runAsync(a.body);
        });
        return;
      }
      case 'requestIdleCallback': {
        const cb = this.callbackFor(a.id, a.callback, () => {
          this.taskStarted();
          this.emit({ event: 'idle', id: a.id });
        });
        requestIdleCallback(() => { cb(); });
        return;
      }
      default:
        throw new Error(`op ${a.op} is not supported by this adapter`);
    }
  }
}

// Queues `ended` to run at the end of the current task: a message and a timer, whichever runs
// first (serveAgent).
export function queueTaskEnd(ended) {
  const channel = new MessageChannel();
  channel.port1.onmessage = ended;
  channel.port2.postMessage(null);
  setTimeout(ended, 0);
}

// Removes the global's own navigator.locks (the accessor on Navigator.prototype or
// WorkerNavigator.prototype, wherever on the chain it is), so that a polyfill loaded next finds
// none and installs itself: a runner's --hide-locks.
export function hideNativeLocks(global = globalThis) {
  for (let o = global.navigator; o; o = Object.getPrototypeOf(o))
    if (Object.prototype.hasOwnProperty.call(o, 'locks')) delete o.locks;
}

// The ids of promises, controllers and signals that action `a` uses (not those it makes).
function usedObjects(a) {
  switch (a.op) {
    case 'settle': case 'await': case 'then': return [a.target];
    case 'abort': case 'onPriorityChange': return [a.signal];
    case 'setPriority': return [a.controller];
    case 'taskSignalAny':
      return [...(a.signals || []), ...(a.priority && a.priority.signal ? [a.priority.signal] : [])];
    default: return a.options && a.options.signal ? [a.options.signal] : [];
  }
}

// Why a trace cannot run on a target whose runner supports `ops` and `features`; null when it
// can. A reason is the same words for every trace it stops, the trace's own ids in parentheses
// after them, so that a campaign counts traces by reason (adapters/README.md). Features:
// "windows" (unload and shared event loops), "origins" (more than one), "partitions", "opaque",
// "timers" (postTask's delay; the other timers are TIMER_OPS), "peers" (a window may use the
// promises, controllers and signals of another window of its origin: Agent's shared `store`).
export function cannotExpress(trace, { ops, features }) {
  const agents = trace.agents || [];
  const byId = new Map(agents.map((a) => [a.id, a]));
  // Two windows of one origin (the trace reader lets only agents of one event loop share ids).
  const peers = (x, y) => {
    const [a, b] = [byId.get(x), byId.get(y)];
    return features.includes('peers') && Boolean(a && b) && a.kind === 'window' &&
      b.kind === 'window' && a.origin === b.origin && a.origin !== 'opaque';
  };
  const origin = (a) => a.origin;
  const partition = (a) => a.partition || 'default';
  if (trace.schedule && trace.schedule.length) return 'it pins a schedule';
  if (!features.includes('opaque') && agents.some((a) => a.origin === 'opaque'))
    return 'an agent has an opaque origin';
  if (!features.includes('origins') && new Set(agents.map(origin)).size > 1)
    return 'it uses more than one origin';
  if (!features.includes('partitions') && new Set(agents.map(partition)).size > 1)
    return 'it uses more than one partition';
  if (!features.includes('windows') && agents.some((a) => a.eventLoop && a.eventLoop !== a.id))
    return 'windows share an event loop';
  const creator = new Map();
  let reason = null;
  const walk = (actions, agent) => {
    for (const a of actions || []) {
      const who = a.agent || agent;
      if (!reason && !ops.includes(a.op)) reason = `op ${a.op} is not supported`;
      if (!reason && a.op === 'postTask' && a.options && a.options.delay &&
          !features.includes('timers'))
        reason = 'a postTask has a delay, which needs the virtual clock';
      if (a.id) creator.set(a.id, who);
      // A promise, a controller or a signal lives in its agent's realm (and in the agent's own
      // store here): another agent cannot settle, await, abort, reprioritize, combine, listen to
      // or pass it, unless the runner lets windows of one origin reach each other's.
      for (const target of usedObjects(a)) {
        if (!reason && creator.has(target) && creator.get(target) !== who &&
            !peers(who, creator.get(target)))
          reason = `an agent uses another agent's object (agent ${who} uses ${target}, which ` +
            `agent ${creator.get(target)} made)`;
      }
      if (a.callback) walk(a.callback.body, who);
      walk(a.body, who);
    }
  };
  walk(trace.steps, undefined);
  return reason;
}

// The browser agents' side of runner.html's protocol (a window's frame, a dedicated worker; Deno's
// workers too): `post` sends to the runner, `listen` receives from it. Events that a step's own
// task logs carry the step; the runner stamps the others with the step it is settling.
// `locksAreTasks`: the browser's own navigator.locks is in use; `store`: what the agent holds by
// trace id (both: Agent's constructor).
export function serveAgent(id, post, listen, { locksAreTasks = false, store = newStore() } = {}) {
  let own = null;
  const agent = new Agent((event) => post({ lockstep: 'event', agent: id, own, event }),
    () => { own = null; }, locksAreTasks, store,
    (message) => post({ lockstep: 'error', agent: id, message }));
  // `queueEnd`: where the end of the step's own task is queued, by default in this realm; a step
  // called into a removed frame (host.mjs) runs in the caller's task, which queues its end.
  listen((data, queueEnd = queueTaskEnd) => {
    if (!data || data.lockstep !== 'perform') return;
    own = data.step;
    // The step's own task ends after its microtask checkpoint. What marks that end is queued
    // before the step runs, so that it comes ahead of any task the step itself queues: a postTask
    // callback or a polyfill's setTimeout(0) queued by the step may run before a message posted
    // after the step, and its events would be taken for the step's own. (Posting the end after
    // the step did that in Chromium and Firefox, and was the whole of what docs/conformance.md
    // once listed as queued-task-runs-before-the-next-step.)
    queueEnd(() => { own = null; });
    try {
      agent.step(data.action, data.clock);
    } catch (e) {
      post({ lockstep: 'error', agent: id, message: String(e && e.stack || e) });
    }
    post({ lockstep: 'performed', agent: id, step: data.step });  // settle.mjs, Acks (browsers)
  });
  post({ lockstep: 'ready', agent: id });
}
