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
a line on stdout, {"exit": CODE, "message": TEXT}, with the exit codes above. Each trace's pages
come from a server of their own on a new port, so each trace has origins (and lock managers and
localStorage) that no earlier trace used; a driver page (browser/driver.html) opens the trace's
runner in a frame and removes the frame, ending its agents, once the log is in.
"""
import argparse
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
    browser_command = lambda url, profile: command(args.browser, url, profile)  # noqa: E731
    if args.serve:
        return serve_traces(name, browser_command, args.timeout, env, page, args.restart_every)
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


class Driver:
    """--serve's side of browser/driver.html: hands the page one runner URL at a time (GET /next,
    which waits for one) and tells it when that trace's log is in (GET /finished, which waits
    for it), so that the page can remove the trace's frame. A page of an earlier browser (its
    `generation` in its URL) is told to stop, so that it never takes a later trace's URL."""

    def __init__(self):
        self.browser = None  # the one its page runs in, stopped by stop_browser()
        self.used = 0  # traces handed to that browser
        self.lock = threading.Condition()
        self.generation = 0
        self.job = None  # (id, url) not yet taken
        self.finished = set()
        driver = self

        class Handler(QuietHandler):
            def do_GET(self):
                path, _, query = self.path.partition("?")
                params = urllib.parse.parse_qs(query)
                generation = int(params.get("generation", ["-1"])[0])
                if path == "/browser/driver.html":
                    with open(os.path.join(JS, "browser", "driver.html"), "rb") as f:
                        return self.send(200, f.read(), "text/html")
                if path == "/next":
                    job = driver.take(generation)
                    if job is None:
                        return self.send(410, b"a later browser took over")
                    return self.send(200, json.dumps({"id": job[0], "url": job[1]}).encode(),
                                     "application/json")
                if path == "/finished":
                    driver.wait_finished(int(params.get("id", ["-1"])[0]), generation)
                    return self.send(200, b"ok")
                return self.send(404, b"not found")

        self.server = Server(("::", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop_browser(self):
        if self.browser:
            self.browser.stop()
            self.browser = None

    def ensure_browser(self, name, command, env, restart_every):
        """A live browser on this driver's page for the next trace: a fresh one when there is
        none, when it has died, or after `restart_every` traces."""
        if self.browser and (self.browser.process.poll() is not None or
                             self.used >= restart_every):
            self.stop_browser()
        if not self.browser:
            self.new_generation()
            self.browser = Browser(name, command, self.url(), env)
            self.used = 0
        self.used += 1

    def url(self):
        return (f"http://127.0.0.1:{self.server.server_address[1]}/browser/driver.html"
                f"?generation={self.generation}")

    def new_generation(self):
        with self.lock:
            self.generation += 1
            self.job = None
            self.lock.notify_all()

    def hand(self, job_id, url):
        with self.lock:
            self.job = (job_id, url)
            self.lock.notify_all()

    def take(self, generation):
        with self.lock:
            while generation == self.generation and self.job is None:
                self.lock.wait()
            if generation != self.generation:
                return None
            job, self.job = self.job, None
            return job

    def finish(self, job_id):
        with self.lock:
            self.job = None  # a job nobody took (the browser died) is not handed later
            self.finished.add(job_id)
            self.lock.notify_all()

    def wait_finished(self, job_id, generation):
        with self.lock:
            while job_id not in self.finished and generation == self.generation:
                self.lock.wait()
            self.finished.discard(job_id)


def serve_traces(name, command, timeout, env, page, restart_every):
    """--serve: answers each request line of stdin with a line on stdout until stdin ends. A trace
    that times out, or whose browser has died, gets a fresh browser, as does every
    `restart_every`-th trace. A trace with more partitions than one also has a browser per other
    partition (each with a driver page of its own, started when a trace first needs it and kept
    for the next ones), in which its partition pages open as its runner does in the first."""
    drivers = []  # drivers[k]: the browser of a trace's partition k (0: its runner's)
    # Ended by a signal (a campaign stopped by hand), the browsers go too, not orphaned.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        return serve_requests(name, command, timeout, env, page, restart_every, drivers)
    finally:
        for driver in drivers:
            driver.stop_browser()
            driver.server.shutdown()


def serve_requests(name, command, timeout, env, page, restart_every, drivers):
    """serve_traces' loop: one answer per request line until stdin ends."""
    for job_id in itertools.count():
        line = sys.stdin.readline()
        if not line:
            break
        try:
            request = json.loads(line)
            trace_path, log_path = request["trace"], request["log"]
        except (ValueError, KeyError, TypeError):
            answer = (2, f"not a request: {line.strip()[:200]}: "
                         'expected {"trace": PATH, "log": PATH}')
        else:
            trace, failed = read_trace(trace_path)
            answer = failed or serve_one(trace, log_path, job_id, name, command, timeout, env,
                                         page, restart_every, drivers)
        sys.stdout.write(json.dumps({"exit": answer[0], "message": answer[1]}) + "\n")
        sys.stdout.flush()
    return 0


def serve_one(trace, log_path, job_id, name, command, timeout, env, page, restart_every,
              drivers):
    """One trace of --serve: its runner page in drivers[0]'s browser, the page of its k-th
    other partition in drivers[k]'s. Returns the exit code and message."""
    result = {}
    done = threading.Event()
    server = serve(trace, result, done)
    port = server.server_address[1]
    urls = [runner_url(port, page)] + [partition_url(port, p, page)
                                       for p in partitions_of(trace)[1:]]
    while len(drivers) < len(urls):
        drivers.append(Driver())
    for driver, url in zip(drivers, urls):
        driver.ensure_browser(name, command, env, restart_every)
        driver.hand(job_id, url)
    finished = done.wait(timeout)
    for driver in drivers[:len(urls)]:
        driver.finish(job_id)
    server.shutdown()
    if not finished:  # a browser may be stuck: the next trace gets new ones
        for driver in drivers[:len(urls)]:
            driver.stop_browser()
    return outcome(result, finished, timeout, log_path)
