// I-23: how check reads the clientIds of query() snapshots (web-locks#snapshot-the-lock-state). A
// log that writes only the trace's agent ids is held to them, each lock under its own agent's id;
// a log with ids of its own (a browser's UUIDs) must be explained by one pairing of its clients
// with the trace's agents, one to one over the whole log. Each expected verdict follows from the
// trace: which agent's request holds, or waits for, which lock when each query runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "event_match.h"
#include "lockstep/check.h"
#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

// A, B and C of one origin: A's request holds x, B's holds y, C's waits for x; then A queries.
const char* const kTwoHoldersOneWaiter = R"({"format": "lockstep-trace", "version": 1,
  "name": "two-holders-one-waiter",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"},
             {"id": "C", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "a1", "name": "x", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b1", "name": "y", "callback": {"result": {"pending": true}}},
    {"agent": "C", "op": "request", "id": "c1", "name": "x", "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q1"}]})";

// A and B hold s shared (q1), then B also holds x (q2), then A also holds y (q3).
const char* const kSharedThenDecided = R"({"format": "lockstep-trace", "version": 1,
  "name": "shared-then-decided",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "a1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q1"},
    {"agent": "B", "op": "request", "id": "b2", "name": "x", "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q2"},
    {"agent": "A", "op": "request", "id": "a2", "name": "y", "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q3"}]})";

// Shared locks held in pairs: s by A and B, t by B and C, r by A and C; then A queries.
const char* const kSharedPairs = R"({"format": "lockstep-trace", "version": 1,
  "name": "shared-pairs",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"},
             {"id": "C", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "a1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b2", "name": "t", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "C", "op": "request", "id": "c1", "name": "t", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "request", "id": "a2", "name": "r", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "C", "op": "request", "id": "c2", "name": "r", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q1"}]})";

// A holds s shared twice, B once; C's exclusive request for s waits; then A queries.
const char* const kSharedTwiceAndAWaiter = R"({"format": "lockstep-trace", "version": 1,
  "name": "shared-twice-and-a-waiter",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"},
             {"id": "C", "kind": "window", "origin": "https://a.test"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "a1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "request", "id": "a2", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b1", "name": "s", "options": {"mode": "shared"},
     "callback": {"result": {"pending": true}}},
    {"agent": "C", "op": "request", "id": "c1", "name": "s", "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "q1"}]})";

// Two partitions (two lock managers, so two parts): A holds x and B y in one, P x and Q y in the
// other; A queries, then P.
const char* const kTwoPartitions = R"({"format": "lockstep-trace", "version": 1,
  "name": "two-partitions",
  "agents": [{"id": "A", "kind": "window", "origin": "https://a.test"},
             {"id": "B", "kind": "window", "origin": "https://a.test"},
             {"id": "P", "kind": "window", "origin": "https://a.test", "partition": "private"},
             {"id": "Q", "kind": "window", "origin": "https://a.test", "partition": "private"}],
  "steps": [
    {"agent": "A", "op": "request", "id": "a1", "name": "x", "callback": {"result": {"pending": true}}},
    {"agent": "B", "op": "request", "id": "b1", "name": "y", "callback": {"result": {"pending": true}}},
    {"agent": "P", "op": "request", "id": "p1", "name": "x", "callback": {"result": {"pending": true}}},
    {"agent": "Q", "op": "request", "id": "y1", "name": "y", "callback": {"result": {"pending": true}}},
    {"agent": "A", "op": "query", "id": "qa"},
    {"agent": "P", "op": "query", "id": "qp"}]})";

// One entry of a snapshot's list.
struct Entry {
  std::string name, mode, client;
};

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

std::string list_of(const std::vector<Entry>& entries) {
  std::string text = "[";
  for (const Entry& e : entries) {
    if (text.size() > 1) text += ", ";
    text += R"({"name": )" + quoted(e.name) + R"(, "mode": )" + quoted(e.mode) +
            R"(, "clientId": )" + quoted(e.client) + "}";
  }
  return text + "]";
}

std::string callback(int step, const std::string& agent, const std::string& request,
                     const std::string& name, const std::string& mode) {
  return R"({"step": )" + std::to_string(step) + R"(, "agent": )" + quoted(agent) +
         R"(, "event": "callback", "request": )" + quoted(request) + R"(, "lock": {"name": )" +
         quoted(name) + R"(, "mode": )" + quoted(mode) + "}}";
}

