#!/usr/bin/env python3
"""lockstep's Chromium adapter: replays a trace in headless Chromium (Debian `chromium`) with its
real navigator.locks, through adapters/js/browser/runner.html, and writes the observed log.

  python3 adapters/js/chromium/run.py TRACE LOG [--browser /usr/bin/chromium]

Exit codes and the loopback server: adapters/js/browser/launch.py.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "browser"))
import launch  # noqa: E402
import offline  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("log")
    parser.add_argument("--browser", default=os.environ.get("LOCKSTEP_CHROMIUM") or
                        shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()

    def command(url, profile):
        return [args.browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                *offline.CHROMIUM_FLAGS, f"--user-data-dir={profile}", url]

    return launch.run(args.trace, args.log, "chromium", command, args.timeout)


sys.exit(main())
