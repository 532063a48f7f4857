"""What the browser adapters share: a loopback server that serves adapters/js on 127.0.0.1 (the
trace's first origin) and on localhost (its second), hands the page the trace and receives the log
the page posts back; the browser's process (one more per further partition of the trace, each on
a fresh profile, whose page talks to the runner's through the server's relay); and the log file. Each browser's run.py says only how
to start that browser (adapters/js/chromium/run.py, adapters/js/firefox/run.py).

Exit codes of a run: 0 when the log was written; 4 when the trace needs what the runner cannot
express (printed as "cannot express: ..."); 1 when the replay failed or timed out; 2 when the
trace cannot be read or the log cannot be written (the message names the file).

With --serve, a runner replays many traces in one browser (adapters/README.md, "Serving many
traces"): each request is a line of JSON on stdin, {"trace": PATH, "log": PATH}, and each answer
a line on stdout, {"exit": CODE, "message": TEXT}, with the exit codes above. A request with an
"id" (an integer or a string), {"id": ID, "trace": PATH, "log": PATH}, may come before the ones
before it are answered: it is replayed beside them and answered {"id": ID, "exit": CODE,
"message": TEXT} when it is done, in any order. Each trace's pages come from a server of their
own on a new port, so each trace has origins (and lock managers and localStorage) that no other
trace uses; a driver page (browser/driver.html) opens the trace's runner in a frame and removes
the frame, ending its agents, once the log is in.
"""
import argparse
import functools
import http.server
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

JS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = {".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json"}
# The folder of a --preload module that lives outside adapters/js (a library under test in its
# own tree, adapters/templates/browser-library): served under /user/, so that its own relative
# imports resolve there too.
USER_PATH = "/user/"
user_dir = None


def served_file(path):
    """The file a page's GET of `path` reads: under adapters/js, or under the --preload module's
    folder for /user/...; None for anything outside both."""
    root, rest = (user_dir, path[len(USER_PATH):]) if user_dir and path.startswith(USER_PATH) \
        else (JS, path.lstrip("/"))
    file = os.path.normpath(os.path.join(root, rest))
    return file if file.startswith(root + os.sep) and os.path.isfile(file) else None


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        # Both 127.0.0.1 and localhost (which may resolve to ::1) reach this one server.
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()

    def handle_error(self, request, client_address):
        # A page that goes before its answer (a removed frame's waiting GET /relay, a browser
        # stopped mid-request) is no error of the run's; anything else is printed as before.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that logs nothing and answers with send()."""

    def log_message(self, *_):
        pass

    def send(self, code, body, kind="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Access-Control-Allow-Origin", "*")  # the opaque frame's imports
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class Relay:
    """The mailboxes through which the pages of a trace's browsers talk (browser/relay.mjs): the
    runner's, and one per other partition's page. POST /relay delivers a batch [{to, message}]
    in order; GET /relay?for=NAME answers with what waits for NAME, waiting up to WAIT_S for
    something to come."""

    WAIT_S = 10

    def __init__(self):
        self.lock = threading.Condition()
        self.boxes = {}

    def deliver(self, batch):
        with self.lock:
            for item in batch:
                self.boxes.setdefault(str(item["to"]), []).append(item["message"])
            self.lock.notify_all()

    def take(self, name):
        with self.lock:
            self.lock.wait_for(lambda: self.boxes.get(name), timeout=self.WAIT_S)
            return self.boxes.pop(name, [])


def partitions_of(trace):
    """The trace's partitions in the order its agents name them (runner.mjs hosts the first, a
    browser of its own each other one); [] for a trace that cannot be read, which the runner
    page then reports."""
    try:
        agents = json.loads(trace)["agents"]
        return list(dict.fromkeys(a.get("partition", "default") for a in agents))
    except (ValueError, KeyError, TypeError, AttributeError):
        return []


