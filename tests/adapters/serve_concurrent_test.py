#!/usr/bin/env python3
"""The browser runners' --serve with many traces in flight (browser/launch.py, adapters/README.md
"Serving many traces"), on headless Chromium: requests with ids sent all at once are each
answered once, with their id, and logged (check allows each log, when BINARY is given), with the
exits the same traces get one at a time without ids; a request without an id still waits for
everything before it; a malformed line is answered exit 2, with its id if it has one; a browser
that dies fails its traces within seconds, not at the timeout; a server ended by SIGTERM leaves
no browser behind. And, without a browser, the driver's queue of actions and when it replaces a
browser (one that has had its traces, timed out or died finishes those in flight first).
Usage: serve_concurrent_test.py SOURCE_DIR [BINARY]"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

ROOT = os.path.abspath(sys.argv.pop(1))
BINARY = sys.argv.pop(1) if len(sys.argv) > 1 and os.path.isfile(sys.argv[1]) else None
RUN = os.path.join(ROOT, "adapters", "js", "chromium", "run.py")
sys.path.insert(0, os.path.join(ROOT, "adapters", "js", "browser"))
import launch  # noqa: E402
CORPUS = os.path.join(ROOT, "traces", "corpus", "web-locks")
# Allowed on Chromium (docs/campaigns/chromium/corpus.json); the example has two partitions.
NAMES = ["basic-exclusive", "fifo-per-name", "example-isolation-partitions-origins-opaque",
         "shared-together", "steal-shared", "callback-throw"]


def trace(name):
    return os.path.join(CORPUS, f"{name}.trace.json")


class Server:
    """run.py --serve as a client drives it."""

    def __init__(self, *options):
        self.process = subprocess.Popen([sys.executable, RUN, "--serve", *options],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def send(self, request):
        line = request if isinstance(request, str) else json.dumps(request)
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self):
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError("the server ended before answering")
        return json.loads(line)

    def end(self):
        """Closes stdin; the answers still to come, and the server's exit code."""
        self.process.stdin.close()
        rest = [json.loads(line) for line in self.process.stdout]
        self.process.stdout.close()
        return rest, self.process.wait(60)

    def browsers(self):
        """The pids of the browsers the server has started (its children on a profile)."""
        pids = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == self.process.pid and b"--user-data-dir=" in cmdline:
                pids.append(int(pid))
        return pids

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            pipe.close()


def check(test, name, log):
    """check must allow the log (when a lockstep binary was given)."""
    if not BINARY:
        return
    ran = subprocess.run([BINARY, "check", trace(name), log, "--partial"],
                         capture_output=True, text=True)
    test.assertEqual(ran.returncode, 0, f"{name}: {ran.stdout[-600:]}{ran.stderr[-600:]}")


