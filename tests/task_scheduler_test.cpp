// Unit tests of the impl/ task scheduler core (lockstep/impl/task_scheduler.h). Expectations come
// from the Prioritized Task Scheduling spec (https://wicg.github.io/scheduling-apis/): the
// effective priority table, "select the next scheduler task queue from all schedulers", enqueue
// order, and the TaskSignal priority change that sets a dynamic queue's priority. The last test
// replays random operations against a naive list scan.
#include "lockstep/impl/task_scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace lockstep::impl {
namespace {

void* as_cookie(int id) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
}
int cookie_id(void* cookie) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(cookie));
}

// Pops everything, returning the cookies in the order the event loop would run them.
std::vector<int> drain(TaskScheduler& s) {
  std::vector<int> out;
  while (std::optional<TaskScheduler::Next> n = s.pop()) out.push_back(cookie_id(n->cookie));
  return out;
}

using Ids = std::vector<int>;

// scheduling#scheduler-task-queue-effective-priority: the spec's six-row table.
TEST(TaskSchedulerTest, EffectivePriorityIsTheSpecTable) {
  EXPECT_EQ(effective_priority(Priority::Background, false), 0);
  EXPECT_EQ(effective_priority(Priority::Background, true), 1);
  EXPECT_EQ(effective_priority(Priority::UserVisible, false), 2);
  EXPECT_EQ(effective_priority(Priority::UserVisible, true), 3);
  EXPECT_EQ(effective_priority(Priority::UserBlocking, false), 4);
  EXPECT_EQ(effective_priority(Priority::UserBlocking, true), 5);
}

TEST(TaskSchedulerTest, EmptySchedulerHasNothingToRun) {
  TaskScheduler s;
  EXPECT_FALSE(s.next().has_value());
  EXPECT_FALSE(s.pop().has_value());
  EXPECT_EQ(s.size(), 0u);
  const QueueId q = s.create_queue(Priority::UserVisible, false);
  EXPECT_TRUE(s.empty(q));
  EXPECT_FALSE(s.next().has_value());
  EXPECT_EQ(s.priority(q), Priority::UserVisible);
}

TEST(TaskSchedulerTest, HighestEffectivePriorityRunsFirst) {
  TaskScheduler s;
  const QueueId bg = s.create_queue(Priority::Background, false);
  const QueueId uv = s.create_queue(Priority::UserVisible, false);
  const QueueId ub = s.create_queue(Priority::UserBlocking, false);
  // Enqueued lowest priority first, so age alone would give the opposite order.
  const TaskTicket t1 = s.enqueue(bg, as_cookie(1));
  s.enqueue(uv, as_cookie(2));
  const TaskTicket t3 = s.enqueue(ub, as_cookie(3));
  EXPECT_EQ(s.size(), 3u);

  // select-the-next-scheduler-task-queue-from-all-schedulers step 5 keeps only the queues of the
  // highest effective priority.
  const std::optional<TaskScheduler::Next> n = s.next();
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(cookie_id(n->cookie), 3);
  EXPECT_EQ(n->effective_priority, 4);
  // The event loop's next enqueue order starts at 1 and goes up by one per task
  // (scheduling#sec-patches-html-event-loop-definitions, schedule-a-task-to-invoke-an-algorithm).
  EXPECT_EQ(n->enqueue_order, 3u);
  EXPECT_EQ(n->task.slot, t3.slot);
  EXPECT_EQ(n->task.generation, t3.generation);
  // next() only looks.
  EXPECT_EQ(cookie_id(s.next()->cookie), 3);
  EXPECT_EQ(s.size(), 3u);

  const std::optional<TaskScheduler::Next> p = s.pop();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(cookie_id(p->cookie), 3);
  EXPECT_FALSE(s.queued(t3));
  EXPECT_EQ(s.size(), 2u);

  const std::optional<TaskScheduler::Next> p2 = s.pop();
  ASSERT_TRUE(p2.has_value());
  EXPECT_EQ(cookie_id(p2->cookie), 2);
  EXPECT_EQ(p2->effective_priority, 2);
  EXPECT_EQ(p2->enqueue_order, 2u);

  const std::optional<TaskScheduler::Next> p3 = s.pop();
  ASSERT_TRUE(p3.has_value());
  EXPECT_EQ(cookie_id(p3->cookie), 1);
  EXPECT_EQ(p3->effective_priority, 0);
  EXPECT_EQ(p3->enqueue_order, 1u);
  EXPECT_FALSE(s.queued(t1));
  EXPECT_FALSE(s.pop().has_value());
  EXPECT_EQ(s.size(), 0u);
}