def serve(trace, result, done):
    """Starts the server in a thread; returns it."""
    relay = Relay()

    class Handler(QuietHandler):
        def do_GET(self):
            path, _, query = self.path.partition("?")
            if path == "/trace":
                return self.send(200, trace, "application/json")
            if path == "/relay":
                name = urllib.parse.parse_qs(query).get("for", [""])[0]
                return self.send(200, json.dumps(relay.take(name)).encode(), "application/json")
            file = served_file(path)
            if not file:
                return self.send(404, b"not found")
            self.send(200, open(file, "rb").read(),
                      TYPES.get(os.path.splitext(file)[1], "application/octet-stream"))

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/relay":
                try:
                    relay.deliver(json.loads(body))
                except (ValueError, KeyError, TypeError):
                    return self.send(400, b"not a batch of {to, message}")
                return self.send(200, b"ok")
            result.update(json.loads(body))
            self.send(200, b"ok")
            done.set()

    server = Server(("::", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def write_log(path, events):
    lines = [json.dumps(e, separators=(",", ":")) for e in events]
    with open(path, "w") as out:
        out.write('{"format": "lockstep-log", "version": 1, "events": [\n' +
                  ",\n".join("  " + line for line in lines) + "\n]}\n")


def main(name, browser_env, browser_name, command, env=None):
    """The command line every browser runner takes, TRACE LOG [--browser PATH] [--timeout S], or
    --serve instead of TRACE LOG: `command(browser, url, profile_dir)` is the browser's argv (see
    run), `browser_env` the variable that names the browser's binary, `browser_name` the one
    looked up on PATH."""
    parser = argparse.ArgumentParser()
    parser.add_argument("trace", nargs="?")
    parser.add_argument("log", nargs="?")
    parser.add_argument("--serve", action="store_true",
                        help="replay the traces named on stdin in one browser (see above)")
    parser.add_argument("--restart-every", type=int, default=200,
                        help="--serve: a fresh browser after this many traces")
    parser.add_argument("--max-in-flight", type=int, default=16,
                        help="--serve: at most this many traces (requests with ids) at once")
    parser.add_argument("--browser", default=os.environ.get(browser_env) or
                        shutil.which(browser_name) or os.path.join("/usr/bin", browser_name))
    parser.add_argument("--timeout", type=float, default=60)
    # A polyfill under test (runner.mjs): a module that every agent loads first,
    # the browser's own navigator.locks hidden before it, what the target leaves out refused.
    parser.add_argument("--preload", help="a module loaded first by each agent (its folder is "
                        "served too, under /user/, when it is not under adapters/js)")
    parser.add_argument("--hide-locks", action="store_true",
                        help="remove the browser's navigator.locks in each agent first")
    parser.add_argument("--without", default="", help="refuse these: scheduler, workers")
    parser.add_argument("--quiet", type=int, help="settling: ms of quiet (default 60)")
    parser.add_argument("--first-call-quiet", type=int,
                        help="settling after an agent's first lock call: ms of quiet (default 250)")
    args = parser.parse_args()
    if args.serve == bool(args.trace or args.log) or (not args.serve and not args.log):
        parser.error("give TRACE LOG, or --serve alone")
    if args.max_in_flight < 1:
        parser.error("--max-in-flight must be at least 1")
    if not (os.path.isfile(args.browser) and os.access(args.browser, os.X_OK)):
        print(f"{args.browser}: no such browser (scripts/install-deps.sh --for-tests installs it; "
              f"--browser or {browser_env} names another)", file=sys.stderr)
        return 1
    page = {}
    if args.preload:
        file = os.path.abspath(args.preload)
        if not os.path.isfile(file):
            print(f"{args.preload}: no such module to preload", file=sys.stderr)
            return 2
        if file.startswith(JS + os.sep):
            page["preload"] = "/" + os.path.relpath(file, JS).replace(os.sep, "/")
        else:
            global user_dir
            user_dir = os.path.dirname(file)
            page["preload"] = USER_PATH + os.path.basename(file)
    if args.hide_locks:
        page["hideLocks"] = "1"
    if args.without:
        page["without"] = args.without
    if args.quiet:
        page["quiet"] = str(args.quiet)
    if args.first_call_quiet:
        page["firstCallQuiet"] = str(args.first_call_quiet)
    # lockstep's re-run of a failure before it keeps it (adapters/README.md, "Flaky failures").
    if os.environ.get("LOCKSTEP_SETTLE_SCALE"):
        page["settleScale"] = os.environ["LOCKSTEP_SETTLE_SCALE"]
        try:  # the page's budgets that many times longer: its time too
            args.timeout *= max(1.0, float(os.environ["LOCKSTEP_SETTLE_SCALE"]))
        except ValueError:
            pass
    browser_command = lambda url, profile: command(args.browser, url, profile)  # noqa: E731
    if args.serve:
        return serve_traces(name, browser_command, args.timeout, env, page, args.restart_every,
                            args.max_in_flight)
    code, message = run(args.trace, args.log, name, browser_command, args.timeout, env, page)
    if message:
        print(message, file=sys.stderr)
    return code


def runner_url(port, page):
    url = (f"http://127.0.0.1:{port}/browser/runner.html?trace=/trace"
           f"&secondOrigin=http://localhost:{port}")
    return url + "".join(f"&{k}={urllib.parse.quote(v)}" for k, v in (page or {}).items())


def partition_url(port, partition, page):
    """The page of another partition's browser (browser/partition.mjs)."""
    url = (f"http://127.0.0.1:{port}/browser/partition.html?trace=/trace"
           f"&partition={urllib.parse.quote(partition)}&secondOrigin=http://localhost:{port}")
    return url + "".join(f"&{k}={urllib.parse.quote(v)}" for k, v in (page or {}).items()
                         if k in ("preload", "hideLocks"))


def read_trace(trace_path):
    """The trace's bytes, or (None, the exit code and message for a trace that cannot be read)."""
    try:
        with open(trace_path, "rb") as f:
            return f.read(), None
    except OSError as e:
        return None, (2, f"{trace_path}: cannot read the trace: {e.strerror}")


def outcome(result, finished, timeout, log_path):
    """The exit code and message of a replay: what the page posted (`result`), if it did."""
    if not finished:
        return 1, f"the page posted no result within {timeout:.0f} s"
    if "cannot" in result:
        return 4, f"cannot express: {result['cannot']}"
    if "error" in result:
        return 1, result["error"]
    try:
        write_log(log_path, result["log"]["events"])
    except OSError as e:
        return 2, f"{log_path}: cannot write the log: {e.strerror}"
    return 0, ""


class Browser:
    """A browser process on a fresh profile folder, ended with stop()."""

    def __init__(self, name, command, url, env):
        self.profile = tempfile.mkdtemp(prefix=f"lockstep-{name}-")
        self.process = subprocess.Popen(command(url, self.profile), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env)

    def stop(self):
        end_process(self.process)
        shutil.rmtree(self.profile, ignore_errors=True)


def end_process(process):
    """Ends a process this adapter started: SIGTERM, then SIGKILL if it is still there 10 s later."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run(trace_path, log_path, name, command, timeout, env=None, page=None):
    """Replays the trace in a browser: `command(url, profile_dir)` is its argv, with a fresh
    profile folder it may fill first; `env` its environment (default: this one); `page` more
    parameters for runner.html. Returns the exit code and a message (empty when it logged)."""
    trace, failed = read_trace(trace_path)
    if failed:
        return failed
    result = {}
    done = threading.Event()
    server = serve(trace, result, done)
    port = server.server_address[1]
    # One browser per partition, each on a fresh profile: another user agent (TRACE_FORMAT.md),
    # so lock managers and storage of its own.
    browsers = [Browser(name, command, runner_url(port, page), env)]
    try:
        for partition in partitions_of(trace)[1:]:
            browsers.append(Browser(name, command, partition_url(port, partition, page), env))
        finished = done.wait(timeout)
    finally:
        for browser in browsers:
            browser.stop()
        server.shutdown()
    return outcome(result, finished, timeout, log_path)


POLL_S = 0.5  # how often a trace in flight looks whether its browsers have died


class Driver:
    """--serve's side of browser/driver.html for one partition's browser: a queue of actions for
    the page, {"open": ID, "url": URL} (a trace's frame) and {"close": ID} (its log is in), which
    the page takes in batches with one long-poll (GET /actions, waiting up to WAIT_S for one):
    browsers open about six connections to a host and port, so one poll per trace would stall.
    A page of an earlier browser (its `generation` in its URL) is answered 410 and stops, so it
    never opens a later trace's frame.

    Many traces are in flight on the browser at once. One that needs replacing (a trace timed out
    on it, it died, or it has had `restart_every` traces) takes no more: a trace that comes waits
    until those in flight on it are done, when it is stopped, and then starts a fresh one."""

    WAIT_S = 10

    def __init__(self, name, command, env, restart_every):
        self.name, self.command, self.env = name, command, env
        self.restart_every = restart_every
        self.lock = threading.Condition()
        self.generation = 0
        self.actions = []
        self.browser = None  # the one its page runs in
        self.used = 0  # traces handed to that browser
        self.worn = False  # it takes no more traces
        self.in_flight = set()  # ids of the traces on it
        self.live = set()  # every browser started and not yet stopped, for stop_all()
        self.closed = False
        driver = self

        class Handler(QuietHandler):
            def do_GET(self):
                path, _, query = self.path.partition("?")
                params = urllib.parse.parse_qs(query)
                if path == "/browser/driver.html":
                    with open(os.path.join(JS, "browser", "driver.html"), "rb") as f:
                        return self.send(200, f.read(), "text/html")
                if path == "/actions":
                    actions = driver.take(int(params.get("generation", ["-1"])[0]))
                    if actions is None:
                        return self.send(410, b"a later browser took over")
                    return self.send(200, json.dumps(actions).encode(), "application/json")
                return self.send(404, b"not found")

        self.server = Server(("::", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return (f"http://127.0.0.1:{self.server.server_address[1]}/browser/driver.html"
                f"?generation={self.generation}")

    def died(self):
        """The exit code of the browser if it has died, else None."""
        return self.browser.process.poll() if self.browser else None

    def retiring(self):
        return self.browser is not None and (self.worn or self.died() is not None)

    def acquire(self, job_id):
        """A place for the trace on a live browser, waiting while a retiring one finishes its
        traces. Returns a browser the caller stops (one that died while idle), or None."""
        with self.lock:
            while self.retiring() and self.in_flight:
                self.lock.wait(POLL_S)  # a browser that dies is seen by polling
            old = self.detach() if self.retiring() else None
            if not self.browser:
                self.start()
            self.in_flight.add(job_id)
            self.used += 1
            self.worn |= self.used >= self.restart_every
            return old

    def start(self):
        if self.closed:
            raise RuntimeError("the server is ending")
        self.generation += 1
        self.actions = []
        self.browser = Browser(self.name, self.command, self.url(), self.env)
        self.live.add(self.browser)
        self.used, self.worn = 0, False

    def detach(self):
        """Takes the browser off this driver (its page is told to stop); returns it."""
        browser, self.browser = self.browser, None
        self.generation += 1
        self.actions = []
        self.lock.notify_all()
        return browser

    def hand(self, job_id, url):
        with self.lock:
            self.actions.append({"open": job_id, "url": url})
            self.lock.notify_all()

    def release(self, job_id, fresh_browser):
        """The trace is done: its frame goes. `fresh_browser`: the browser takes no more traces.
        Returns the browser for the caller to stop when this was its last trace, or None."""
        with self.lock:
            self.in_flight.discard(job_id)
            kept = [a for a in self.actions if a.get("open") != job_id]
            if len(kept) == len(self.actions):  # its frame was opened: close it
                kept.append({"close": job_id})
            self.actions = kept
            self.worn |= fresh_browser
            self.lock.notify_all()
            return self.detach() if self.retiring() and not self.in_flight else None

    def take(self, generation):
        """The page's batch of actions, [] after WAIT_S without any; None for an earlier page."""
        with self.lock:
            self.lock.wait_for(lambda: generation != self.generation or self.actions,
                               timeout=self.WAIT_S)
            if generation != self.generation:
                return None
            actions, self.actions = self.actions, []
            return actions

    def stop(self, browser):
        if browser:
            browser.stop()
            with self.lock:
                self.live.discard(browser)

    def stop_all(self):
        with self.lock:
            self.closed = True
            browsers = list(self.live)
        for browser in browsers:
            self.stop(browser)
        self.server.shutdown()


class Drivers:
    """drivers[k]: the browser of a trace's partition k (0: its runner's), made when a trace
    first needs it and kept for the next ones."""

    def __init__(self, name, command, env, restart_every):
        self.made = lambda: Driver(name, command, env, restart_every)
        self.lock = threading.Lock()
        self.drivers = []

    def first(self, count):
        with self.lock:
            while len(self.drivers) < count:
                self.drivers.append(self.made())
            return self.drivers[:count]

    def stop_all(self):
        with self.lock:
            drivers = list(self.drivers)
        for driver in drivers:
            driver.stop_all()


class Answers:
    """stdout: one line per answer, whole, whichever thread writes it."""

    def __init__(self):
        self.lock = threading.Lock()

    def write(self, request_id, code, message):
        answer = {} if request_id is None else {"id": request_id}
        answer.update({"exit": code, "message": message})
        with self.lock:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


class InFlight:
    """The traces replayed at once, in threads of their own, at most `limit`."""

    def __init__(self, limit):
        self.limit = limit
        self.count = 0
        self.lock = threading.Condition()

    def start(self, work):
        with self.lock:
            self.lock.wait_for(lambda: self.count < self.limit)
            self.count += 1
        threading.Thread(target=self.run, args=(work,), daemon=True).start()

    def run(self, work):
        try:
            work()
        finally:
            with self.lock:
                self.count -= 1
                self.lock.notify_all()

    def wait_idle(self):
        with self.lock:
            self.lock.wait_for(lambda: self.count == 0)


def serve_traces(name, command, timeout, env, page, restart_every, max_in_flight=16):
    """--serve: answers each request line of stdin with a line on stdout until stdin ends, then
    answers the traces still in flight. A request with an "id" is replayed beside the others
    (at most `max_in_flight` at once) and answered, with its id, when it is done; one without is
    replayed once everything before it is answered, and answered before the next line is read.
    A trace with more partitions than one also has a browser per other partition (Drivers)."""
    drivers = Drivers(name, command, env, restart_every)
    # Ended by a signal (a campaign stopped by hand), the browsers go too, not orphaned.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        return serve_requests(drivers, timeout, page, max_in_flight)
    finally:
        drivers.stop_all()


def serve_requests(drivers, timeout, page, max_in_flight):
    """serve_traces' loop: one answer per request line."""
    answers, flights = Answers(), InFlight(max_in_flight)
    for job_id in itertools.count():
        line = sys.stdin.readline()
        if not line:
            break
        request_id, request, bad = parse_request(line)
        if request_id is None:  # in order: after everything before it is answered
            flights.wait_idle()
        work = functools.partial(serve_request, request, job_id, request_id, drivers, timeout,
                                 page, answers)
        if bad:
            answers.write(request_id, 2, bad)
        elif request_id is None:
            work()
        else:
            flights.start(work)
    flights.wait_idle()
    return 0


def parse_request(line):
    """(id or None, request, None), or (id or None, None, why the line is no request)."""
    expected = 'expected {"trace": PATH, "log": PATH} and an optional "id"'
    try:
        request = json.loads(line)
    except ValueError:
        request = None
    if not isinstance(request, dict):
        return None, None, f"not a request: {line.strip()[:200]}: {expected}"
    request_id = request.get("id")
    if "id" in request and (not isinstance(request_id, (int, str)) or
                            isinstance(request_id, bool)):
        return request_id, None, f"the id is neither an integer nor a string: {expected}"
    if not all(isinstance(request.get(k), str) for k in ("trace", "log")):
        return request_id, None, f"not a request: {line.strip()[:200]}: {expected}"
    return request_id, request, None


def serve_request(request, job_id, request_id, drivers, timeout, page, answers):
    """Replays one request's trace and writes its answer; then stops the browsers that it was
    the last trace of (after the answer: their stopping delays no one)."""
    stale = []
    # A re-run that settles longer (adapters/README.md, "Serving many traces"): every quiet, limit
    # and timer budget of the page, and the time it has, that many times longer.
    scale = request.get("settleScale")
    if isinstance(scale, (int, float)) and not isinstance(scale, bool) and scale > 0:
        page, timeout = dict(page, settleScale=str(scale)), timeout * max(1, scale)
    try:
        trace, failed = read_trace(request["trace"])
        code, message = failed or serve_one(trace, request["log"], job_id, drivers, timeout,
                                            page, stale)
    except Exception as e:  # an answer all the same: the client waits for one per request
        code, message = 1, f"the server failed: {e!r}"
    answers.write(request_id, code, message)
    for driver, browser in stale:
        driver.stop(browser)


def serve_one(trace, log_path, job_id, drivers, timeout, page, stale):
    """One trace of --serve: its runner page in drivers[0]'s browser, the page of its k-th other
    partition in drivers[k]'s. Returns the exit code and message; adds to `stale` the
    (driver, browser) pairs to stop."""
    result = {}
    done = threading.Event()
    server = serve(trace, result, done)
    port = server.server_address[1]
    urls = [runner_url(port, page)] + [partition_url(port, p, page)
                                       for p in partitions_of(trace)[1:]]
    held, failure = [], None
    try:
        # In partition order on every trace, so that no two traces wait for each other.
        for driver in drivers.first(len(urls)):
            stale.append((driver, driver.acquire(job_id)))
            held.append(driver)
        for driver, url in zip(held, urls):
            driver.hand(job_id, url)
        failure = wait_for_result(done, held, timeout)
    finally:
        # After a timeout any of its browsers may be stuck: they take no more traces. (One that
        # died is replaced anyway; the others are well.)
        stuck = failure is not None and all(d.died() is None for d in held)
        for driver in held:
            stale.append((driver, driver.release(job_id, fresh_browser=stuck)))
        server.shutdown()
        server.server_close()
    return failure or outcome(result, True, timeout, log_path)


def wait_for_result(done, drivers, timeout):
    """None once the page has posted its result; else the exit code and message of a trace
    whose browser died (seen within POLL_S) or that timed out."""
    deadline = time.monotonic() + timeout
    while not done.wait(min(POLL_S, max(0, deadline - time.monotonic()))):
        for k, driver in enumerate(drivers):
            code = driver.died()
            if code is not None:
                where = f" of the trace's partition {k + 1}" if k else ""
                return 1, f"the browser{where} died (exit {code}) before the page posted a result"
        if time.monotonic() >= deadline:
            return outcome({}, False, timeout, None)
    return None