class ManyInFlight(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="lockstep-serve-concurrent-")
        cls.at_once, cls.last = cls.all_at_once()
        cls.one_at_a_time = cls.without_ids()

    @classmethod
    def all_at_once(cls):
        """NAMES with ids, written together, then one request without an id: {id: answer},
        and the id-less request's answer with the ids answered before it."""
        server = Server()
        try:
            for name in NAMES:
                server.send({"id": name, "trace": trace(name),
                             "log": os.path.join(cls.out, f"{name}.ids.log")})
            server.send({"trace": trace(NAMES[0]), "log": os.path.join(cls.out, "last.log")})
            answers, code = server.end()
        finally:
            server.kill()
        assert code == 0, f"the server exited {code}"
        last = [i for i, a in enumerate(answers) if "id" not in a]
        assert len(last) == 1, answers
        return answers[:last[0]] + answers[last[0] + 1:], (answers[last[0]], answers[:last[0]])

    @classmethod
    def without_ids(cls):
        """NAMES one at a time without ids: {name: answer}."""
        server = Server()
        answers = {}
        try:
            for name in NAMES:
                log = os.path.join(cls.out, f"{name}.one.log")
                server.send({"trace": trace(name), "log": log})
                answers[name] = server.answer()
                answers[name]["logged"] = os.path.isfile(log)
            rest, code = server.end()
        finally:
            server.kill()
        assert (rest, code) == ([], 0), (rest, code)
        return answers

    def test_each_id_is_answered_once_and_its_log_is_allowed(self):
        self.assertEqual(sorted(a["id"] for a in self.at_once), sorted(NAMES))
        for answer in self.at_once:
            self.assertEqual(answer["exit"], 0, answer)
            check(self, answer["id"], os.path.join(self.out, f"{answer['id']}.ids.log"))

    def test_the_same_exits_as_one_at_a_time_without_ids(self):
        for answer in self.at_once:
            alone = self.one_at_a_time[answer["id"]]
            self.assertNotIn("id", alone)
            self.assertEqual(alone["exit"], answer["exit"], (alone, answer))
            self.assertTrue(alone["logged"], f"{answer['id']}: no log when answered")
            check(self, answer["id"], os.path.join(self.out, f"{answer['id']}.one.log"))

    def test_a_request_without_an_id_waits_for_all_before_it(self):
        answer, before = self.last
        self.assertEqual(answer, {"exit": 0, "message": ""})
        self.assertEqual(len(before), len(NAMES))
        check(self, NAMES[0], os.path.join(self.out, "last.log"))


class Malformed(unittest.TestCase):
    def test_answered_exit_2_with_the_id_it_has(self):
        server = Server()
        try:
            server.send({"id": 5, "trace": trace(NAMES[0])})  # no log
            server.send("not json")
            server.send({"id": "gone", "trace": "/nonexistent.trace.json", "log": "/tmp/x"})
            server.send({"id": [1], "trace": trace(NAMES[0]), "log": "/tmp/x"})
            answers, code = server.end()
        finally:
            server.kill()
        self.assertEqual(code, 0)
        # The id-less line waits for the one before it; those with ids come in any order.
        self.assertEqual([(a.get("id"), a["exit"]) for a in answers[:2]], [(5, 2), (None, 2)])
        self.assertIn("not a request: not json", answers[1]["message"])
        rest = {json.dumps(a["id"]): a for a in answers[2:]}
        self.assertEqual(sorted(rest), ['"gone"', "[1]"])
        self.assertEqual([a["exit"] for a in rest.values()], [2, 2])
        self.assertIn("cannot read the trace", rest['"gone"']["message"])
        self.assertIn("neither an integer nor a string", rest["[1]"]["message"])


class Browsers(unittest.TestCase):
    def setUp(self):
        # A long quiet after every step keeps the traces in flight for half a minute.
        self.server = Server("--quiet", "5000", "--first-call-quiet", "5000")

    def tearDown(self):
        if self.server.process.poll() is None:
            self.server.end()  # its browsers stopped as a client would have them
        self.server.kill()

    def started_browsers(self, count):
        for _ in range(100):
            pids = self.server.browsers()
            if len(pids) >= count:
                return pids
            time.sleep(0.1)
        self.fail(f"fewer than {count} browsers started")

    def test_a_browser_that_dies_fails_its_traces_within_seconds(self):
        for name in NAMES[:2]:
            self.server.send({"id": name, "trace": trace(name), "log": "/dev/null"})
        [browser] = self.started_browsers(1)
        time.sleep(2)  # the frames open
        os.kill(browser, signal.SIGKILL)
        killed = time.monotonic()
        answers = [self.server.answer(), self.server.answer()]
        self.assertLess(time.monotonic() - killed, 5)
        self.assertEqual(sorted(a["id"] for a in answers), sorted(NAMES[:2]))
        for answer in answers:
            self.assertEqual(answer["exit"], 1, answer)
            self.assertIn("died", answer["message"])

    def test_sigterm_leaves_no_browser_behind(self):
        name = "example-isolation-partitions-origins-opaque"  # a browser per partition
        self.server.send({"id": 1, "trace": trace(name), "log": "/dev/null"})
        pids = self.started_browsers(2)
        self.server.process.terminate()
        self.server.process.wait(30)
        time.sleep(0.5)
        self.assertEqual([p for p in pids if os.path.exists(f"/proc/{p}")], [])