TEST(TaskSchedulerTest, EqualEffectivePriorityRunsByEnqueueOrderAcrossQueues) {
  TaskScheduler s;
  const QueueId q1 = s.create_queue(Priority::UserVisible, false);
  const QueueId q2 = s.create_queue(Priority::UserVisible, false);
  const QueueId q3 = s.create_queue(Priority::UserVisible, false);
  // Step 6: among the kept queues, the one whose first task is oldest.
  s.enqueue(q2, as_cookie(1));
  s.enqueue(q1, as_cookie(2));
  s.enqueue(q2, as_cookie(3));
  s.enqueue(q3, as_cookie(4));
  s.enqueue(q1, as_cookie(5));
  s.enqueue(q1, as_cookie(6));
  s.enqueue(q3, as_cookie(7));
  EXPECT_EQ(drain(s), Ids({1, 2, 3, 4, 5, 6, 7}));
}

TEST(TaskSchedulerTest, ContinuationBeatsTheSamePriorityButNotAHigherOne) {
  TaskScheduler s;
  const QueueId uv = s.create_queue(Priority::UserVisible, false);
  const QueueId uv_cont = s.create_queue(Priority::UserVisible, true);
  const QueueId bg_cont = s.create_queue(Priority::Background, true);
  const QueueId ub = s.create_queue(Priority::UserBlocking, false);
  const QueueId bg = s.create_queue(Priority::Background, false);
  s.enqueue(bg, as_cookie(1));       // 0
  s.enqueue(uv, as_cookie(2));       // 2
  s.enqueue(bg_cont, as_cookie(3));  // 1
  s.enqueue(uv_cont, as_cookie(4));  // 3
  s.enqueue(ub, as_cookie(5));       // 4
  s.enqueue(uv_cont, as_cookie(6));  // 3
  EXPECT_EQ(s.next()->effective_priority, 4);
  // 4 > 3 > 2 > 1 > 0: a user-visible continuation goes before an older user-visible task, a
  // background continuation after user-visible tasks but before background tasks.
  EXPECT_EQ(drain(s), Ids({5, 4, 6, 2, 3, 1}));
}

TEST(TaskSchedulerTest, RaisingAQueueMovesNoTaskAndKeepsEnqueueOrder) {
  TaskScheduler s;
  const QueueId dyn = s.create_queue(Priority::Background, false);
  const QueueId uv = s.create_queue(Priority::UserVisible, false);
  s.enqueue(dyn, as_cookie(1));
  s.enqueue(uv, as_cookie(2));
  s.enqueue(dyn, as_cookie(3));
  s.enqueue(uv, as_cookie(4));
  EXPECT_EQ(cookie_id(s.next()->cookie), 2);
  // TaskSignal signal-priority-change runs the queue's priority change algorithm
  // (select-the-scheduler-task-queue 1.1.3): the queue's priority is now user-visible. Its tasks
  // keep their enqueue orders, so the two queues interleave by age.
  s.set_priority(dyn, Priority::UserVisible);
  EXPECT_EQ(s.priority(dyn), Priority::UserVisible);
  const std::optional<TaskScheduler::Next> n = s.next();
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(cookie_id(n->cookie), 1);
  EXPECT_EQ(n->effective_priority, 2);
  EXPECT_EQ(n->enqueue_order, 1u);
  EXPECT_EQ(drain(s), Ids({1, 2, 3, 4}));
}

