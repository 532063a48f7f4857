// Why these structures give the spec's observable behaviour:
//
// - scheduling#select-the-next-scheduler-task-queue-from-all-schedulers keeps the runnable queues
//   of the highest effective priority, then takes the one whose first task is oldest by enqueue
//   order. Here each of the six effective priorities has an ordered set of its non-empty queues
//   keyed by (enqueue order of the first task, queue), and a bit mask says which priorities have
//   any. The answer is the first element of the highest set: O(1).
// - A queue changes key only when its first task leaves (it ran or was aborted) or when its
//   priority changes (a TaskSignal's priority change algorithm sets the queue's priority:
//   scheduling#select-the-scheduler-task-queue step 1.1.3). Tasks never move between queues.
// - Tasks of a queue are an intrusive FIFO: insertion order is the queue's set order, and an
//   aborted task leaves in O(1) (scheduling#create-a-task-handle, abort steps).
// - The spec removes a queue from its scheduler's map once it is empty and makes a new one on the
//   next use. A kept empty queue is the same to script: it is found under the same key, has the
//   key's priority (a dynamic queue follows its signal's priority either way) and holds no tasks.
//   The one way the spec's removal shows (a stale removal that strands a newer queue's tasks) is
//   the embedder's to model: the impl engine does it in engine/scheduling_binding.h with clear().
#include "lockstep/impl/task_scheduler.h"

#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace lockstep::impl {
namespace {

constexpr std::uint32_t kNil = std::numeric_limits<std::uint32_t>::max();
constexpr int kLevels = 6;

struct TaskRecord {
  std::uint32_t generation = 1;
  bool queued = false;
  QueueId queue = 0;
  std::uint64_t enqueue_order = 0;
  void* cookie = nullptr;
  std::uint32_t prev = kNil, next = kNil;  // in its queue, or the free list (next)
};

struct Queue {
  Priority priority = Priority::UserVisible;
  bool is_continuation = false;
  std::uint32_t head = kNil, tail = kNil;
  std::size_t size = 0;
};

}  // namespace

int effective_priority(Priority priority, bool is_continuation) {
  const int base = priority == Priority::Background ? 0 : priority == Priority::UserVisible ? 2 : 4;
  return base + (is_continuation ? 1 : 0);
}

struct TaskScheduler::State {
  std::vector<TaskRecord> tasks;
  std::uint32_t free_head = kNil;
  std::vector<Queue> queues;
  std::set<std::pair<std::uint64_t, QueueId>> ready[kLevels];
  unsigned nonempty = 0;  // bit p: ready[p] has a queue
  std::uint64_t next_enqueue_order = 1;
  std::size_t size = 0;

  int level(QueueId q) const {
    return effective_priority(queues[q].priority, queues[q].is_continuation);
  }

  void unready(QueueId q) {
    const Queue& queue = queues[q];
    if (queue.head == kNil) return;
    const int p = level(q);
    ready[p].erase({tasks[queue.head].enqueue_order, q});
    if (ready[p].empty()) nonempty &= ~(1u << p);
  }

  void make_ready(QueueId q) {
    const Queue& queue = queues[q];
    if (queue.head == kNil) return;
    const int p = level(q);
    ready[p].emplace(tasks[queue.head].enqueue_order, q);
    nonempty |= 1u << p;
  }

  TaskRecord* live(TaskTicket t) {
    if (!t || t.slot >= tasks.size()) return nullptr;
    TaskRecord& r = tasks[t.slot];
    return r.generation == t.generation && r.queued ? &r : nullptr;
  }

  void unlink(std::uint32_t i) {
    TaskRecord& r = tasks[i];
    Queue& queue = queues[r.queue];
    const bool was_front = queue.head == i;
    if (was_front) unready(r.queue);
    if (r.prev != kNil)
      tasks[r.prev].next = r.next;
    else
      queue.head = r.next;
    if (r.next != kNil)
      tasks[r.next].prev = r.prev;
    else
      queue.tail = r.prev;
    --queue.size;
    --size;
    if (was_front) make_ready(r.queue);
    r.queued = false;
    r.cookie = nullptr;
    if (++r.generation == 0) r.generation = 1;
    r.next = free_head;
    free_head = i;
  }
};

TaskScheduler::TaskScheduler() : state_(std::make_unique<State>()) {}
TaskScheduler::~TaskScheduler() = default;

QueueId TaskScheduler::create_queue(Priority priority, bool is_continuation) {
  state_->queues.emplace_back();
  state_->queues.back().priority = priority;
  state_->queues.back().is_continuation = is_continuation;
  return static_cast<QueueId>(state_->queues.size() - 1);
}

void TaskScheduler::set_priority(QueueId queue, Priority priority) {
  State& s = *state_;
  if (s.queues[queue].priority == priority) return;
  s.unready(queue);
  s.queues[queue].priority = priority;
  s.make_ready(queue);
}

Priority TaskScheduler::priority(QueueId queue) const {
  return state_->queues[queue].priority;
}

TaskTicket TaskScheduler::enqueue(QueueId queue, void* cookie) {
  State& s = *state_;
  std::uint32_t i = s.free_head;
  if (i == kNil) {
    s.tasks.emplace_back();
    i = static_cast<std::uint32_t>(s.tasks.size() - 1);
  } else {
    s.free_head = s.tasks[i].next;
  }
  TaskRecord& r = s.tasks[i];
  r.queued = true;
  r.queue = queue;
  r.enqueue_order = s.next_enqueue_order++;
  r.cookie = cookie;
  Queue& q = s.queues[queue];
  r.prev = q.tail;
  r.next = kNil;
  if (q.tail != kNil)
    s.tasks[q.tail].next = i;
  else
    q.head = i;
  q.tail = i;
  ++q.size;
  ++s.size;
  if (q.size == 1) s.make_ready(queue);
  return TaskTicket{i, r.generation};
}

bool TaskScheduler::remove(TaskTicket task) {
  if (!state_->live(task)) return false;
  state_->unlink(task.slot);
  return true;
}

bool TaskScheduler::queued(TaskTicket task) const {
  return const_cast<State&>(*state_).live(task) != nullptr;
}

bool TaskScheduler::empty(QueueId queue) const {
  return state_->queues[queue].size == 0;
}

std::size_t TaskScheduler::clear(QueueId queue) {
  State& s = *state_;
  std::size_t n = 0;
  while (s.queues[queue].head != kNil) {
    s.unlink(s.queues[queue].head);
    ++n;
  }
  return n;
}

std::optional<TaskScheduler::Next> TaskScheduler::next() const {
  const State& s = *state_;
  if (s.nonempty == 0) return std::nullopt;
  const int p = 31 - __builtin_clz(s.nonempty);  // the highest effective priority with a queue
  const auto& [order, q] = *s.ready[p].begin();  // its queue with the oldest first task
  const std::uint32_t i = s.queues[q].head;
  return Next{TaskTicket{i, s.tasks[i].generation}, s.tasks[i].cookie, p, order};
}

std::optional<TaskScheduler::Next> TaskScheduler::pop() {
  std::optional<Next> n = next();
  if (n) state_->unlink(n->task.slot);
  return n;
}

std::size_t TaskScheduler::size() const {
  return state_->size;
}

}  // namespace lockstep::impl