class FakeBrowser:
    """launch.Browser without a process: alive until `code` is set."""

    def __init__(self, *_):
        self.code = None
        self.process = self
        self.stopped = False

    def poll(self):
        return self.code

    def stop(self):
        self.stopped = True


class DriverQueue(unittest.TestCase):
    def setUp(self):
        self.real_browser, launch.Browser = launch.Browser, FakeBrowser
        launch.Driver.WAIT_S = 0.3  # a poll with nothing to take answers [] this soon
        self.driver = launch.Driver("fake", None, None, restart_every=2)

    def tearDown(self):
        launch.Browser = self.real_browser
        self.driver.server.shutdown()
        self.driver.server.server_close()

    def actions(self, generation=None):
        generation = self.driver.generation if generation is None else generation
        url = (f"http://127.0.0.1:{self.driver.server.server_address[1]}/actions"
               f"?generation={generation}")
        try:
            with urllib.request.urlopen(url) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code

    def acquiring(self, job_id):
        """acquire(job_id) in a thread, which is still waiting 0.3 s later."""
        thread = threading.Thread(target=self.driver.acquire, args=(job_id,))
        thread.start()
        thread.join(0.3)
        self.assertTrue(thread.is_alive(), "it did not wait")
        return thread

    def test_the_page_takes_its_actions_in_one_batch(self):
        self.driver.acquire(1)
        self.driver.acquire(2)
        self.driver.hand(1, "u1")
        self.driver.hand(2, "u2")
        self.assertEqual(self.actions(), [{"open": 1, "url": "u1"}, {"open": 2, "url": "u2"}])
        self.driver.release(1, fresh_browser=False)
        self.assertEqual(self.actions(), [{"close": 1}])
        self.assertEqual(self.actions(), [])  # after WAIT_S

    def test_a_frame_never_opened_is_not_closed(self):
        self.driver.acquire(1)
        self.driver.hand(1, "u1")
        self.driver.release(1, fresh_browser=False)
        self.assertEqual(self.actions(), [])

    def test_a_page_of_an_earlier_browser_is_told_to_stop(self):
        self.driver.acquire(1)
        self.assertEqual(self.actions(self.driver.generation - 1), 410)

    def test_a_browser_that_had_its_traces_finishes_them_before_a_fresh_one(self):
        self.driver.acquire(1)
        self.driver.acquire(2)  # restart_every: its last
        first = self.driver.browser
        third = self.acquiring(3)
        self.assertIsNone(self.driver.release(1, fresh_browser=False))
        third.join(0.3)
        self.assertTrue(third.is_alive(), "it did not wait for trace 2")
        self.assertIs(self.driver.release(2, fresh_browser=False), first)
        third.join(5)
        self.assertFalse(third.is_alive())
        self.assertIsNot(self.driver.browser, first)
        self.assertEqual(self.driver.in_flight, {3})

    def test_a_timed_out_trace_retires_its_browser(self):
        self.driver.restart_every = 200
        self.driver.acquire(1)
        self.driver.acquire(2)
        first = self.driver.browser
        self.assertIsNone(self.driver.release(1, fresh_browser=True))  # 2 is still on it
        third = self.acquiring(3)
        self.assertIs(self.driver.release(2, fresh_browser=False), first)
        third.join(5)
        self.assertIsNot(self.driver.browser, first)

    def test_a_browser_that_died_while_idle_is_replaced(self):
        self.driver.acquire(1)
        self.driver.release(1, fresh_browser=False)
        first = self.driver.browser
        first.code = -9
        self.assertIs(self.driver.acquire(2), first)
        self.assertIsNot(self.driver.browser, first)


if __name__ == "__main__":
    unittest.main()