TEST(TaskSchedulerTest, PriorityChangesTakeEffectBothWaysAndOnEmptyQueues) {
  TaskScheduler s;
  const QueueId dyn = s.create_queue(Priority::UserVisible, false);
  const QueueId uv = s.create_queue(Priority::UserVisible, false);
  s.enqueue(uv, as_cookie(1));
  s.enqueue(dyn, as_cookie(2));
  s.enqueue(dyn, as_cookie(3));
  s.enqueue(uv, as_cookie(4));
  s.set_priority(dyn, Priority::UserBlocking);  // the whole queue goes ahead
  EXPECT_EQ(cookie_id(s.pop()->cookie), 2);
  s.set_priority(dyn, Priority::Background);  // and now behind
  EXPECT_EQ(cookie_id(s.pop()->cookie), 1);
  s.set_priority(dyn, Priority::Background);  // the same priority: nothing changes
  EXPECT_EQ(drain(s), Ids({4, 3}));

  // An empty queue's new priority holds for tasks queued afterwards.
  s.set_priority(dyn, Priority::UserBlocking);
  s.enqueue(uv, as_cookie(5));
  s.enqueue(dyn, as_cookie(6));
  EXPECT_EQ(s.next()->effective_priority, 4);
  EXPECT_EQ(drain(s), Ids({6, 5}));
}

TEST(TaskSchedulerTest, RaisedContinuationQueueCountsItsContinuationBonus) {
  TaskScheduler s;
  const QueueId cont = s.create_queue(Priority::Background, true);
  const QueueId ub = s.create_queue(Priority::UserBlocking, false);
  s.enqueue(ub, as_cookie(1));
  s.enqueue(cont, as_cookie(2));
  s.set_priority(cont, Priority::UserBlocking);  // 5 > 4
  EXPECT_EQ(s.next()->effective_priority, 5);
  EXPECT_EQ(drain(s), Ids({2, 1}));
}

TEST(TaskSchedulerTest, RemoveTakesAQueuedTaskOut) {
  TaskScheduler s;
  const QueueId q1 = s.create_queue(Priority::UserVisible, false);
  const QueueId q2 = s.create_queue(Priority::UserVisible, false);
  const TaskTicket t1 = s.enqueue(q1, as_cookie(1));
  const TaskTicket t2 = s.enqueue(q2, as_cookie(2));
  const TaskTicket t3 = s.enqueue(q1, as_cookie(3));
  const TaskTicket t4 = s.enqueue(q1, as_cookie(4));
  EXPECT_TRUE(s.queued(t1));
  // The abort steps of a task handle remove its task from its queue (create-a-task-handle).
  EXPECT_TRUE(s.remove(t1));
  EXPECT_FALSE(s.queued(t1));
  EXPECT_EQ(s.size(), 3u);
  // q1's first task is now 3, younger than q2's 2.
  EXPECT_EQ(cookie_id(s.next()->cookie), 2);
  EXPECT_TRUE(s.remove(t4));   // from the back
  EXPECT_FALSE(s.remove(t1));  // already gone
  EXPECT_FALSE(s.remove(TaskTicket{}));
  EXPECT_FALSE(s.remove(TaskTicket{999, 1}));
  EXPECT_FALSE(s.empty(q1));
  EXPECT_TRUE(s.remove(t3));
  EXPECT_TRUE(s.empty(q1));
  EXPECT_TRUE(s.queued(t2));
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(drain(s), Ids({2}));
  EXPECT_FALSE(s.remove(t2));  // it ran
}

TEST(TaskSchedulerTest, StaleTicketOfAReusedSlotIsANoOp) {
  TaskScheduler s;
  const QueueId q = s.create_queue(Priority::UserVisible, false);
  const TaskTicket t1 = s.enqueue(q, as_cookie(1));
  ASSERT_EQ(cookie_id(s.pop()->cookie), 1);
  const TaskTicket t2 = s.enqueue(q, as_cookie(2));
  ASSERT_EQ(t2.slot, t1.slot);  // the slot was reused; the generation differs
  ASSERT_NE(t2.generation, t1.generation);
  EXPECT_FALSE(s.queued(t1));
  EXPECT_FALSE(s.remove(t1));
  EXPECT_TRUE(s.queued(t2));
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(drain(s), Ids({2}));
}