// The settled event of a query whose snapshot's value is `value`.
std::string settled_query(int step, const std::string& agent, const std::string& query,
                          const std::string& value) {
  return R"({"step": )" + std::to_string(step) + R"(, "agent": )" + quoted(agent) +
         R"(, "event": "settled", "target": )" + quoted(query) +
         R"(, "state": "fulfilled", "value": )" + value + "}";
}

std::string snapshot(const std::vector<Entry>& held, const std::vector<Entry>& pending = {}) {
  return R"({"held": )" + list_of(held) + R"(, "pending": )" + list_of(pending) + "}";
}

std::string log_of(const std::vector<std::string>& events) {
  std::string text = R"({"format": "lockstep-log", "version": 1, "events": [)";
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "\n") + events[i];
  return text + "]}";
}

// What the text holds; a test failure (and an empty trace or log) when it does not read.
Trace trace_of(const std::string& json) {
  auto trace = read_trace(json);
  if (trace.ok()) return std::move(trace.value());
  ADD_FAILURE() << trace.error().to_string();
  return Trace{};
}

Log log_from(const std::string& json) {
  auto log = read_log(json);
  if (log.ok()) return std::move(log.value());
  ADD_FAILURE() << log.error().to_string();
  return Log{};
}

// check's report; a test failure (and an unknown verdict) when check cannot decide.
Report report_of(const std::string& trace_json, const std::string& log_json,
                 const Options& options = {}) {
  auto report = check(trace_of(trace_json), log_from(log_json), options);
  if (report.ok()) return std::move(report.value());
  ADD_FAILURE() << report.error().to_string();
  return Report{};
}

Verdict verdict_of(const std::string& trace_json, const std::string& log_json,
                   const Options& options = {}) {
  return report_of(trace_json, log_json, options).verdict;
}

// kTwoHoldersOneWaiter's log, its snapshot's value given.
std::string two_holders_log(const std::string& value) {
  return log_of({callback(0, "A", "a1", "x", "exclusive"), callback(1, "B", "b1", "y", "exclusive"),
                 settled_query(3, "A", "q1", value)});
}

// ... with the snapshot naming x's holder, y's holder and x's waiter so.
std::string two_holders_log(const std::string& x_holder, const std::string& y_holder,
                            const std::string& x_waiter) {
  return two_holders_log(snapshot({{"x", "exclusive", x_holder}, {"y", "exclusive", y_holder}},
                                  {{"x", "exclusive", x_waiter}}));
}

Verdict two_holders(const std::string& x_holder, const std::string& y_holder,
                    const std::string& x_waiter) {
  return verdict_of(kTwoHoldersOneWaiter, two_holders_log(x_holder, y_holder, x_waiter));
}

TEST(CheckClientIds, AgentIdsMustBeTheAgentsOwn) {
  EXPECT_EQ(two_holders("A", "B", "C"), Verdict::Allowed);
  // Held locks come in any order.
  EXPECT_EQ(verdict_of(kTwoHoldersOneWaiter,
                       two_holders_log(snapshot({{"y", "exclusive", "B"}, {"x", "exclusive", "A"}},
                                                {{"x", "exclusive", "C"}}))),
            Verdict::Allowed);
  EXPECT_EQ(two_holders("B", "A", "C"), Verdict::NotAllowed);  // the holders swapped
  EXPECT_EQ(two_holders("A", "A", "C"), Verdict::NotAllowed);  // B's lock under A's id
  EXPECT_EQ(two_holders("A", "B", "B"), Verdict::NotAllowed);  // C's request under B's id
}

TEST(CheckClientIds, OpaqueIdsArePairedOneToOne) {
  EXPECT_EQ(two_holders("9f1c", "77ab", "e02d"), Verdict::Allowed);
  EXPECT_EQ(two_holders("9f1c", "9f1c", "e02d"), Verdict::NotAllowed);  // one client, two locks
  // A holds x, so its client cannot also be the one waiting for x, which is C.
  EXPECT_EQ(two_holders("9f1c", "77ab", "9f1c"), Verdict::NotAllowed);
}

