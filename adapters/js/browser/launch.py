"""What the browser adapters share: a loopback server that serves adapters/js on 127.0.0.1 (the
trace's first origin) and on localhost (its second), hands the page the trace and receives the log
the page posts back; the browser's process; and the log file. Each browser's run.py says only how
to start that browser (adapters/js/chromium/run.py, adapters/js/firefox/run.py).

Exit codes of a run: 0 when the log was written; 4 when the trace needs what the runner cannot
express (printed as "cannot express: ..."); 1 when the replay failed or timed out; 2 when the
trace cannot be read or the log cannot be written (the message names the file).
"""
import argparse
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.parse

JS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = {".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json"}


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        # Both 127.0.0.1 and localhost (which may resolve to ::1) reach this one server.
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def serve(trace, result, done):
    """Starts the server in a thread; returns it."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def send(self, code, body, kind="text/plain"):
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Access-Control-Allow-Origin", "*")  # the opaque frame's imports
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/trace":
                return self.send(200, trace, "application/json")
            file = os.path.normpath(os.path.join(JS, path.lstrip("/")))
            if not file.startswith(JS) or not os.path.isfile(file):
                return self.send(404, b"not found")
            self.send(200, open(file, "rb").read(),
                      TYPES.get(os.path.splitext(file)[1], "application/octet-stream"))

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
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
    """The command line every browser runner takes, TRACE LOG [--browser PATH] [--timeout S]:
    `command(browser, url, profile_dir)` is the browser's argv (see run), `browser_env` the
    variable that names the browser's binary, `browser_name` the one looked up on PATH."""
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("log")
    parser.add_argument("--browser", default=os.environ.get(browser_env) or
                        shutil.which(browser_name) or f"/usr/bin/{browser_name}")
    parser.add_argument("--timeout", type=float, default=60)
    # A polyfill under test (runner.mjs): a module under adapters/js that every agent loads first,
    # the browser's own navigator.locks hidden before it, what the target leaves out refused.
    parser.add_argument("--preload", help="a module under adapters/js, loaded first by each agent")
    parser.add_argument("--hide-locks", action="store_true",
                        help="remove the browser's navigator.locks in each agent first")
    parser.add_argument("--without", default="", help="refuse these: scheduler, workers")
    parser.add_argument("--quiet", type=int, help="settling: ms of quiet (default 60)")
    args = parser.parse_args()
    page = {}
    if args.preload:
        file = os.path.abspath(args.preload)
        if not file.startswith(JS + os.sep) or not os.path.isfile(file):
            print(f"{args.preload}: not a file under {JS}", file=sys.stderr)
            return 2
        page["preload"] = "/" + os.path.relpath(file, JS).replace(os.sep, "/")
    if args.hide_locks:
        page["hideLocks"] = "1"
    if args.without:
        page["without"] = args.without
    if args.quiet:
        page["quiet"] = str(args.quiet)
    return run(args.trace, args.log, name,
               lambda url, profile: command(args.browser, url, profile), args.timeout, env, page)


def run(trace_path, log_path, name, command, timeout, env=None, page=None):
    """Replays the trace in a browser: `command(url, profile_dir)` is its argv, with a fresh
    profile folder it may fill first; `env` its environment (default: this one); `page` more
    parameters for runner.html. Returns the exit code."""
    try:
        with open(trace_path, "rb") as f:
            trace = f.read()
    except OSError as e:
        print(f"{trace_path}: cannot read the trace: {e.strerror}", file=sys.stderr)
        return 2
    result = {}
    done = threading.Event()
    server = serve(trace, result, done)
    port = server.server_address[1]
    profile = tempfile.mkdtemp(prefix=f"lockstep-{name}-")
    url = (f"http://127.0.0.1:{port}/browser/runner.html?trace=/trace"
           f"&secondOrigin=http://localhost:{port}")
    url += "".join(f"&{k}={urllib.parse.quote(v)}" for k, v in (page or {}).items())
    browser = subprocess.Popen(command(url, profile), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env)
    try:
        finished = done.wait(timeout)
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    if not finished:
        print(f"the page posted no result within {timeout:.0f} s", file=sys.stderr)
        return 1
    if "cannot" in result:
        print(f"cannot express: {result['cannot']}", file=sys.stderr)
        return 4
    if "error" in result:
        print(result["error"], file=sys.stderr)
        return 1
    try:
        write_log(log_path, result["log"]["events"])
    except OSError as e:
        print(f"{log_path}: cannot write the log: {e.strerror}", file=sys.stderr)
        return 2
    return 0
