#!/usr/bin/env python3
"""lockstep's Chromium adapter: replays a trace in headless Chromium (Debian `chromium`) with its
real navigator.locks and scheduler, through adapters/js/browser/runner.html, and writes the
observed log.

  python3 adapters/js/chromium/run.py TRACE LOG [--browser /usr/bin/chromium]   (or LOCKSTEP_CHROMIUM)

Exit codes and the loopback server: adapters/js/browser/launch.py; staying off the network:
adapters/js/browser/offline.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "browser"))
import launch  # noqa: E402
import offline  # noqa: E402


def command(browser, url, profile):
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            *offline.CHROMIUM_FLAGS, f"--user-data-dir={profile}", url]


sys.exit(launch.main("chromium", "LOCKSTEP_CHROMIUM", "chromium", command))