// With one id that is not an agent's the log's ids are its own: an agent id is a label like any
// other, here one that stands for another agent, but still for one agent only.
TEST(CheckClientIds, AMixOfAgentIdsAndOthersIsOpaque) {
  EXPECT_EQ(two_holders("A", "B", "e02d"), Verdict::Allowed);
  EXPECT_EQ(two_holders("B", "A", "e02d"), Verdict::Allowed);
  EXPECT_EQ(two_holders("B", "77ab", "C"), Verdict::Allowed);
  EXPECT_EQ(two_holders("B", "77ab", "B"), Verdict::NotAllowed);
  EXPECT_EQ(two_holders("B", "B", "e02d"), Verdict::NotAllowed);
}

// kSharedThenDecided: q1 cannot tell A's client from B's; x, which only B holds, tells at q2; y,
// which only A holds, must then be under the other client at q3.
std::string shared_then_decided_log(const std::string& s_clients_q3, const std::string& x_client,
                                    const std::string& x_client_q3, const std::string& y_client) {
  const std::vector<Entry> s = {{"s", "shared", "u1"}, {"s", "shared", "u2"}};
  std::vector<Entry> s_q3 = s;
  if (s_clients_q3 != "u1 u2") s_q3 = {{"s", "shared", "u1"}, {"s", "shared", "u3"}};
  std::vector<Entry> q2 = s, q3 = s_q3;
  q2.push_back({"x", "exclusive", x_client});
  q3.push_back({"x", "exclusive", x_client_q3});
  q3.push_back({"y", "exclusive", y_client});
  return log_of({callback(0, "A", "a1", "s", "shared"), callback(1, "B", "b1", "s", "shared"),
                 settled_query(2, "A", "q1", snapshot(s)), callback(3, "B", "b2", "x", "exclusive"),
                 settled_query(4, "A", "q2", snapshot(q2)),
                 callback(5, "A", "a2", "y", "exclusive"),
                 settled_query(6, "A", "q3", snapshot(q3))});
}

TEST(CheckClientIds, SharedHoldersStayOpenUntilASnapshotTellsThemApart) {
  const auto verdict = [](const std::string& s_q3, const std::string& x, const std::string& x_q3,
                          const std::string& y) {
    return verdict_of(kSharedThenDecided, shared_then_decided_log(s_q3, x, x_q3, y));
  };
  // Either pairing explains q1; q2 then picks one (B is u2, or B is u1) and q3 agrees.
  EXPECT_EQ(verdict("u1 u2", "u2", "u2", "u1"), Verdict::Allowed);
  EXPECT_EQ(verdict("u1 u2", "u1", "u1", "u2"), Verdict::Allowed);
  // q2 made u2 B's (x is B's alone), so A's y cannot be under u2 too.
  EXPECT_EQ(verdict("u1 u2", "u2", "u2", "u2"), Verdict::NotAllowed);
  // B's x under u2 at q2 and under u1 at q3: two clients for one agent.
  EXPECT_EQ(verdict("u1 u2", "u2", "u1", "u2"), Verdict::NotAllowed);
  // s's holders at q3 are A and B, as at q1: u3 is a client q1 never saw holding s.
  EXPECT_EQ(verdict("u1 u3", "u2", "u2", "u1"), Verdict::NotAllowed);
}

// kSharedPairs: every agent holds two of the three names, so every client must appear in exactly
// two of the groups; no single group decides anything.
TEST(CheckClientIds, ASnapshotNoPairingExplainsIsNotAllowed) {
  const auto verdict = [](const std::vector<std::string>& s, const std::vector<std::string>& t,
                          const std::vector<std::string>& r) {
    std::vector<Entry> held;
    for (const auto& [name, clients] : {std::pair{"s", s}, std::pair{"t", t}, std::pair{"r", r}})
      for (const std::string& client : clients) held.push_back({name, "shared", client});
    std::vector<std::string> events;
    const char* const grants[][3] = {{"A", "a1", "s"}, {"B", "b1", "s"}, {"B", "b2", "t"},
                                     {"C", "c1", "t"}, {"A", "a2", "r"}, {"C", "c2", "r"}};
    for (int i = 0; i < 6; ++i)
      events.push_back(callback(i, grants[i][0], grants[i][1], grants[i][2], "shared"));
    events.push_back(settled_query(6, "A", "q1", snapshot(held)));
    return verdict_of(kSharedPairs, log_of(events));
  };
  EXPECT_EQ(verdict({"u1", "u2"}, {"u2", "u3"}, {"u3", "u1"}), Verdict::Allowed);  // A u1, B u2
  EXPECT_EQ(verdict({"u1", "u2"}, {"u1", "u3"}, {"u1", "u3"}), Verdict::NotAllowed);
  EXPECT_EQ(verdict({"A", "B"}, {"B", "C"}, {"C", "A"}), Verdict::Allowed);
  EXPECT_EQ(verdict({"A", "B"}, {"B", "C"}, {"C", "B"}), Verdict::NotAllowed);
}

