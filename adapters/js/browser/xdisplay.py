"""A virtual X display for browsers that have no headless mode (WebKitGTK's MiniBrowser): an Xvfb
server (Debian `xvfb`) of this process's own, on a display number Xvfb picks (-displayfd), ended
with the process.

  with VirtualDisplay() as display:
      env = dict(os.environ, DISPLAY=display.name)
"""
import os
import shutil
import subprocess

from launch import end_process


class VirtualDisplay:
    def __init__(self, xvfb=None):
        self.xvfb = xvfb or shutil.which("Xvfb") or "/usr/bin/Xvfb"
        self.process = None
        self.name = None

    def __enter__(self):
        read, write = os.pipe()
        try:
            # -displayfd: Xvfb takes the first free display number and writes it to `write` once
            # it accepts connections, so nothing here guesses a number or polls for the socket.
            self.process = subprocess.Popen(
                [self.xvfb, "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                 "-nolisten", "tcp"],
                pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError as e:
            os.close(read)
            os.close(write)
            raise SystemExit(f"{self.xvfb}: cannot start the virtual display: {e.strerror}")
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.process.wait()
            raise SystemExit(f"{self.xvfb}: the virtual display did not start "
                             f"(exit {self.process.returncode})")
        self.name = f":{number}"
        return self

    def __exit__(self, *_):
        end_process(self.process)
