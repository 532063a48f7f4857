#!/usr/bin/env python3
"""browser/launch.py without a browser: the relay between a trace's browsers (mailboxes, order,
the long-poll's timeout, a bad batch refused) over HTTP as the pages use it, which partitions a
trace's browsers host, which files the pages are served (adapters/js, and a --preload module's
folder under /user/), and a page gone before its answer kept out of the output; and
browser/xdisplay.py's virtual display (Debian xvfb, which scripts/install-deps.sh --for-tests
installs). Usage: launch_test.py SOURCE_DIR"""
import contextlib
import io
import json
import os
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(sys.argv.pop(1), "adapters", "js", "browser"))
import launch  # noqa: E402
import xdisplay  # noqa: E402


class RelayOverHttp(unittest.TestCase):
    def setUp(self):
        launch.Relay.WAIT_S = 0.3  # a poll with nothing to take answers [] this soon
        self.result, self.done = {}, threading.Event()
        self.server = launch.serve(b'{"agents": []}', self.result, self.done)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def post(self, batch):
        request = urllib.request.Request(f"{self.base}/relay", data=json.dumps(batch).encode(),
                                         method="POST")
        with urllib.request.urlopen(request) as answer:
            return answer.status

    def take(self, name):
        with urllib.request.urlopen(f"{self.base}/relay?for={name}") as answer:
            return json.loads(answer.read())

    def test_messages_come_in_order_to_their_own_mailbox(self):
        self.post([{"to": "runner", "message": 1}, {"to": "partition:p", "message": "a"}])
        self.post([{"to": "runner", "message": 2}])
        self.assertEqual(self.take("runner"), [1, 2])
        self.assertEqual(self.take("partition:p"), ["a"])
        self.assertEqual(self.take("runner"), [])  # taken once

    def test_a_waiting_poll_answers_when_a_message_comes(self):
        launch.Relay.WAIT_S = 5
        got = []
        poll = threading.Thread(target=lambda: got.append(self.take("runner")))
        poll.start()
        time.sleep(0.2)
        self.post([{"to": "runner", "message": {"lockstep": "pong", "n": 1}}])
        poll.join(3)
        self.assertEqual(got, [[{"lockstep": "pong", "n": 1}]])

    def test_a_batch_without_addresses_is_refused(self):
        with self.assertRaises(urllib.error.HTTPError) as refused:
            self.post([{"message": 1}])
        self.assertEqual(refused.exception.code, 400)
        self.assertFalse(self.done.is_set())  # not taken for the page's result

    def test_the_result_is_still_the_page_s_post(self):
        request = urllib.request.Request(f"{self.base}/result", method="POST",
                                         data=json.dumps({"log": {"events": []}}).encode())
        urllib.request.urlopen(request).close()
        self.assertTrue(self.done.wait(5))  # set just after the answer is sent
        self.assertEqual(self.result, {"log": {"events": []}})


class Partitions(unittest.TestCase):
    def test_in_the_order_the_agents_name_them_default_when_unnamed(self):
        trace = {"agents": [{"id": "A", "partition": "p2"}, {"id": "B"},
                            {"id": "C", "partition": "p2"}, {"id": "D", "partition": "p1"}]}
        self.assertEqual(launch.partitions_of(json.dumps(trace).encode()),
                         ["p2", "default", "p1"])

    def test_a_trace_that_cannot_be_read_has_none(self):
        self.assertEqual(launch.partitions_of(b"{"), [])
        self.assertEqual(launch.partitions_of(b'{"agents": 3}'), [])

    def test_a_partition_page_gets_the_agents_parameters_not_the_runner_s(self):
        url = launch.partition_url(8000, "private one", {"preload": "/p.js", "quiet": "150",
                                                        "without": "workers"})
        self.assertIn("partition=private%20one", url)
        self.assertIn("preload=/p.js", url)
        self.assertNotIn("quiet", url)
        self.assertNotIn("without", url)


class ServedFiles(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.library = os.path.join(self.folder, "lib.js")
        open(self.library, "w").write("export {};")
        open(os.path.join(os.path.dirname(self.folder), "beside.js"), "w").write("")

    def tearDown(self):
        launch.user_dir = None

    def test_adapters_js_and_nothing_above_it(self):
        self.assertEqual(launch.served_file("/browser/runner.html"),
                         os.path.join(launch.JS, "browser", "runner.html"))
        self.assertIsNone(launch.served_file("/../targets.json"))
        self.assertIsNone(launch.served_file("/browser/no-such-page.html"))

    def test_a_preload_folder_under_user_only_once_given(self):
        self.assertIsNone(launch.served_file("/user/lib.js"))
        launch.user_dir = self.folder
        self.assertEqual(launch.served_file("/user/lib.js"), self.library)
        self.assertIsNone(launch.served_file("/user/../beside.js"))
        self.assertIsNone(launch.served_file("/user/"))


class ServerErrors(unittest.TestCase):
    def setUp(self):
        self.server = launch.serve(b'{"agents": []}', {}, threading.Event())

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def printed_for(self, error):
        out = io.StringIO()
        with contextlib.redirect_stderr(out):
            try:
                raise error
            except Exception:
                self.server.handle_error(None, ("::1", 0))
        return out.getvalue()

    def test_a_page_gone_before_its_answer_is_not_reported(self):
        self.assertEqual(self.printed_for(BrokenPipeError(32, "Broken pipe")), "")
        self.assertEqual(self.printed_for(ConnectionResetError(104, "reset")), "")

    def test_any_other_error_of_a_request_is(self):
        self.assertIn("ValueError: the handler's own bug", self.printed_for(
            ValueError("the handler's own bug")))


class VirtualDisplay(unittest.TestCase):
    def test_a_display_of_its_own_for_as_long_as_the_block(self):
        with xdisplay.VirtualDisplay() as display:
            self.assertRegex(display.name, r"^:[0-9]+$")
            socket_file = f"/tmp/.X11-unix/X{display.name[1:]}"
            self.assertTrue(os.path.exists(socket_file), socket_file)
            self.assertIsNone(display.process.poll())
            with xdisplay.VirtualDisplay() as second:  # another run beside it: another number
                self.assertNotEqual(second.name, display.name)
        self.assertIsNotNone(display.process.poll())
        self.assertFalse(os.path.exists(socket_file), socket_file)

    def test_a_missing_xvfb_is_named(self):
        with self.assertRaises(SystemExit) as refused:
            with xdisplay.VirtualDisplay("/nonexistent/Xvfb"):
                pass
        self.assertEqual(str(refused.exception), "/nonexistent/Xvfb: cannot start the virtual "
                         "display: No such file or directory")


if __name__ == "__main__":
    unittest.main()
