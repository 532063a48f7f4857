#!/usr/bin/env python3
"""lockstep's Chromium adapter: replays a trace in headless Chromium (Debian `chromium`) with its
real navigator.locks, through adapters/js/browser/runner.html, and writes the observed log.

  python3 adapters/js/chromium/run.py TRACE LOG [--browser /usr/bin/chromium]

Exit 0 when the log was written; 4 when the trace needs what the runner cannot express (printed
as "cannot express: ..."); 1 when the replay failed or timed out. A loopback server serves
adapters/js on 127.0.0.1 (the trace's first origin) and on localhost (its second), hands the page
the trace, and receives the log the page posts back.
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("log")
    parser.add_argument("--browser", default=os.environ.get("LOCKSTEP_CHROMIUM") or
                        shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    trace = open(args.trace, "rb").read()
    result = {}
    done = threading.Event()

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
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="lockstep-chromium-")
    url = (f"http://127.0.0.1:{port}/browser/runner.html?trace=/trace"
           f"&secondOrigin=http://localhost:{port}")
    browser = subprocess.Popen(
        [args.browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        finished = done.wait(args.timeout)
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    if not finished:
        print(f"the page posted no result within {args.timeout:.0f} s", file=sys.stderr)
        return 1
    if "cannot" in result:
        print(f"cannot express: {result['cannot']}", file=sys.stderr)
        return 4
    if "error" in result:
        print(result["error"], file=sys.stderr)
        return 1
    lines = [json.dumps(e, separators=(",", ":")) for e in result["log"]["events"]]
    with open(args.log, "w") as out:
        out.write('{"format": "lockstep-log", "version": 1, "events": [\n' +
                  ",\n".join("  " + l for l in lines) + "\n]}\n")
    return 0


sys.exit(main())