// kSharedTwiceAndAWaiter: A's client appears twice among s's holders and B's once; C's, the
// waiter's, is neither.
TEST(CheckClientIds, HeldAndPendingListsShareOnePairing) {
  const auto verdict = [](const std::vector<std::string>& holders, const std::string& waiter) {
    std::vector<Entry> held;
    for (const std::string& client : holders) held.push_back({"s", "shared", client});
    return verdict_of(
        kSharedTwiceAndAWaiter,
        log_of({callback(0, "A", "a1", "s", "shared"), callback(1, "A", "a2", "s", "shared"),
                callback(2, "B", "b1", "s", "shared"),
                settled_query(4, "A", "q1", snapshot(held, {{"s", "exclusive", waiter}}))}));
  };
  EXPECT_EQ(verdict({"u1", "u1", "u2"}, "u3"), Verdict::Allowed);
  EXPECT_EQ(verdict({"u2", "u1", "u2"}, "u3"), Verdict::Allowed);
  EXPECT_EQ(verdict({"u1", "u2", "u3"}, "u4"), Verdict::NotAllowed);  // A's two locks, two ids
  EXPECT_EQ(verdict({"u1", "u1", "u2"}, "u2"), Verdict::NotAllowed);  // u2 is B, who holds s
  EXPECT_EQ(verdict({"u1", "u1", "u2"}, "u1"), Verdict::NotAllowed);  // u1 is A, who holds s
  EXPECT_EQ(verdict({"A", "A", "B"}, "C"), Verdict::Allowed);
  EXPECT_EQ(verdict({"A", "B", "B"}, "C"), Verdict::NotAllowed);
}

// web-locks#dictdef-lockinfo and #dictdef-lockmanagersnapshot have no other members, and a name
// or a mode is the string the model has, exactly.
TEST(CheckClientIds, SnapshotsWithOtherMembersOrNamesDoNotMatch) {
  const std::string right =
      snapshot({{"x", "exclusive", "A"}, {"y", "exclusive", "B"}}, {{"x", "exclusive", "C"}});
  ASSERT_EQ(verdict_of(kTwoHoldersOneWaiter, two_holders_log(right)), Verdict::Allowed);
  const auto verdict = [](const std::string& value) {
    return verdict_of(kTwoHoldersOneWaiter, two_holders_log(value));
  };
  EXPECT_EQ(verdict(R"({"held": [{"name": "x", "mode": "exclusive", "clientId": "A", "extra": 1},
                                 {"name": "y", "mode": "exclusive", "clientId": "B"}],
                        "pending": [{"name": "x", "mode": "exclusive", "clientId": "C"}]})"),
            Verdict::NotAllowed);
  EXPECT_EQ(verdict(R"({"held": [{"name": "x", "mode": "exclusive", "clientId": "A"},
                                 {"name": "y", "mode": "exclusive", "clientId": "B"}],
                        "pending": [{"name": "x", "mode": "exclusive", "clientId": "C"}],
                        "extra": []})"),
            Verdict::NotAllowed);
  EXPECT_EQ(verdict(R"({"held": [{"name": "x", "mode": "exclusive", "clientId": "A"},
                                 {"name": "y", "mode": "exclusive", "clientId": "B"}],
                        "pending": [{"name": "x", "mode": "exclusive", "clientId": "C",
                                     "extra": null}]})"),
            Verdict::NotAllowed);
  EXPECT_EQ(verdict(R"({"held": [{"name": "x", "mode": "exclusive", "clientId": "A"},
                                 {"name": "y", "mode": "exclusive", "clientId": "B"}]})"),
            Verdict::NotAllowed);
  EXPECT_EQ(verdict(snapshot({{"x", "Exclusive", "A"}, {"y", "exclusive", "B"}},
                             {{"x", "exclusive", "C"}})),
            Verdict::NotAllowed);
  EXPECT_EQ(verdict(snapshot({{"x", "exclusive", "A"}, {"Y", "exclusive", "B"}},
                             {{"x", "exclusive", "C"}})),
            Verdict::NotAllowed);
}

