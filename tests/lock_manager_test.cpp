// Unit tests of the impl/ lock manager core (lockstep/impl/lock_manager.h). Every expectation is
// worked out from the Web Locks algorithms (https://w3c.github.io/web-locks/), step by step, not
// from what the core returns; the last tests replay random operations against a literal,
// vector-based transcription of the spec's lock request queue map and held lock set.
#include "lockstep/impl/lock_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace lockstep::impl {
namespace {

using Strings = std::vector<std::string>;

constexpr RequestFlags kPlain{false, false};
constexpr RequestFlags kIfAvailable{true, false};
constexpr RequestFlags kSteal{false, true};

void* as_user(int id) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
}
int user_id(void* user) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(user));
}

// Logs every Observer call in order, as "granted <id>" / "stolen <id>" (id: the request's user).
class Recorder : public LockManager::Observer {
 public:
  struct Call {
    bool granted = false;
    Ticket ticket;
    int id = 0;
  };
  std::vector<Call> calls;
  void granted(Ticket ticket, void* user) override {
    calls.push_back({true, ticket, user_id(user)});
  }
  void stolen(Ticket ticket, void* user) override {
    calls.push_back({false, ticket, user_id(user)});
  }
};

std::string describe(const SnapshotEntry& e) {
  return std::string(e.name) + (e.mode == Mode::Exclusive ? ":X:" : ":S:") +
         std::string(e.client_id) + ":" + std::to_string(user_id(e.user));
}
std::vector<std::string> describe(const std::vector<SnapshotEntry>& entries) {
  std::vector<std::string> out;
  for (const SnapshotEntry& e : entries) out.push_back(describe(e));
  return out;
}

class LockManagerTest : public ::testing::Test {
 protected:
  // Makes request `id` (its user pointer) and remembers its ticket under that id.
  RequestOutcome request(int id, AgentId agent, std::string_view name, Mode mode,
                         RequestFlags flags = kPlain) {
    const RequestResult r = manager_.request(agent, name, mode, flags, as_user(id));
    tickets_[id] = r.ticket;
    return r.outcome;
  }
  Ticket t(int id) const { return tickets_.at(id); }

  // The Observer calls since the last drain. Each call must name the ticket its request got.
  std::vector<std::string> drain() {
    std::vector<std::string> out;
    for (const Recorder::Call& c : recorder_.calls) {
      EXPECT_EQ(c.ticket, t(c.id)) << "observer ticket of request " << c.id;
      out.push_back((c.granted ? "granted " : "stolen ") + std::to_string(c.id));
    }
    recorder_.calls.clear();
    return out;
  }
  std::vector<std::string> held() const { return describe(manager_.snapshot().held); }
  std::vector<std::string> pending() const { return describe(manager_.snapshot().pending); }

  Recorder recorder_;
  LockManager manager_{recorder_};
  AgentId x_ = manager_.add_agent("X");
  AgentId y_ = manager_.add_agent("Y");
  AgentId z_ = manager_.add_agent("Z");
  std::map<int, Ticket> tickets_;
};

// --- Request, grantable, process ------------------------------------------------------------

TEST_F(LockManagerTest, FreeNameIsGrantedAtOnceBeforeRequestReturns) {
  // algorithm-request-lock 3.5.2 enqueues, 3.6 processes: the lone request is grantable
  // (grantable step 7: it is first; step 8: nothing held) and joins the held set (process 2.13).
  EXPECT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  EXPECT_TRUE(t(1));
  EXPECT_EQ(drain(), Strings({"granted 1"}));
  EXPECT_TRUE(manager_.holds(t(1)));
  EXPECT_FALSE(manager_.queued(t(1)));
  EXPECT_EQ(manager_.user(t(1)), as_user(1));
  EXPECT_EQ(manager_.held_count(), 1u);
  EXPECT_EQ(manager_.pending_count(), 0u);
  EXPECT_EQ(manager_.name_count(), 1u);
}

