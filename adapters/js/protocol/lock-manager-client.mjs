// navigator.locks over the lock-manager protocol (adapters/protocol/README.md), for the Node
// runner's --lock-manager PROGRAM: the script-facing steps of Web Locks here, in JavaScript, and
// the lock task queue's in PROGRAM, any language, which is what the run judges.
//
// The runner's main thread starts PROGRAM once and relays: each agent's worker thread sends its
// calls through a MessagePort of its own, the main thread writes them to PROGRAM's stdin as JSON
// lines, and sends each line PROGRAM writes back to the agent it names. In each worker,
// LockManager.request() and query() follow web-locks#dom-lockmanager-request and
// #dom-lockmanager-query; what the lock task queue decides (grants, "not available", steals, a
// release's end, snapshots) arrives as messages, each a task of the agent's event loop, as the
// spec queues them.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isMainThread, MessageChannel, parentPort } from 'node:worker_threads';

const PORT_MESSAGE = 'lockstep-lock-manager';
// The count of messages an agent has sent, for agent-worker.mjs's acknowledgement of a step; a
// symbol, so script never meets it.
export const SENT = Symbol.for('lockstep.lock-manager.sent');

// --- The main thread: PROGRAM and the relay -----------------------------------------------------

let child = null;
let sent = 0, synced = 0;   // sync messages written, and answered: PROGRAM is busy between
let relayed = 0;            // messages relayed either way (the runner's settling counts them)
const routes = new Map();   // a request or query id -> the port of the agent that made it
const received = new Map(); // agent id -> messages relayed from it so far
const waiters = [];         // delivered()'s: { agent, count, resolve }
let live = 0;               // workers attached and not yet exited

function fail(message) {
  console.error(`lock manager: ${message}`);
  process.exit(1);
}

function start() {
  const program = process.env.LOCKSTEP_LOCK_MANAGER;
  if (!program) fail('LOCKSTEP_LOCK_MANAGER names no program (run.mjs --lock-manager PROGRAM)');
  child = spawn(program, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.on('error', (e) => fail(`cannot start ${program}: ${e.message}`));
  child.on('exit', (code, signal) => {
    if (live > 0 || code !== 0) fail(`${program} ended (${signal || `exit ${code}`}) while agents ran`);
  });
  createInterface({ input: child.stdout }).on('line', receive);
}

function write(message) {
  ++relayed;
  child.stdin.write(JSON.stringify(message) + '\n');
}

// After what an agent sent: PROGRAM is busy until it answers this sync.
function writeWithSync(message) {
  write(message);
  write({ type: 'sync', sync: ++sent });
}

function receive(line) {
  ++relayed;
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    fail(`not a JSON line: ${line.slice(0, 200)}`);
  }
  if (m.type === 'error') fail(`${process.env.LOCKSTEP_LOCK_MANAGER} said: ${m.message}`);
  if (m.type === 'synced') {
    synced = Math.max(synced, m.sync);
    return;
  }
  const port = routes.get(m.request ?? m.query);
  if (!port) fail(`a message for no request or query of an agent: ${line.slice(0, 200)}`);
  port.postMessage(m);
}

let started = false;

// run.mjs calls this with each agent's Worker as it makes it, in the trace's order.
export function attachWorker(worker, agent) {
  if (!started) {
    start();
    started = true;
  }
  ++live;
  const { port1, port2 } = new MessageChannel();
  received.set(agent.id, 0);
  worker.postMessage({ type: PORT_MESSAGE, port: port2, agent }, [port2]);
  // One lock manager per storage key (web-locks#lock-manager): partition and origin.
  writeWithSync({ type: 'agent', agent: agent.id, clientId: agent.id,
    storageKey: `${agent.partition || 'default'} ${agent.origin}` });
  port1.on('message', (m) => {
    if (m.request !== undefined && m.type === 'request') routes.set(m.request, port1);
    if (m.query !== undefined) routes.set(m.query, port1);
    writeWithSync({ ...m, agent: agent.id });
    received.set(agent.id, received.get(agent.id) + 1);
    for (let i = waiters.length - 1; i >= 0; --i) {
      if (waiters[i].agent === agent.id && received.get(agent.id) >= waiters[i].count) {
        waiters[i].resolve();
        waiters.splice(i, 1);
      }
    }
  });
  // web-locks#terminate-remaining-locks-and-requests: the agent is gone.
  worker.once('exit', () => {
    port1.close();
    writeWithSync({ type: 'terminate', agent: agent.id });
    if (--live === 0) child.stdin.end();
  });
}

// Resolves once the first `count` messages of the agent have been written to PROGRAM: a step
// that does not settle is followed by the next only then, so that PROGRAM hears the steps' calls
// in the trace's order (run.mjs; the worker's step acknowledgement says how many it sent).
export function delivered(agentId, count) {
  if ((received.get(agentId) ?? 0) >= count) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ agent: agentId, count, resolve }));
}

// For the runner's settling: messages relayed so far, and whether PROGRAM has yet to answer.
export function activity() {
  return relayed;
}
export function busy() {
  return synced < sent;
}

// --- A worker: navigator.locks -----------------------------------------------------------------

