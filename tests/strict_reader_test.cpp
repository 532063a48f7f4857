// The strict reader behind traces, logs and targets files (traces/src/json_stream.h): every
// refusal is an Error with the JSON pointer and a message of its own, which these tests hold to
// the letter, and no byte string is ever an internal error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "lockstep/check.h"
#include "lockstep/targets.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

const std::string kAgents = R"([{"id": "A", "kind": "window", "origin": "https://a.test"}])";

std::string trace_of(const std::string& steps) {
  return R"({"format": "lockstep-trace", "version": 1, "agents": )" + kAgents + R"(, "steps": )" +
         steps + "}";
}

std::string log_of(const std::string& events) {
  return R"({"format": "lockstep-log", "version": 1, "events": )" + events + "}";
}

const std::string kCallback =
    R"({"step": 0, "agent": "A", "event": "callback", "request": "r1", "lock": {"name": "res", "mode": "exclusive"}})";

// Pointer and message, as "lockstep: FILE: " would follow them with.
std::string refusal(const Error& e) {
  return e.pointer + " | " + e.message;
}

std::string trace_refusal(const std::string& json) {
  auto r = read_trace(json);
  return r.ok() ? "accepted" : refusal(r.error());
}

std::string log_refusal(const std::string& json) {
  auto r = read_log(json);
  return r.ok() ? "accepted" : refusal(r.error());
}

TEST(StrictReader, DuplicateKeysAreRefusedWhereTheSecondStands) {
  EXPECT_EQ(
      trace_refusal(trace_of(
          R"([{"agent": "A", "op": "request", "id": "r", "name": "n", "options": {"mode": "exclusive", "mode": "shared"}}])")),
      "/steps/0/options/mode | duplicate member \"mode\"");
  EXPECT_EQ(trace_refusal(R"({"format": "lockstep-trace", "format": "lockstep-trace"})"),
            "/format | duplicate member \"format\"");
  EXPECT_EQ(log_refusal(log_of(
                R"([{"step": 0, "agent": "A", "event": "task", "task": "t", "task": "u"}])")),
            "/events/0/task | duplicate member \"task\"");
}

// The reader converts each step while the next is parsed (trace_reader.cpp, item): a refusal of a
// step still comes before whatever is wrong later in the document.
TEST(StrictReader, AStepsRefusalComesBeforeWhatIsWrongAfterIt) {
  const std::string head = R"({"format": "lockstep-trace", "version": 1, "agents": )" + kAgents +
                           R"(, "steps": [{"agent": "A", "op": "query", "id": "q"}, )";
  const std::string bad_step = R"({"agent": "B", "op": "query", "id": "q2"})";
  const std::string refused = "/steps/1/agent | no agent with id \"B\"";
  EXPECT_EQ(trace_refusal(head + bad_step + R"(, {"agent": )"), refused);  // malformed after it
  EXPECT_EQ(trace_refusal(head + bad_step), refused);                      // cut short after it
  EXPECT_EQ(trace_refusal(head + bad_step + R"(], "extra": 1})"), refused);
  EXPECT_EQ(trace_refusal(head + bad_step + R"(, {"agent": "A", "op": "query", "id": "q"}]})"),
            refused);  // not the duplicate id of the step after it
  EXPECT_EQ(trace_refusal(head + R"({"agent": "A", "op": "query", "id": "q"}]})"),
            "/steps/1/id | duplicate id \"q\" (first defined by steps[0])");
}

