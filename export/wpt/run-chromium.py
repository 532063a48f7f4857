#!/usr/bin/env python3
"""Runs the pages of a `lockstep export --wpt` folder in headless Chromium, one browser per page.

The folder is served on 127.0.0.1 and localhost, the page's origin and get_host_info()'s remote one
(common/get-host-info.sub.js; the minimal harness under resources/ included); each page posts its
results to /lockstep-results when its tests are done. Prints one line per page and a summary,
writes RESULTS.json beside the pages, and exits 1 if a page failed or timed out, unless
known-divergences.json (beside this script) explains that page's failure in Chromium: those are
reported as KNOWN with the reason.

Usage: run-chromium.py FOLDER [--browser /usr/bin/chromium] [--timeout 30] [--only NAME...]
                        [--quiet MS]
"""
import argparse
import errno
import http.server
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters",
                                "js", "browser"))
import offline  # noqa: E402  (the browser stays on the loopback server)

results = queue.Queue()


class Server6(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True


def serve(handler):
    """Serves on 127.0.0.1 and, with the same port, on ::1 (localhost may resolve to either), and on
    no other interface. Returns the servers."""
    for _ in range(20):
        servers = [http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)]
        servers[0].daemon_threads = True
        try:
            servers.append(Server6(('::1', servers[0].server_address[1]), handler))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:  # that port is taken on ::1: another one
                servers[0].server_close()
                continue
            # no IPv6 loopback: localhost resolves to 127.0.0.1
        for server in servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return servers
    raise OSError('no port free on both 127.0.0.1 and ::1')


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        page = urllib.parse.unquote(self.path.partition('?page=')[2])
        results.put((page, body.decode('utf-8')))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('folder')
    parser.add_argument('--browser', default='/usr/bin/chromium')
    parser.add_argument('--timeout', type=float, default=30)
    parser.add_argument('--only', nargs='*')
    parser.add_argument('--quiet', type=int, help="ms of quiet that settling waits for (the driver's "
                        'default: 60)')
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    handler = lambda *a, **k: Handler(*a, directory=folder, **k)
    servers = serve(handler)
    port = servers[0].server_address[1]
    pages = sorted(p for p in os.listdir(folder) if p.endswith('.html'))
    if args.only:
        pages = [p for p in pages if p[:-5] in args.only]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'known-divergences.json')) as f:
        known = json.load(f)
    summary = {}
    failed = 0
    for page in pages:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
            browser = subprocess.Popen(
                [args.browser, '--headless', '--no-sandbox', '--disable-gpu',
                 '--no-first-run', *offline.CHROMIUM_FLAGS, f'--user-data-dir={profile}',
                 f'http://127.0.0.1:{port}/{page}' + (f'?quiet={args.quiet}' if args.quiet else '')],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            outcome = [{'name': page, 'status': 'TIMEOUT'}]
            deadline = time.monotonic() + args.timeout
            try:
                while True:  # a late post of an earlier page is dropped
                    posted, body = results.get(timeout=max(0.1, deadline - time.monotonic()))
                    if posted == page:
                        outcome = json.loads(body)
                        break
            except queue.Empty:
                pass
            finally:
                os.killpg(browser.pid, signal.SIGKILL)  # the browser and its helper processes
                browser.wait()
        status = 'PASS' if all(t['status'] == 'PASS' for t in outcome) else 'FAIL'
        reason = known['chromium'].get(page[:-5])
        if status == 'FAIL' and reason:
            status = 'KNOWN'
        failed += status == 'FAIL'
        summary[page] = {'status': status, 'tests': outcome}
        print(f'{status} {page}' + (f' ({reason}: see known-divergences.json)' if reason and status == 'KNOWN' else ''))
        for t in outcome:
            if t['status'] != 'PASS':
                print(f"    {t['status']}: {t.get('message', '')}")
    with open(os.path.join(folder, 'RESULTS.json'), 'w') as out:
        json.dump(summary, out, indent=1)
    passed = sum(1 for o in summary.values() if o['status'] == 'PASS')
    print(f'{passed} of {len(summary)} pages passed, {len(summary) - passed - failed} known '
          f'divergences, {failed} failed')
    for server in servers:
        server.shutdown()
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
