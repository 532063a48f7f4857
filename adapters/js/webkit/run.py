#!/usr/bin/env python3
"""lockstep's WebKit adapter: replays a trace in WebKitGTK's MiniBrowser (Debian
`libwebkit2gtk-4.1-0`) on a virtual X display (Debian `xvfb`), with WebKit's own navigator.locks,
through adapters/js/browser/runner.html, and writes the observed log.

  python3 adapters/js/webkit/run.py TRACE LOG [--browser PATH]   (or LOCKSTEP_WEBKIT)

Exit codes and the loopback server: adapters/js/browser/launch.py; staying off the network:
adapters/js/browser/offline.py. WebKit has no scheduler, so the runner refuses the traces that
use it ("cannot express"); each browser runs in private browsing mode, whose website data lives
in memory and goes with the process (a fresh profile, as the other browsers get).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "browser"))
import launch  # noqa: E402
import offline  # noqa: E402
import xdisplay  # noqa: E402

MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"


def command(browser, url, _profile):
    # Timers of a page in the background are not slowed (the agents' frames, the other
    # partitions' windows), as Chromium's --disable-background-timer-throttling.
    return [browser, "--private", "--features=-DOMTimersThrottling,-HiddenPageDOMTimerThrottling",
            *offline.WEBKIT_FLAGS, url]


with xdisplay.VirtualDisplay() as display:
    sys.exit(launch.main("webkit", "LOCKSTEP_WEBKIT", MINIBROWSER, command,
                         env=dict(os.environ, DISPLAY=display.name)))