TEST(StrictReader, IntegersMustBeExactAndInRange) {
  EXPECT_EQ(trace_refusal(R"({"format": "lockstep-trace", "version": 1.0})"),
            "/version | this lockstep reads trace format version 1, got 1.0");
  EXPECT_EQ(log_refusal(R"({"format": "lockstep-log", "version": 1e0, "events": []})"),
            "/version | this lockstep reads log format version 1, got 1e0");
  // 2^32 and -2^32 once wrapped to step 0 in a 32-bit read, and a log with every step wrong was
  // allowed.
  for (const std::string step : {"4294967296", "-4294967296", "-1", "2147483648", "0.5", "1e2"})
    EXPECT_EQ(log_refusal(log_of(R"([{"step": )" + step +
                                 R"(, "agent": "A", "event": "task", "task": "t"}])")),
              "/events/0/step | expected the index of a top-level step (a whole number from 0), "
              "got " +
                  step);
  EXPECT_EQ(
      trace_refusal(trace_of(R"([{"agent": "A", "op": "setTimeout", "id": "t", "ms": 2e3}])")),
      "/steps/0/ms | expected a whole number of milliseconds >= 0, got 2e3");
  EXPECT_EQ(trace_refusal(trace_of(
                R"([{"agent": "A", "op": "setTimeout", "id": "t", "ms": 18446744073709551616}])")),
            "/steps/0/ms | expected a whole number of milliseconds >= 0, got 18446744073709551616");
  EXPECT_EQ(trace_refusal(
                trace_of(R"([{"agent": "A", "op": "setTimeout", "id": "t", "ms": 2147483648}])")),
            "/steps/0/ms | 2147483648 ms exceeds the limit of 2147483647");
}

TEST(StrictReader, NumbersADoubleCannotHoldAreRefused) {
  const std::string json = trace_of(
      R"([{"agent": "A", "op": "newPromise", "id": "p"}, {"agent": "A", "op": "settle", "target": "p", "outcome": "fulfill", "value": 1e999}])");
  EXPECT_EQ(trace_refusal(json), " | malformed JSON at line 1, column " +
                                     std::to_string(json.find("1e999") + 1) +
                                     ": number too big to be stored in double");
}

TEST(StrictReader, TheTopLevelOfALogIsHeldToTheFormat) {
  EXPECT_EQ(log_refusal(R"({"format": [], "version": 1, "events": []})"),
            "/format | expected \"lockstep-log\", got []");
  EXPECT_EQ(log_refusal(R"({"format": 7, "version": 1, "events": []})"),
            "/format | expected \"lockstep-log\", got 7");
  EXPECT_EQ(log_refusal(R"({"format": "lockstep-log", "version": 1, "events": [], "about": 1})"),
            "/about | unknown member \"about\" (allowed here: format, version, events, partial)");
  EXPECT_EQ(log_refusal(R"({"format": "lockstep-log", "version": 1})"),
            " | missing required member \"events\"");
  EXPECT_EQ(log_refusal(R"({"format": "lockstep-log", "version": 1, "events": {}})"),
            "/events | expected an array of events, got an object");
  EXPECT_EQ(log_refusal(R"({"format": "lockstep-log", "version": 1, "events": [], "partial": 1})"),
            "/partial | expected true or false, got 1");
}

TEST(StrictReader, ATraceWhereALogIsExpectedIsNamedAsSuch) {
  EXPECT_EQ(log_refusal(trace_of("[]")),
            "/format | expected \"lockstep-log\": this is a trace (\"lockstep-trace\"), not an "
            "event log");
  EXPECT_EQ(trace_refusal(log_of("[]")),
            "/format | expected \"lockstep-trace\": this is an event log (\"lockstep-log\"), not a "
            "trace");
}