TEST_F(LockManagerTest, ExclusiveGrantsAreFifoPerName) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  // grantable step 8: an exclusive request waits while any lock of its name is held.
  EXPECT_EQ(request(2, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  EXPECT_EQ(request(3, z_, "a", Mode::Exclusive), RequestOutcome::Queued);
  EXPECT_EQ(request(4, x_, "a", Mode::Exclusive), RequestOutcome::Queued);
  EXPECT_EQ(drain(), Strings({"granted 1"}));
  EXPECT_TRUE(manager_.queued(t(2)));
  EXPECT_FALSE(manager_.holds(t(2)));
  EXPECT_EQ(manager_.pending_count(), 3u);

  // algorithm-release-lock 6-7: each release lets exactly the queue's front in, in enqueue order.
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 2"}));
  manager_.release(t(2));
  EXPECT_EQ(drain(), Strings({"granted 3"}));
  manager_.release(t(3));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
  manager_.release(t(4));
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(manager_.held_count(), 0u);
  EXPECT_EQ(manager_.pending_count(), 0u);
  EXPECT_EQ(manager_.name_count(), 1u);  // the map never forgets a name
}

TEST_F(LockManagerTest, NamesAreIndependent) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  // grantable steps 4, 8: only the request's own queue and locks of its own name count.
  EXPECT_EQ(request(2, y_, "b", Mode::Exclusive), RequestOutcome::Granted);
  EXPECT_EQ(request(3, y_, "a", Mode::Shared), RequestOutcome::Queued);
  EXPECT_EQ(request(4, z_, "b", Mode::Shared), RequestOutcome::Queued);
  drain();
  manager_.release(t(2));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
  EXPECT_TRUE(manager_.queued(t(3)));
  EXPECT_EQ(manager_.name_count(), 2u);
}

TEST_F(LockManagerTest, SharedReadersTogetherWriterWaitsAndLaterReadersDoNotOvertake) {
  // grantable step 9: shared is grantable while no exclusive lock of the name is held.
  EXPECT_EQ(request(1, x_, "a", Mode::Shared), RequestOutcome::Granted);
  EXPECT_EQ(request(2, y_, "a", Mode::Shared), RequestOutcome::Granted);
  // Step 8: the writer waits for both readers.
  EXPECT_EQ(request(3, z_, "a", Mode::Exclusive), RequestOutcome::Queued);
  // Step 7: a reader behind the writer is not first in the queue, so it waits although the held
  // set alone would allow it.
  EXPECT_EQ(request(4, x_, "a", Mode::Shared), RequestOutcome::Queued);
  EXPECT_EQ(drain(), Strings({"granted 1", "granted 2"}));

  manager_.release(t(1));  // one reader left: the writer still may not go
  EXPECT_EQ(drain(), Strings{});
  manager_.release(t(2));
  EXPECT_EQ(drain(), Strings({"granted 3"}));
  manager_.release(t(3));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
}

TEST_F(LockManagerTest, OneProcessGrantsEveryCompatibleRequestAtTheFront) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  request(2, y_, "a", Mode::Shared);
  request(3, z_, "a", Mode::Shared);
  request(4, x_, "a", Mode::Exclusive);
  request(5, y_, "a", Mode::Shared);
  drain();
  // algorithm-process-request 2: the loop goes on while the front is grantable; it stops at the
  // writer (2.1), and the reader behind it stays queued.
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 2", "granted 3"}));
  EXPECT_TRUE(manager_.queued(t(4)));
  EXPECT_TRUE(manager_.queued(t(5)));
  EXPECT_EQ(manager_.held_count(), 2u);
  EXPECT_EQ(manager_.pending_count(), 2u);
}

// --- ifAvailable ----------------------------------------------------------------------------

TEST_F(LockManagerTest, IfAvailableWhenHeldIsNotAvailableAndLeavesNoRecord) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  drain();
  // algorithm-request-lock 3.5.1: not grantable, so the callback gets null and nothing is queued.
  EXPECT_EQ(request(2, y_, "a", Mode::Shared, kIfAvailable), RequestOutcome::NotAvailable);
  EXPECT_FALSE(t(2));
  EXPECT_EQ(request(3, y_, "a", Mode::Exclusive, kIfAvailable), RequestOutcome::NotAvailable);
  EXPECT_FALSE(t(3));
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(manager_.held_count(), 1u);
  EXPECT_EQ(manager_.pending_count(), 0u);
  EXPECT_EQ(pending(), Strings{});
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings{});  // nobody was waiting
}

TEST_F(LockManagerTest, IfAvailableSharedBehindAQueuedWriterIsNotAvailable) {
  ASSERT_EQ(request(1, x_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  drain();
  // grantable step 7: the queue is not empty and the new request would not be first, even though
  // the held set (one shared lock) alone would let a reader in.
  EXPECT_EQ(request(3, z_, "a", Mode::Shared, kIfAvailable), RequestOutcome::NotAvailable);
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(pending(), Strings({"a:X:Y:2"}));
  EXPECT_EQ(manager_.pending_count(), 1u);
  EXPECT_EQ(manager_.held_count(), 1u);
}

TEST_F(LockManagerTest, IfAvailableIsGrantedWhenGrantable) {
  EXPECT_EQ(request(1, x_, "a", Mode::Shared, kIfAvailable), RequestOutcome::Granted);
  EXPECT_EQ(request(2, y_, "a", Mode::Shared, kIfAvailable), RequestOutcome::Granted);
  EXPECT_EQ(request(3, z_, "b", Mode::Exclusive, kIfAvailable), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"granted 1", "granted 2", "granted 3"}));
  EXPECT_EQ(manager_.held_count(), 3u);
}