TEST(TaskSchedulerTest, ClearEmptiesOneQueue) {
  TaskScheduler s;
  const QueueId q1 = s.create_queue(Priority::UserBlocking, false);
  const QueueId q2 = s.create_queue(Priority::UserVisible, false);
  const TaskTicket a = s.enqueue(q1, as_cookie(1));
  s.enqueue(q2, as_cookie(2));
  const TaskTicket c = s.enqueue(q1, as_cookie(3));
  s.enqueue(q1, as_cookie(4));
  EXPECT_EQ(s.clear(q1), 3u);
  EXPECT_TRUE(s.empty(q1));
  EXPECT_FALSE(s.empty(q2));
  EXPECT_FALSE(s.queued(a));
  EXPECT_FALSE(s.queued(c));
  EXPECT_FALSE(s.remove(c));
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.clear(q1), 0u);
  EXPECT_EQ(drain(s), Ids({2}));
  // The cleared queue takes tasks again.
  s.enqueue(q1, as_cookie(5));
  EXPECT_EQ(drain(s), Ids({5}));
}

TEST(TaskSchedulerTest, EnqueueOrderIsSharedByAllQueuesAndNeverReused) {
  TaskScheduler s;
  const QueueId q1 = s.create_queue(Priority::Background, false);
  const QueueId q2 = s.create_queue(Priority::UserBlocking, true);
  s.enqueue(q1, as_cookie(1));
  EXPECT_EQ(s.pop()->enqueue_order, 1u);
  s.enqueue(q2, as_cookie(2));
  const TaskTicket t3 = s.enqueue(q1, as_cookie(3));
  s.remove(t3);
  s.enqueue(q1, as_cookie(4));
  EXPECT_EQ(s.pop()->enqueue_order, 2u);
  EXPECT_EQ(s.pop()->enqueue_order, 4u);
}

// --- randomized cross-check against a naive scan ---------------------------------------------

// The spec's selection done literally: every queue holds its tasks in a list; the runnable queues
// are the non-empty ones; keep those of the highest effective priority (the table, written out
// here), then take the one whose first task is oldest.
class NaiveScheduler {
 public:
  struct Task {
    int id = 0;
    std::uint64_t order = 0;
  };
  struct Queue {
    Priority priority = Priority::UserVisible;
    bool continuation = false;
    std::vector<Task> tasks;
  };
  std::vector<Queue> queues;
  std::uint64_t next_order = 1;

  static int table(Priority p, bool continuation) {
    switch (p) {
      case Priority::Background:
        return continuation ? 1 : 0;
      case Priority::UserVisible:
        return continuation ? 3 : 2;
      case Priority::UserBlocking:
        return continuation ? 5 : 4;
    }
    return -1;
  }

  // Returns the queue index, or -1.
  int select() const {
    std::vector<int> runnable;
    for (int i = 0; i < static_cast<int>(queues.size()); ++i)
      if (!queues[static_cast<std::size_t>(i)].tasks.empty()) runnable.push_back(i);
    if (runnable.empty()) return -1;
    const auto eff = [&](int i) {
      const Queue& q = queues[static_cast<std::size_t>(i)];
      return table(q.priority, q.continuation);
    };
    std::vector<int> kept;
    for (int i : runnable) {
      bool lower = false;
      for (int j : runnable) lower = lower || eff(i) < eff(j);
      if (!lower) kept.push_back(i);
    }
    int best = kept.front();
    for (int i : kept)
      if (queues[static_cast<std::size_t>(i)].tasks.front().order <
          queues[static_cast<std::size_t>(best)].tasks.front().order)
        best = i;
    return best;
  }
};