TEST(StrictReader, EventsAreHeldToTheirKindsMembers) {
  EXPECT_EQ(log_refusal(
                log_of(R"([{"step": 0, "agent": "A", "event": "task", "task": "t", "extra": 1}])")),
            "/events/0/extra | unknown member \"extra\" of an event");
  EXPECT_EQ(log_refusal(log_of(
                R"([{"step": 0, "agent": "A", "event": "task", "task": "t", "label": "x"}])")),
            "/events/0/label | unknown member \"label\" for a task event (allowed: step, agent, "
            "event, task)");
  EXPECT_EQ(log_refusal(log_of(R"([{"step": 0, "agent": "A", "event": "tick"}])")),
            "/events/0/event | unknown event \"tick\" (callback, task, idle, settled, "
            "prioritychange, threw, mark)");
  EXPECT_EQ(log_refusal(log_of(R"([{"step": 0, "event": "task", "task": "t"}])")),
            "/events/0 | missing required member \"agent\"");
  EXPECT_EQ(
      log_refusal(log_of(R"([{"step": 0, "agent": "A", "event": "callback", "request": "r1"}])")),
      "/events/0 | missing required member \"lock\"");
  EXPECT_EQ(
      log_refusal(log_of(
          R"([{"step": 0, "agent": "A", "event": "callback", "request": "r1", "lock": {"name": "res", "mode": "read"}}])")),
      "/events/0/lock/mode | expected \"exclusive\" or \"shared\", got \"read\"");
  EXPECT_EQ(
      log_refusal(log_of(
          R"([{"step": 0, "agent": "A", "event": "callback", "request": "r1", "lock": {"name": "res", "mode": "shared", "id": 1}}])")),
      "/events/0/lock/id | unknown member \"id\" of a lock (name, mode)");
  EXPECT_EQ(
      log_refusal(log_of(
          R"([{"step": 0, "agent": "A", "event": "settled", "target": "r1", "state": "fulfilled", "reason": 1}])")),
      "/events/0/reason | a fulfilled promise has a value, not a reason");
  EXPECT_EQ(
      log_refusal(log_of(
          R"([{"step": 0, "agent": "A", "event": "settled", "target": "r1", "state": "done"}])")),
      "/events/0/state | expected \"fulfilled\" or \"rejected\", got \"done\"");
  EXPECT_EQ(
      log_refusal(log_of(
          R"([{"step": 0, "agent": "A", "event": "prioritychange", "signal": "s", "previousPriority": "high", "priority": "background"}])")),
      "/events/0/previousPriority | expected \"user-blocking\" or \"user-visible\" or "
      "\"background\", got \"high\"");
  EXPECT_EQ(log_refusal(log_of(R"([{"step": 0, "agent": "A", "event": "mark", "label": 5}])")),
            "/events/0/label | expected a string, got a number");
}

TEST(StrictReader, AnEventReadIsLaidOutAsTheFormatListsItsMembers) {
  auto log = read_log(log_of(
      R"([{"value": 42, "state": "fulfilled", "event": "settled", "target": "r1", "agent": "A", "step": 3}])"));
  ASSERT_TRUE(log.ok()) << log.error().to_string();
  EXPECT_EQ(
      write_log(log.value()),
      "{\"format\": \"lockstep-log\", \"version\": 1, \"events\": [\n  {\"step\": 3, \"agent\": "
      "\"A\", \"event\": \"settled\", \"target\": \"r1\", \"state\": \"fulfilled\", "
      "\"value\": 42}\n]}\n");
}

TEST(StrictReader, BytesThatAreNotJsonTextAreRefusedWithTheirPlace) {
  EXPECT_EQ(trace_refusal(""), " | empty document: expected a trace, a JSON object");
  EXPECT_EQ(trace_refusal(" \n\t "), " | empty document: expected a trace, a JSON object");
  EXPECT_EQ(trace_refusal(std::string("{\"format\": \"lockstep-trace\"}\0junk", 33)),
            " | malformed JSON at line 1, column 29: a NUL byte, which JSON text never has");
  EXPECT_EQ(trace_refusal("{\"format\": \"lock\xff\"}"),
            "/format | a string that is not valid UTF-8");
  EXPECT_EQ(trace_refusal("{\"format\": \"\xed\xa0\x80\"}"),  // a UTF-16 surrogate
            "/format | a string that is not valid UTF-8");
  // A lone low surrogate spelled as an escape in an all-ASCII document: RapidJSON decodes it into
  // the bytes of a surrogate, which the check after decoding refuses (fuzz/README.md, finding 4).
  EXPECT_EQ(
      trace_refusal(trace_of(R"([{"agent": "A", "op": "request", "id": "r", "name": "\ude00"}])")),
      "/steps/0/name | a string that is not valid UTF-8");
  EXPECT_EQ(
      log_refusal(log_of(R"([{"step": 0, "agent": "A\udc00", "event": "mark", "label": "m"}])")),
      "/events/0/agent | a string that is not valid UTF-8");
  EXPECT_EQ(
      trace_refusal("{\"format\":\n  \"lockstep-trace\",\n  \"version\" 1}"),
      " | malformed JSON at line 3, column 13: missing a colon after a name of object member");
  EXPECT_EQ(trace_refusal("[1, 2]"), " | a trace is a JSON object, got an array");
  EXPECT_EQ(log_refusal("\"text\""), " | a log is a JSON object, got a string");
  const std::string two = trace_of("[]") + " {}";
  EXPECT_EQ(trace_refusal(two), " | malformed JSON at line 1, column " +
                                    std::to_string(two.rfind('{') + 1) +
                                    ": the document root must not be followed by other values");
}

