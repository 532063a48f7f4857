#!/usr/bin/env python3
"""lockstep's Firefox adapter: replays a trace in headless Firefox ESR (Debian `firefox-esr`) with
its real navigator.locks, through adapters/js/browser/runner.html, and writes the observed log.

  python3 adapters/js/firefox/run.py TRACE LOG [--browser /usr/bin/firefox-esr]

Exit codes and the loopback server: adapters/js/browser/launch.py. Each run gets a fresh profile
with the prefs of adapters/js/browser/offline.py, which keep Firefox on the loopback server.
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
    parser.add_argument("--browser", default=os.environ.get("LOCKSTEP_FIREFOX") or
                        shutil.which("firefox-esr") or "/usr/bin/firefox-esr")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()

    def command(url, profile):
        with open(os.path.join(profile, "user.js"), "w") as out:
            out.write(offline.firefox_user_js())
        return [args.browser, "--headless", "--no-remote", "--profile", profile, url]

    env = dict(os.environ, **offline.FIREFOX_ENV)
    return launch.run(args.trace, args.log, "firefox", command, args.timeout, env=env)


sys.exit(main())