TEST(TaskSchedulerCrossCheck, AgreesWithANaiveScanOnRandomOperations) {
  std::mt19937 rng(4242u);
  const auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const Priority priorities[3] = {Priority::UserBlocking, Priority::UserVisible,
                                  Priority::Background};

  TaskScheduler s;
  NaiveScheduler naive;
  std::vector<QueueId> queue_ids;
  for (int i = 0; i < 8; ++i) {
    const Priority p = priorities[below(3)];
    const bool continuation = below(3) == 0;
    queue_ids.push_back(s.create_queue(p, continuation));
    naive.queues.push_back({p, continuation, {}});
  }
  std::vector<TaskTicket> tickets;  // by id - 1; every task ever enqueued
  std::vector<int> home;            // its queue index

  for (int op = 0; op < 4000; ++op) {
    SCOPED_TRACE("op " + std::to_string(op));
    const int dice = below(100);
    if (dice < 40) {
      const int q = below(static_cast<int>(queue_ids.size()));
      const int id = static_cast<int>(tickets.size()) + 1;
      tickets.push_back(s.enqueue(queue_ids[static_cast<std::size_t>(q)], as_cookie(id)));
      home.push_back(q);
      naive.queues[static_cast<std::size_t>(q)].tasks.push_back({id, naive.next_order++});
    } else if (dice < 70) {
      const std::optional<TaskScheduler::Next> got = s.pop();
      const int q = naive.select();
      ASSERT_EQ(got.has_value(), q >= 0);
      if (q < 0) continue;
      NaiveScheduler::Queue& queue = naive.queues[static_cast<std::size_t>(q)];
      ASSERT_EQ(cookie_id(got->cookie), queue.tasks.front().id);
      ASSERT_EQ(got->enqueue_order, queue.tasks.front().order);
      ASSERT_EQ(got->effective_priority, NaiveScheduler::table(queue.priority, queue.continuation));
      queue.tasks.erase(queue.tasks.begin());
    } else if (dice < 85) {
      if (tickets.empty()) continue;
      const int id = below(static_cast<int>(tickets.size())) + 1;  // queued or not
      std::vector<NaiveScheduler::Task>& tasks =
          naive.queues[static_cast<std::size_t>(home[static_cast<std::size_t>(id - 1)])].tasks;
      bool was_queued = false;
      for (auto it = tasks.begin(); it != tasks.end(); ++it)
        if (it->id == id) {
          tasks.erase(it);
          was_queued = true;
          break;
        }
      ASSERT_EQ(s.remove(tickets[static_cast<std::size_t>(id - 1)]), was_queued) << "task " << id;
    } else if (dice < 97) {
      const int q = below(static_cast<int>(queue_ids.size()));
      const Priority p = priorities[below(3)];
      s.set_priority(queue_ids[static_cast<std::size_t>(q)], p);
      naive.queues[static_cast<std::size_t>(q)].priority = p;
    } else {
      const int q = below(static_cast<int>(queue_ids.size()));
      ASSERT_EQ(s.clear(queue_ids[static_cast<std::size_t>(q)]),
                naive.queues[static_cast<std::size_t>(q)].tasks.size());
      naive.queues[static_cast<std::size_t>(q)].tasks.clear();
    }

    // After every operation: the same next task, sizes, emptiness and queued tickets.
    const std::optional<TaskScheduler::Next> next = s.next();
    const int q = naive.select();
    ASSERT_EQ(next.has_value(), q >= 0);
    if (q >= 0) {
      const NaiveScheduler::Task& front = naive.queues[static_cast<std::size_t>(q)].tasks.front();
      ASSERT_EQ(cookie_id(next->cookie), front.id);
      ASSERT_EQ(next->enqueue_order, front.order);
      ASSERT_TRUE(s.queued(next->task));
    }
    std::size_t total = 0;
    std::vector<bool> queued(tickets.size(), false);
    for (std::size_t i = 0; i < naive.queues.size(); ++i) {
      ASSERT_EQ(s.empty(queue_ids[i]), naive.queues[i].tasks.empty()) << "queue " << i;
      ASSERT_EQ(s.priority(queue_ids[i]), naive.queues[i].priority);
      total += naive.queues[i].tasks.size();
      for (const NaiveScheduler::Task& t : naive.queues[i].tasks)
        queued[static_cast<std::size_t>(t.id - 1)] = true;
    }
    ASSERT_EQ(s.size(), total);
    for (std::size_t i = 0; i < tickets.size(); ++i)
      ASSERT_EQ(s.queued(tickets[i]), queued[i]) << "task " << i + 1;
  }
}

}  // namespace
}  // namespace lockstep::impl
