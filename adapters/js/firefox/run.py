#!/usr/bin/env python3
"""lockstep's Firefox adapter: replays a trace in headless Firefox ESR (Debian `firefox-esr`) with
its real navigator.locks and scheduler, through adapters/js/browser/runner.html, and writes the
observed log.

  python3 adapters/js/firefox/run.py TRACE LOG [--browser /usr/bin/firefox-esr]   (or LOCKSTEP_FIREFOX)

Exit codes and the loopback server: adapters/js/browser/launch.py. Each run gets a fresh profile
with the prefs of adapters/js/browser/offline.py, which keep Firefox on the loopback server.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "browser"))
import launch  # noqa: E402
import offline  # noqa: E402


def command(browser, url, profile):
    with open(os.path.join(profile, "user.js"), "w") as out:
        out.write(offline.firefox_user_js())
    return [browser, "--headless", "--no-remote", "--profile", profile, url]


sys.exit(launch.main("firefox", "LOCKSTEP_FIREFOX", "firefox-esr", command,
                     env=dict(os.environ, **offline.FIREFOX_ENV)))