// The form is the whole log's, so a part of a split world (check/README.md, "Parts") reads its
// agent ids as labels when another part's snapshot has ids of its own.
TEST(CheckClientIds, PartsReadClientIdsInTheWholeLogsForm) {
  const auto log = [](const std::vector<Entry>& a_sees, const std::vector<Entry>& p_sees) {
    return log_of(
        {callback(0, "A", "a1", "x", "exclusive"), callback(1, "B", "b1", "y", "exclusive"),
         callback(2, "P", "p1", "x", "exclusive"), callback(3, "Q", "y1", "y", "exclusive"),
         settled_query(4, "A", "qa", snapshot(a_sees)),
         settled_query(5, "P", "qp", snapshot(p_sees))});
  };
  const std::vector<Entry> swapped = {{"x", "exclusive", "B"}, {"y", "exclusive", "A"}};
  const std::string opaque = log(swapped, {{"x", "exclusive", "9f1c"}, {"y", "exclusive", "77ab"}});
  const std::string agent_ids = log(swapped, {{"x", "exclusive", "P"}, {"y", "exclusive", "Q"}});
  for (const Split split : {Split::First, Split::Never}) {
    EXPECT_EQ(verdict_of(kTwoPartitions, opaque, Options{.split = split}), Verdict::Allowed);
    EXPECT_EQ(verdict_of(kTwoPartitions, agent_ids, Options{.split = split}), Verdict::NotAllowed);
  }
  EXPECT_TRUE(report_of(kTwoPartitions, opaque, Options{.split = Split::First}).decided_by_parts);
}

// Only the clientIds of the trace's query snapshots decide the form.
TEST(CheckClientIds, TheFormIsDecidedByTheSnapshotsClientIds) {
  const Trace trace = trace_of(kTwoHoldersOneWaiter);
  const auto form = [&](const std::string& text) { return client_id_form(trace, log_from(text)); };
  EXPECT_EQ(form(two_holders_log("A", "B", "C")), ClientIdForm::AgentIds);
  EXPECT_EQ(form(two_holders_log("A", "B", "e02d")), ClientIdForm::Opaque);
  EXPECT_EQ(form(log_of({settled_query(0, "A", "q1", snapshot({}, {}))})), ClientIdForm::AgentIds);
  // A request's value that looks like a snapshot is not one.
  EXPECT_EQ(form(log_of({settled_query(0, "A", "a1", snapshot({{"x", "exclusive", "e02d"}}))})),
            ClientIdForm::AgentIds);
}

// The refinement itself: groups of agents and clients by number (ClientClasses).
TEST(CheckClientIds, ClassesRefineToAOneToOnePairing) {
  ClientClasses pairs(3, 3);
  EXPECT_TRUE(pairs.refine({0, 1}, {0, 1}));  // agents 0, 1 are clients 0, 1 in some order
  EXPECT_TRUE(pairs.refine({1, 2}, {0, 2}));  // so agent 1 is client 0, agent 0 client 1
  ClientClasses decided = pairs;
  EXPECT_TRUE(decided.refine({0}, {1}));
  EXPECT_FALSE(pairs.refine({0}, {0}));
  ClientClasses twice(2, 2);
  EXPECT_TRUE(twice.refine({0, 0, 1}, {1, 0, 1}));  // agent 0 is client 1
  EXPECT_FALSE(twice.refine({0}, {0}));
  ClientClasses sizes(1, 2);
  EXPECT_FALSE(sizes.refine({0}, {0, 1}));
}

// same_observations, as the properties use it, reads the ids as check does.
TEST(CheckClientIds, SameObservationsPairsClientIdsAsCheckDoes) {
  const Trace trace = trace_of(kTwoHoldersOneWaiter);
  const Log model = log_from(two_holders_log("A", "B", "C"));
  const auto observed = [](const std::string& x, const std::string& y, const std::string& w) {
    return log_from(two_holders_log(x, y, w));
  };
  EXPECT_TRUE(same_observations(trace, model, observed("A", "B", "C")));
  EXPECT_FALSE(same_observations(trace, model, observed("B", "A", "C")));
  EXPECT_TRUE(same_observations(trace, model, observed("9f1c", "77ab", "e02d")));
  EXPECT_FALSE(same_observations(trace, model, observed("9f1c", "77ab", "9f1c")));
}

}  // namespace
}  // namespace lockstep::check