TEST(StrictReader, EveryByteStringIsAValueOrAnError) {
  // Cuts of a valid trace and log at every byte: each either reads or is refused, never throws.
  const std::string trace = trace_of(
      R"([{"agent": "A", "op": "request", "id": "r1", "name": "res", "callback": {"result": {"pending": true}}}])");
  const std::string log = log_of("[" + kCallback + "]");
  for (std::size_t n = 0; n <= trace.size(); ++n) EXPECT_NO_THROW(read_trace(trace.substr(0, n)));
  for (std::size_t n = 0; n <= log.size(); ++n) EXPECT_NO_THROW(read_log(log.substr(0, n)));
  EXPECT_TRUE(read_trace(trace).ok());
  EXPECT_TRUE(read_log(log).ok());
}

TEST(StrictReader, TheSizeLimitHoldsWhileReading) {
  ReadLimits limits;
  limits.max_document_bytes = 100;
  EXPECT_EQ(refusal(read_trace(trace_of("[]") + std::string(200, ' '), limits).error()),
            " | document exceeds the limit of 100 bytes");
  // A file known to be past the limit is refused before it is parsed (a pipe, after the limit's
  // bytes: tests/cli/input_contract.sh).
  char name[] = "/tmp/lockstep-limit-XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  const std::string big = "{\"format\": \"lockstep-log\", \"version\": 1, \"events\": [" +
                          std::string(1 << 20, ' ') + "]}";
  ASSERT_EQ(write(fd, big.data(), big.size()), static_cast<ssize_t>(big.size()));
  close(fd);
  EXPECT_EQ(
      refusal(read_log_file(name, limits).error()),
      " | document of " + std::to_string(big.size()) + " bytes exceeds the limit of 100 bytes");
  EXPECT_TRUE(read_log_file(name).ok());
  std::remove(name);
}

TEST(StrictReader, FilesThatCannotBeReadSaySoWithoutRepeatingTheirName) {
  EXPECT_EQ(refusal(read_trace_file("/nonexistent/t.json").error()),
            " | cannot open the file: No such file or directory");
  EXPECT_EQ(refusal(read_log_file("/tmp").error()), " | is a folder, not a file");
}

TEST(StrictReader, APartialLogIsCheckedAsPartial) {
  // Worker W marks twice and is terminated; a log that lost W's second mark is allowed only when
  // it says it may lose events of an agent that ends ("partial": true, as check --partial).
  const std::string trace = R"({"format": "lockstep-trace", "version": 1,
    "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
               {"id": "W", "kind": "worker", "origin": "https://a.test"}],
    "steps": [{"agent": "W", "op": "run", "body": [{"op": "mark", "label": "one"}, {"op": "mark", "label": "two"}]},
              {"agent": "W", "op": "terminate"},
              {"agent": "A", "op": "run", "body": [{"op": "mark", "label": "after"}]}]})";
  auto t = read_trace(trace);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  const std::string events =
      R"([{"step": 0, "agent": "W", "event": "mark", "label": "one"},
          {"step": 2, "agent": "A", "event": "mark", "label": "after"}])";
  auto whole = read_log(log_of(events));
  auto partial = read_log(
      R"({"format": "lockstep-log", "version": 1, "partial": true, "events": )" + events + "}");
  ASSERT_TRUE(whole.ok() && partial.ok());
  EXPECT_FALSE(whole->partial);
  EXPECT_TRUE(partial->partial);
  auto strict = check::check(t.value(), whole.value(), {});
  auto lenient = check::check(t.value(), partial.value(), {});
  ASSERT_TRUE(strict.ok() && lenient.ok());
  EXPECT_EQ(strict->verdict, check::Verdict::NotAllowed);
  EXPECT_EQ(lenient->verdict, check::Verdict::Allowed);
  // And it is written back as it was read.
  auto again = read_log(write_log(partial.value()));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->partial);
}