// --- steal ----------------------------------------------------------------------------------

TEST_F(LockManagerTest, StealTakesEveryHeldLockOfTheNameInHeldSetOrderAndGoesFirst) {
  ASSERT_EQ(request(1, x_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "b", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(3, y_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(4, x_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(5, y_, "a", Mode::Shared), RequestOutcome::Queued);
  drain();
  // algorithm-request-lock 3.4.1: the locks named "a" leave the held set in its order (1, then 3;
  // "b" stays); 3.4.2 prepends the stealer, and 3.6 grants it ahead of 4 and 5.
  EXPECT_EQ(request(6, z_, "a", Mode::Exclusive, kSteal), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"stolen 1", "stolen 3", "granted 6"}));
  EXPECT_FALSE(manager_.holds(t(1)));
  EXPECT_FALSE(manager_.holds(t(3)));
  EXPECT_TRUE(manager_.holds(t(2)));
  EXPECT_EQ(held(), Strings({"b:X:Y:2", "a:X:Z:6"}));
  // The queued requests stay, in their order.
  EXPECT_EQ(pending(), Strings({"a:X:X:4", "a:S:Y:5"}));
  EXPECT_EQ(manager_.held_count(), 2u);
  EXPECT_EQ(manager_.pending_count(), 2u);

  // Releasing a stolen lock (its waiting promise settles later): the held set no longer has it
  // and the queue's front still is not grantable, so nothing happens.
  manager_.release(t(1));
  manager_.release(t(3));
  EXPECT_EQ(drain(), Strings{});
  EXPECT_TRUE(manager_.queued(t(4)));

  manager_.release(t(6));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
  manager_.release(t(4));
  EXPECT_EQ(drain(), Strings({"granted 5"}));
}

TEST_F(LockManagerTest, SharedStealLetsTheCompatibleFrontFollow) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(3, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  drain();
  // 3.4.2 prepends the shared stealer; process-request 2 grants it, then the shared request 2 now
  // at the front (grantable step 9), and stops at the writer 3.
  EXPECT_EQ(request(4, z_, "a", Mode::Shared, kSteal), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"stolen 1", "granted 4", "granted 2"}));
  EXPECT_EQ(held(), Strings({"a:S:Z:4", "a:S:Y:2"}));
  EXPECT_EQ(pending(), Strings({"a:X:Y:3"}));
}

TEST_F(LockManagerTest, StealOfAFreeNameIsAPlainGrant) {
  EXPECT_EQ(request(1, x_, "a", Mode::Exclusive, kSteal), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"granted 1"}));
  // A second steal takes the first one's lock.
  EXPECT_EQ(request(2, y_, "a", Mode::Exclusive, kSteal), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"stolen 1", "granted 2"}));
  EXPECT_EQ(held(), Strings({"a:X:Y:2"}));
}

// --- abort ----------------------------------------------------------------------------------

TEST_F(LockManagerTest, AbortOfTheFrontLetsTheNextInWhenNowGrantable) {
  ASSERT_EQ(request(1, x_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(3, z_, "a", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(4, z_, "a", Mode::Exclusive), RequestOutcome::Queued);
  drain();
  // algorithm-abort-request 6-7: the writer leaves, the reader is now first and compatible with
  // the held shared lock; the next writer is not.
  manager_.abort(t(2));
  EXPECT_EQ(drain(), Strings({"granted 3"}));
  EXPECT_FALSE(manager_.queued(t(2)));
  EXPECT_FALSE(manager_.holds(t(2)));
  EXPECT_EQ(manager_.user(t(2)), nullptr);
  EXPECT_EQ(pending(), Strings({"a:X:Z:4"}));
  EXPECT_EQ(manager_.pending_count(), 1u);
  EXPECT_EQ(manager_.held_count(), 2u);
}

TEST_F(LockManagerTest, AbortInTheMiddleKeepsTheRestInOrder) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  request(2, y_, "a", Mode::Exclusive);
  request(3, z_, "a", Mode::Shared);
  request(4, x_, "a", Mode::Shared);
  drain();
  manager_.abort(t(3));
  EXPECT_EQ(drain(), Strings{});  // the front (2) is still not grantable
  EXPECT_EQ(pending(), Strings({"a:X:Y:2", "a:S:X:4"}));
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 2"}));
  manager_.release(t(2));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
}

TEST_F(LockManagerTest, AbortOfAGrantedOrStaleTicketIsANoOp) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  request(2, y_, "a", Mode::Exclusive);
  drain();
  // abort-request 6 removes from the queue only; a granted request is not in it.
  manager_.abort(t(1));
  EXPECT_TRUE(manager_.holds(t(1)));
  EXPECT_TRUE(manager_.queued(t(2)));
  EXPECT_EQ(drain(), Strings{});
  manager_.abort(Ticket{});
  manager_.release(Ticket{});
  manager_.abort(Ticket{12345, 1});  // a slot that never existed
  manager_.release(Ticket{12345, 1});
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(manager_.held_count(), 1u);
  EXPECT_EQ(manager_.pending_count(), 1u);
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 2"}));
  manager_.abort(t(1));  // released: stale
  EXPECT_TRUE(manager_.holds(t(2)));
  EXPECT_EQ(drain(), Strings{});
}