class Lock {
  #name;
  #mode;
  constructor(name, mode) {
    this.#name = name;
    this.#mode = mode;
  }
  get name() { return this.#name; }
  get mode() { return this.#mode; }
}

const notSupported = () => new DOMException('Not supported', 'NotSupportedError');
const MODES = ['exclusive', 'shared'];

class LockManager {
  #port = null;
  #agent = null;
  #waiting = [];          // messages made before the port came
  #requests = new Map();  // id -> what a message about it needs
  #queries = new Map();   // id -> the query's promise's resolve
  #next = 0;

  connect(port, agent) {
    this.#port = port;
    this.#agent = agent;
    port.on('message', (m) => this.#receive(m));
    for (const m of this.#waiting) port.postMessage(m);
    this.#waiting = [];
  }

  #sent = 0;

  #send(m) {
    ++this.#sent;
    if (this.#port) this.#port.postMessage(m);
    else this.#waiting.push(m);
  }

  // How many messages this agent has sent: the runner waits until the relay has them all.
  get [SENT]() {
    return this.#sent;
  }

  // web-locks#obtain-a-lock-manager fails for an opaque origin.
  #opaque() {
    return this.#agent && this.#agent.origin === 'opaque';
  }

  request(name, optionsOrCallback, maybeCallback) {
    // The two overloads: request(name, callback) and request(name, options, callback).
    const callback = arguments.length < 3 ? optionsOrCallback : maybeCallback;
    const given = arguments.length < 3 ? {} : (optionsOrCallback ?? {});
    if (typeof callback !== 'function')
      return Promise.reject(new TypeError('request(): the callback is not a function'));
    name = String(name);
    const mode = given.mode === undefined ? 'exclusive' : String(given.mode);
    if (!MODES.includes(mode))
      return Promise.reject(new TypeError(`request(): mode "${mode}" is not a LockMode`));
    const ifAvailable = Boolean(given.ifAvailable), steal = Boolean(given.steal);
    const signal = given.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      return Promise.reject(new TypeError('request(): signal is not an AbortSignal'));
    // dom-lockmanager-request steps 4-9 (a worker has no document: step 3 holds).
    if (this.#opaque())
      return Promise.reject(new DOMException('Opaque origin', 'SecurityError'));
    if (name.startsWith('-')) return Promise.reject(notSupported());
    if (steal && ifAvailable) return Promise.reject(notSupported());
    if (steal && mode !== 'exclusive') return Promise.reject(notSupported());
    if (signal !== undefined && (steal || ifAvailable)) return Promise.reject(notSupported());
    if (signal !== undefined && signal.aborted) return Promise.reject(signal.reason);
    // Step 10 and web-locks#algorithm-request-lock.
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    const id = `${this.#agent ? this.#agent.id : '?'}/${++this.#next}`;
    const request = { name, mode, callback, resolve, reject, signal, abort: null, waiting: null };
    this.#requests.set(id, request);
    if (signal !== undefined) {
      // request-lock step 2: "signal to abort the request".
      request.abort = () => {
        this.#send({ type: 'abort', request: id });
        reject(signal.reason);
      };
      signal.addEventListener('abort', request.abort, { once: true });
    }
    this.#send({ type: 'request', request: id, name, mode, ifAvailable, steal });
    return promise;
  }

  query() {
    if (this.#opaque()) return Promise.reject(new DOMException('Opaque origin', 'SecurityError'));
    const id = `${this.#agent ? this.#agent.id : '?'}/q${++this.#next}`;
    return new Promise((resolve) => {
      this.#queries.set(id, resolve);
      this.#send({ type: 'query', query: id });
    });
  }

  // A task the lock task queue queued on this agent's event loop.
  #receive(m) {
    if (m.type === 'snapshot') {
      const resolve = this.#queries.get(m.query);
      this.#queries.delete(m.query);
      resolve({ held: m.held, pending: m.pending });
      return;
    }
    const request = this.#requests.get(m.request);
    if (!request) return;
    if (m.type === 'granted') this.#granted(m.request, request);
    else if (m.type === 'notAvailable') request.resolve(invoke(request.callback, null));
    else if (m.type === 'stolen') request.reject(new DOMException('Lock stolen', 'AbortError'));
    else if (m.type === 'released') request.resolve(request.waiting);
  }

  // web-locks#algorithm-process-request step 2.14's task.
  #granted(id, request) {
    if (request.signal !== undefined) {
      if (request.signal.aborted) {  // step 2.14.1.1: released at once, the callback never runs
        this.#send({ type: 'release', request: id });
        return;
      }
      request.signal.removeEventListener('abort', request.abort);
    }
    // Step 2.14.3: a new waiting promise resolved with the callback's result r, a promise, which
    // it adopts (the microtasks the spec counts).
    request.waiting = new Promise((resolve) => resolve(
      invoke(request.callback, new Lock(request.name, request.mode))));
    // "waiting promise settles": the lock task queue releases the lock, then ("released")
    // resolves the released promise with the waiting promise.
    const release = () => this.#send({ type: 'release', request: id });
    request.waiting.then(release, release);
  }
}

// Invoking a callback whose type returns a promise (webidl#invoke-a-callback-function): what it
// returns through PromiseResolve (a promise as it is, a value fulfilled), what it throws as a
// rejected promise.
function invoke(callback, argument) {
  try {
    return Promise.resolve(callback(argument));
  } catch (e) {
    return Promise.reject(e);
  }
}

if (!isMainThread) {
  const locks = new LockManager();
  Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
  parentPort.on('message', (m) => {
    if (m && m.type === PORT_MESSAGE) locks.connect(m.port, m.agent);
  });
}