TEST(StrictReader, TargetsFilesAreHeldToTheirMembers) {
  const auto targets_refusal = [](const std::string& json) {
    auto r = read_targets(json);
    return r.ok() ? "accepted" : refusal(r.error());
  };
  EXPECT_EQ(
      targets_refusal(R"({"targets": {"x": {"command": "a {trace} {log}", "partial": "yes"}}})"),
      "/targets/x/partial | expected true or false, got \"yes\"");
  EXPECT_EQ(targets_refusal(R"({"targets": {"x": {"command": "a", "comand": "b"}}})"),
            "/targets/x/comand | unknown member \"comand\" (allowed here: description, command, "
            "serve, serveAtOnce, profile, without, partial, jobsPerCore)");
  // serveAtOnce: a whole number from 1 to 64, and only beside a serve command.
  for (const char* at_once : {"0", "65", "2.5", "true"})
    EXPECT_EQ(targets_refusal(std::string(R"({"targets": {"x": {"command": "a", "serve": "s", )"
                                          R"("serveAtOnce": )") +
                              at_once + "}}}"),
              std::string("/targets/x/serveAtOnce | expected a whole number from 1 to 64, got ") +
                  at_once)
        << at_once;
  EXPECT_EQ(targets_refusal(R"({"targets": {"x": {"command": "a", "serveAtOnce": 4}}})"),
            "/targets/x/serveAtOnce | a target without \"serve\" serves nothing at once");
  auto at_once =
      read_targets(R"({"targets": {"x": {"command": "a", "serve": "s", "serveAtOnce": 8}}})");
  ASSERT_TRUE(at_once.ok());
  EXPECT_EQ(at_once->find("x")->serve_at_once, 8);
  EXPECT_EQ(read_targets(R"({"targets": {"x": {"command": "a"}}})")->find("x")->serve_at_once, 1);
  for (const char* jobs : {"0", "17", "1.5", "\"4\""})
    EXPECT_EQ(
        targets_refusal(std::string(R"({"targets": {"x": {"command": "a", "jobsPerCore": )") +
                        jobs + "}}}"),
        std::string("/targets/x/jobsPerCore | expected a whole number from 1 to 16, got ") + jobs)
        << jobs;
  auto with_jobs = read_targets(R"({"targets": {"x": {"command": "a", "jobsPerCore": 3}}})");
  ASSERT_TRUE(with_jobs.ok());
  EXPECT_EQ(with_jobs->find("x")->jobs_per_core, 3);
  EXPECT_FALSE(read_targets(R"({"targets": {"x": {"command": "a"}}})")->find("x")->jobs_per_core);
  EXPECT_EQ(targets_refusal(R"({"targets": {"x": {"command": "a"}, "x": {"command": "b"}}})"),
            "/targets/x | duplicate member \"x\"");
  EXPECT_EQ(targets_refusal(R"({"targets": {"a/b": {"serve": "s"}}})"),
            "/targets/a~1b | missing required member \"command\"");
  EXPECT_EQ(targets_refusal(R"({"target": {}})"),
            "/target | unknown member \"target\" (allowed here: about, targets)");
  // The shipped file reads, with every target's members.
  auto shipped = read_targets_file(std::string(LOCKSTEP_SOURCE_DIR) + "/adapters/targets.json");
  ASSERT_TRUE(shipped.ok()) << shipped.error().to_string();
  const TargetEntry* node = shipped->find("node");
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->partial);
  EXPECT_EQ(node->profile, "locks");
  EXPECT_FALSE(node->serve.has_value());
  ASSERT_NE(shipped->find("chromium"), nullptr);
  EXPECT_TRUE(shipped->find("chromium")->serve.has_value());
}

}  // namespace
}  // namespace lockstep