// --- stale tickets --------------------------------------------------------------------------

TEST_F(LockManagerTest, StaleTicketOfAReusedSlotTouchesNothing) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  manager_.release(t(1));
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive), RequestOutcome::Granted);
  // The freed record was reused for request 2; the generation tells the tickets apart.
  ASSERT_EQ(t(2).slot, t(1).slot);
  ASSERT_NE(t(2).generation, t(1).generation);
  ASSERT_EQ(request(3, z_, "a", Mode::Exclusive), RequestOutcome::Queued);
  drain();

  EXPECT_FALSE(manager_.holds(t(1)));
  EXPECT_FALSE(manager_.queued(t(1)));
  EXPECT_EQ(manager_.user(t(1)), nullptr);
  manager_.release(t(1));  // must not release request 2's lock
  manager_.abort(t(1));
  EXPECT_EQ(drain(), Strings{});
  EXPECT_TRUE(manager_.holds(t(2)));
  EXPECT_TRUE(manager_.queued(t(3)));
  EXPECT_EQ(manager_.user(t(2)), as_user(2));

  // Same with a queued request in the reused slot.
  manager_.release(t(2));
  EXPECT_EQ(drain(), Strings({"granted 3"}));
  ASSERT_EQ(request(4, x_, "a", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(t(4).slot, t(2).slot);
  manager_.abort(t(2));
  manager_.abort(t(1));
  manager_.release(t(2));
  EXPECT_TRUE(manager_.queued(t(4)));
  EXPECT_FALSE(manager_.queued(t(2)));
  EXPECT_TRUE(manager_.holds(t(3)));
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(manager_.pending_count(), 1u);
}

TEST_F(LockManagerTest, NotAvailableTicketIsEmptyAndInert) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive, kIfAvailable), RequestOutcome::NotAvailable);
  EXPECT_FALSE(manager_.holds(t(2)));
  EXPECT_FALSE(manager_.queued(t(2)));
  EXPECT_EQ(manager_.user(t(2)), nullptr);
  manager_.release(t(2));
  manager_.abort(t(2));
  EXPECT_TRUE(manager_.holds(t(1)));
}

// --- terminate ------------------------------------------------------------------------------

TEST_F(LockManagerTest, TerminateReleasesLocksInHeldSetOrder) {
  // X gets "b" before "a", though "a" was named first and X asked for "a" first: the held set's
  // order (b, a) differs from name order and from request order.
  ASSERT_EQ(request(1, z_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, x_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(3, x_, "b", Mode::Exclusive), RequestOutcome::Granted);
  manager_.release(t(1));
  ASSERT_EQ(request(4, y_, "a", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(5, y_, "b", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(6, z_, "a", Mode::Shared), RequestOutcome::Queued);
  EXPECT_EQ(drain(), Strings({"granted 1", "granted 3", "granted 2"}));
  EXPECT_EQ(held(), Strings({"b:X:X:3", "a:X:X:2"}));

  // terminate-remaining-locks-and-requests 1: X has no request. Step 2 releases its locks in the
  // held set's order: "b" (granting 5), then "a" (granting 4 and 6 together).
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings({"granted 5", "granted 4", "granted 6"}));
  EXPECT_FALSE(manager_.holds(t(2)));
  EXPECT_FALSE(manager_.holds(t(3)));
  EXPECT_EQ(held(), Strings({"b:S:Y:5", "a:S:Y:4", "a:S:Z:6"}));
  EXPECT_EQ(pending(), Strings{});
}

TEST_F(LockManagerTest, TerminateAbortsRequestsBeforeReleasingLocks) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(3, z_, "b", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(4, x_, "b", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(5, y_, "b", Mode::Shared), RequestOutcome::Queued);
  drain();
  // Step 1 aborts X's request on "b" first, so 5 joins Z's shared lock; only then step 2 releases
  // X's lock on "a", granting 2. (Locks first would give 2 before 5.)
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings({"granted 5", "granted 2"}));
  EXPECT_FALSE(manager_.queued(t(4)));
  // Held set: 1, 3; 5 appended; 1 removed; 2 appended.
  EXPECT_EQ(held(), Strings({"b:S:Z:3", "b:S:Y:5", "a:X:Y:2"}));
  EXPECT_EQ(pending(), Strings{});
  EXPECT_EQ(manager_.held_count(), 3u);
  EXPECT_EQ(manager_.pending_count(), 0u);
}

TEST_F(LockManagerTest, TerminateAbortsRequestsInQueueMapOrder) {
  // "a" enters the lock request queue map before "b", but X asks for "b" before "a".
  ASSERT_EQ(request(1, z_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(2, z_, "b", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(3, x_, "b", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(4, x_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(5, y_, "b", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(6, y_, "a", Mode::Shared), RequestOutcome::Queued);
  drain();
  EXPECT_EQ(pending(), Strings({"a:X:X:4", "a:S:Y:6", "b:X:X:3", "b:S:Y:5"}));
  // Step 1 meets X's requests as it walks the map: "a"'s queue (abort 4, granting 6), then "b"'s
  // (abort 3, granting 5).
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings({"granted 6", "granted 5"}));
  EXPECT_EQ(manager_.pending_count(), 0u);
}

TEST_F(LockManagerTest, TerminateReleasesALockItsOwnAbortGranted) {
  ASSERT_EQ(request(1, z_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(2, x_, "a", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(3, x_, "a", Mode::Shared), RequestOutcome::Queued);
  ASSERT_EQ(request(4, y_, "a", Mode::Exclusive), RequestOutcome::Queued);
  drain();
  // Step 1, front to back: aborting 2 makes X's own shared request 3 first and grantable, so
  // abort-request 7 grants it; it is then no longer a request. Step 2 releases it again; 4 still
  // waits for Z's lock.
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings({"granted 3"}));
  EXPECT_FALSE(manager_.holds(t(3)));
  EXPECT_FALSE(manager_.queued(t(3)));
  EXPECT_EQ(held(), Strings({"a:S:Z:1"}));
  EXPECT_EQ(pending(), Strings({"a:X:Y:4"}));
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 4"}));
}

TEST_F(LockManagerTest, TerminateLeavesOtherAgentsAndStolenLocksAlone) {
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive, kSteal), RequestOutcome::Granted);
  ASSERT_EQ(request(3, x_, "b", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(4, z_, "b", Mode::Exclusive), RequestOutcome::Queued);
  ASSERT_EQ(request(5, y_, "c", Mode::Exclusive), RequestOutcome::Granted);
  EXPECT_EQ(drain(), Strings({"granted 1", "stolen 1", "granted 2", "granted 3", "granted 5"}));
  // X's stolen lock 1 is no longer in the held set: nothing for Y's lock 2.
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings({"granted 4"}));
  EXPECT_TRUE(manager_.holds(t(2)));
  EXPECT_TRUE(manager_.holds(t(5)));
  EXPECT_EQ(held(), Strings({"a:X:Y:2", "c:X:Y:5", "b:X:Z:4"}));
  manager_.release(t(1));  // the stolen lock's release later on is still harmless
  EXPECT_EQ(drain(), Strings{});
  EXPECT_TRUE(manager_.holds(t(2)));
  manager_.terminate(x_);  // nothing left
  EXPECT_EQ(drain(), Strings{});
  EXPECT_EQ(manager_.held_count(), 3u);
}

TEST_F(LockManagerTest, TerminateDropsPendingRequestsOfTheAgent) {
  ASSERT_EQ(request(1, y_, "a", Mode::Exclusive), RequestOutcome::Granted);
  request(2, x_, "a", Mode::Exclusive);
  request(3, z_, "a", Mode::Exclusive);
  request(4, x_, "a", Mode::Shared);
  request(5, x_, "b", Mode::Shared);  // granted at once
  drain();
  manager_.terminate(x_);
  EXPECT_EQ(drain(), Strings{});  // 3 is first now but Y still holds "a"
  EXPECT_EQ(pending(), Strings({"a:X:Z:3"}));
  EXPECT_EQ(held(), Strings({"a:X:Y:1"}));
  EXPECT_FALSE(manager_.queued(t(2)));
  EXPECT_FALSE(manager_.queued(t(4)));
  EXPECT_FALSE(manager_.holds(t(5)));
  manager_.release(t(1));
  EXPECT_EQ(drain(), Strings({"granted 3"}));
}

// --- snapshot and counts --------------------------------------------------------------------

TEST_F(LockManagerTest, SnapshotOrdersPendingByQueueMapAndHeldByInsertion) {
  // Names enter the map in the order c, a, b.
  ASSERT_EQ(request(1, x_, "c", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Shared), RequestOutcome::Granted);
  ASSERT_EQ(request(3, z_, "b", Mode::Exclusive), RequestOutcome::Granted);
  // Pending requests made in the order b, a, c, b, a.
  request(4, x_, "b", Mode::Shared);
  request(5, x_, "a", Mode::Exclusive);
  request(6, y_, "c", Mode::Shared);
  request(7, z_, "b", Mode::Exclusive);
  request(8, z_, "a", Mode::Shared);
  // algorithm-snapshot-state 3: each queue of the map in the map's order, front to back.
  EXPECT_EQ(pending(), Strings({"c:S:Y:6", "a:X:X:5", "a:S:Z:8", "b:S:X:4", "b:X:Z:7"}));
  // Step 5: the held lock set in the order locks were appended.
  EXPECT_EQ(held(), Strings({"c:X:X:1", "a:S:Y:2", "b:X:Z:3"}));

  // Releasing "c" appends 6 at the end of the held set; 1 leaves.
  manager_.release(t(1));
  EXPECT_EQ(held(), Strings({"a:S:Y:2", "b:X:Z:3", "c:S:Y:6"}));
  // "c"'s queue is empty now but keeps its place in the map: a new request there still comes
  // first in pending.
  request(9, x_, "c", Mode::Exclusive);
  EXPECT_EQ(pending(), Strings({"c:X:X:9", "a:X:X:5", "a:S:Z:8", "b:S:X:4", "b:X:Z:7"}));
  EXPECT_EQ(manager_.held_count(), 3u);
  EXPECT_EQ(manager_.pending_count(), 5u);
  EXPECT_EQ(manager_.name_count(), 3u);

  // The views carry the user pointers of the records.
  const Snapshot s = manager_.snapshot();
  ASSERT_EQ(s.held.size(), 3u);
  EXPECT_EQ(s.held[0].user, as_user(2));
  EXPECT_EQ(s.held[0].client_id, "Y");
  EXPECT_EQ(s.held[0].name, "a");
  EXPECT_EQ(s.held[0].mode, Mode::Shared);
}

// After many releases the held set still lists the remaining locks in the order they were granted
// (algorithm-snapshot-state step 5), and termination still finds every record of its agent and
// none of another's.
TEST_F(LockManagerTest, HeldSetOrderSurvivesManyReleasesAndTermination) {
  std::vector<std::string> expected;
  for (int id = 0; id < 300; ++id)
    ASSERT_EQ(request(id, id % 2 == 0 ? x_ : y_, "n" + std::to_string(id), Mode::Exclusive),
              RequestOutcome::Granted);
  // Release every id that is not a multiple of 3: two thirds of the set, so holes outnumber
  // the locks more than once along the way.
  for (int id = 0; id < 300; ++id)
    if (id % 3 != 0) manager_.release(t(id));
  for (int id = 0; id < 300; id += 3)
    expected.push_back("n" + std::to_string(id) + ":X:" + (id % 2 == 0 ? "X" : "Y") + ":" +
                       std::to_string(id));
  EXPECT_EQ(held(), expected);
  EXPECT_EQ(manager_.held_count(), 100u);
  // New grants go to the end, after the survivors.
  ASSERT_EQ(request(1000, y_, "late", Mode::Exclusive), RequestOutcome::Granted);
  expected.push_back("late:X:Y:1000");
  EXPECT_EQ(held(), expected);
  // Terminating X releases exactly its locks (even ids); Y's stay, in their order.
  manager_.terminate(x_);
  std::vector<std::string> only_y;
  for (const std::string& e : expected)
    if (e.find(":X:Y:") != std::string::npos) only_y.push_back(e);
  EXPECT_EQ(held(), only_y);
  EXPECT_EQ(manager_.held_count(), only_y.size());
  for (int id = 0; id < 300; id += 6) EXPECT_FALSE(manager_.holds(t(id))) << id;
  for (int id = 3; id < 300; id += 6) EXPECT_TRUE(manager_.holds(t(id))) << id;
}

TEST_F(LockManagerTest, SnapshotOfAFreshManagerIsEmpty) {
  EXPECT_EQ(held(), Strings{});
  EXPECT_EQ(pending(), Strings{});
  EXPECT_EQ(manager_.held_count(), 0u);
  EXPECT_EQ(manager_.pending_count(), 0u);
  EXPECT_EQ(manager_.name_count(), 0u);
}

TEST_F(LockManagerTest, NameCountIsTheQueueMapSizeWhichNeverShrinks) {
  // algorithm-request-lock 3.2 gets (so makes) the name's queue before anything else, whatever the
  // flags; nothing ever removes an entry from the lock request queue map.
  ASSERT_EQ(request(1, x_, "a", Mode::Exclusive), RequestOutcome::Granted);
  ASSERT_EQ(request(2, y_, "a", Mode::Exclusive, kIfAvailable), RequestOutcome::NotAvailable);
  EXPECT_EQ(manager_.name_count(), 1u);  // "a" again: no new entry
  ASSERT_EQ(request(3, y_, "b", Mode::Exclusive, kSteal), RequestOutcome::Granted);
  ASSERT_EQ(request(4, z_, "c", Mode::Shared, kIfAvailable), RequestOutcome::Granted);
  EXPECT_EQ(manager_.name_count(), 3u);
  manager_.release(t(1));
  manager_.release(t(3));
  manager_.release(t(4));
  EXPECT_EQ(manager_.name_count(), 3u);
  EXPECT_EQ(manager_.held_count(), 0u);
  EXPECT_EQ(manager_.pending_count(), 0u);
}

// --- randomized cross-check against a literal model -----------------------------------------

// The spec's state as the spec states it: the lock request queue map is a list of (name, queue)
// in insertion order, the held lock set a list in insertion order, and every algorithm scans
// them. Requests are known by id; `log` collects what the Observer should hear.
class NaiveLocks {
 public:
  struct Request {
    int id = 0;
    std::string name;
    Mode mode = Mode::Exclusive;
    int agent = 0;
  };

  std::vector<std::pair<std::string, std::vector<Request>>> queue_map;
  std::vector<Request> held;
  std::set<int> stolen;               // locks taken out of the held set by a steal, not released
  std::map<int, Request> everything;  // every request ever queued, by id
  std::vector<std::string> log;

  // web-locks#get-the-lock-request-queue (the concept section): made on first use, never dropped.
  std::vector<Request>& queue(const std::string& name) {
    for (auto& [n, q] : queue_map)
      if (n == name) return q;
    queue_map.emplace_back(name, std::vector<Request>{});
    return queue_map.back().second;
  }

  // web-locks#grantable steps 7-9.
  bool grantable(const Request& r) {
    const std::vector<Request>& q = queue(r.name);
    if (!q.empty() && q.front().id != r.id) return false;
    for (const Request& lock : held)
      if (lock.name == r.name && (r.mode == Mode::Exclusive || lock.mode == Mode::Exclusive))
        return false;
    return true;
  }

  // web-locks#algorithm-process-request.
  void process(const std::string& name) {
    while (!queue(name).empty()) {
      const Request r = queue(name).front();
      if (!grantable(r)) return;
      queue(name).erase(queue(name).begin());
      held.push_back(r);
      log.push_back("granted " + std::to_string(r.id));
    }
  }

  // web-locks#algorithm-request-lock step 3.
  RequestOutcome request(const Request& r, RequestFlags flags) {
    queue(r.name);
    if (flags.steal) {
      const std::vector<Request> copy = held;
      for (const Request& lock : copy) {
        if (lock.name != r.name) continue;
        held.erase(std::find_if(held.begin(), held.end(),
                                [&](const Request& l) { return l.id == lock.id; }));
        stolen.insert(lock.id);
        log.push_back("stolen " + std::to_string(lock.id));
      }
      queue(r.name).insert(queue(r.name).begin(), r);
    } else {
      if (flags.if_available && !grantable(r)) return RequestOutcome::NotAvailable;
      queue(r.name).push_back(r);
    }
    everything[r.id] = r;
    process(r.name);
    return is_held(r.id) ? RequestOutcome::Granted : RequestOutcome::Queued;
  }

  // web-locks#algorithm-release-lock, for a lock not released yet (held or stolen).
  void release(int id) {
    const Request& r = everything.at(id);
    std::erase_if(held, [&](const Request& l) { return l.id == id; });
    stolen.erase(id);
    released.insert(id);
    process(r.name);
  }

  // web-locks#algorithm-abort-request: remove (if there) and process, literally.
  void abort(int id) {
    const Request& r = everything.at(id);
    std::erase_if(queue(r.name), [&](const Request& q) { return q.id == id; });
    process(r.name);
  }

  // web-locks#terminate-remaining-locks-and-requests.
  void terminate(int agent) {
    std::vector<int> requests;
    for (const auto& [name, q] : queue_map)
      for (const Request& r : q)
        if (r.agent == agent) requests.push_back(r.id);
    for (int id : requests) abort(id);
    std::vector<int> locks;
    for (const Request& l : held)
      if (l.agent == agent) locks.push_back(l.id);
    for (int id : locks) release(id);
  }

  bool is_held(int id) const {
    return std::any_of(held.begin(), held.end(), [&](const Request& l) { return l.id == id; });
  }
  bool is_queued(int id) const {
    for (const auto& [name, q] : queue_map)
      for (const Request& r : q)
        if (r.id == id) return true;
    return false;
  }
  // A lock that script could still release: held, or stolen and not released yet.
  bool releasable(int id) const { return is_held(id) || stolen.count(id) != 0; }

  std::set<int> released;
};

std::string describe_naive(const NaiveLocks::Request& r, const std::vector<std::string>& clients) {
  return r.name + (r.mode == Mode::Exclusive ? ":X:" : ":S:") +
         clients[static_cast<std::size_t>(r.agent)] + ":" + std::to_string(r.id);
}

void cross_check(std::uint32_t seed, int operations) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };

  Recorder recorder;
  LockManager manager(recorder);
  NaiveLocks naive;
  const std::vector<std::string> clients = {"c0", "c1", "c2", "c3"};
  std::vector<AgentId> agents;
  for (const std::string& c : clients) agents.push_back(manager.add_agent(c));
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3", "n4"};

  std::map<int, Ticket> tickets;  // every request made, including NotAvailable ones
  std::vector<int> ids;
  int next_id = 1;
  const auto pick = [&](auto&& wanted) {
    std::vector<int> candidates;
    for (int id : ids)
      if (wanted(id)) candidates.push_back(id);
    return candidates.empty()
               ? 0
               : candidates[static_cast<std::size_t>(below(static_cast<int>(candidates.size())))];
  };

  for (int op = 0; op < operations; ++op) {
    const int dice = below(100);
    std::string what;
    if (dice < 42) {
      NaiveLocks::Request r;
      r.id = next_id++;
      r.name = names[static_cast<std::size_t>(below(static_cast<int>(names.size())))];
      r.mode = below(2) == 0 ? Mode::Exclusive : Mode::Shared;
      r.agent = below(static_cast<int>(agents.size()));
      const int f = below(100);
      const RequestFlags flags = f < 15 ? kIfAvailable : f < 22 ? kSteal : kPlain;
      what = "request " + std::to_string(r.id) + " " + describe_naive(r, clients) +
             (flags.steal          ? " steal"
              : flags.if_available ? " ifAvailable"
                                   : "");
      const RequestResult got = manager.request(agents[static_cast<std::size_t>(r.agent)], r.name,
                                                r.mode, flags, as_user(r.id));
      const RequestOutcome want = naive.request(r, flags);
      ASSERT_EQ(got.outcome, want) << what;
      ASSERT_EQ(static_cast<bool>(got.ticket), want != RequestOutcome::NotAvailable) << what;
      tickets[r.id] = got.ticket;
      ids.push_back(r.id);
    } else if (dice < 72) {
      // Mostly a live lock; sometimes one already released (a stale ticket).
      const bool stale = below(6) == 0;
      const int id =
          pick([&](int i) { return stale ? naive.released.count(i) != 0 : naive.releasable(i); });
      if (id == 0) continue;
      what = "release " + std::to_string(id) + (stale ? " (stale)" : "");
      manager.release(tickets[id]);
      if (!stale) naive.release(id);
    } else if (dice < 90) {
      // Mostly a queued request; sometimes any request at all (granted, stale, not available).
      const bool any = below(4) == 0;
      const int id = pick([&](int i) { return any || naive.is_queued(i); });
      if (id == 0) continue;
      what = "abort " + std::to_string(id);
      manager.abort(tickets[id]);
      if (naive.everything.count(id) != 0 && naive.released.count(id) == 0) naive.abort(id);
    } else if (dice < 92) {
      const int agent = below(static_cast<int>(agents.size()));
      what = "terminate " + clients[static_cast<std::size_t>(agent)];
      manager.terminate(agents[static_cast<std::size_t>(agent)]);
      naive.terminate(agent);
    } else {
      what = "nothing";
    }
    SCOPED_TRACE("op " + std::to_string(op) + ": " + what);

    std::vector<std::string> heard;
    for (const Recorder::Call& c : recorder.calls) {
      ASSERT_EQ(c.ticket, tickets.at(c.id));
      heard.push_back((c.granted ? "granted " : "stolen ") + std::to_string(c.id));
    }
    recorder.calls.clear();
    ASSERT_EQ(heard, naive.log);
    naive.log.clear();

    const Snapshot snapshot = manager.snapshot();
    std::vector<std::string> want_held, want_pending;
    for (const NaiveLocks::Request& r : naive.held) want_held.push_back(describe_naive(r, clients));
    for (const auto& [name, q] : naive.queue_map)
      for (const NaiveLocks::Request& r : q) want_pending.push_back(describe_naive(r, clients));
    ASSERT_EQ(describe(snapshot.held), want_held);
    ASSERT_EQ(describe(snapshot.pending), want_pending);
    ASSERT_EQ(manager.held_count(), want_held.size());
    ASSERT_EQ(manager.pending_count(), want_pending.size());
    ASSERT_EQ(manager.name_count(), naive.queue_map.size());
    for (int id : ids) {
      ASSERT_EQ(manager.holds(tickets[id]), naive.is_held(id)) << "request " << id;
      ASSERT_EQ(manager.queued(tickets[id]), naive.is_queued(id)) << "request " << id;
    }
  }
}

TEST(LockManagerCrossCheck, AgreesWithALiteralModelOnRandomOperations) {
  cross_check(20240601u, 2500);
  cross_check(7u, 1500);
}

}  // namespace
}  // namespace lockstep::impl
