// The scheduler task queues of one event loop, built for cost per operation: the single-threaded
// core of impl/'s Prioritized Task Scheduling. Every Scheduler object whose global uses the event
// loop makes its queues here, because enqueue order is per event loop
// (scheduling#sec-patches-html-event-loop-definitions) and the event loop picks among all of them
// (scheduling#select-the-next-scheduler-task-queue-from-all-schedulers).
//
// It holds tasks as opaque cookies; running them, promises and signals are the embedder's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

namespace lockstep::impl {

enum class Priority : std::uint8_t { UserBlocking, UserVisible, Background };

// scheduling#scheduler-task-queue-effective-priority: background 0, user-visible 2,
// user-blocking 4, one more for a continuation queue.
int effective_priority(Priority priority, bool is_continuation);

struct TaskTicket {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;  // 0: no task
  explicit operator bool() const { return generation != 0; }
};

using QueueId = std::uint32_t;

class TaskScheduler {
 public:
  TaskScheduler();
  ~TaskScheduler();
  TaskScheduler(const TaskScheduler&) = delete;
  TaskScheduler& operator=(const TaskScheduler&) = delete;

  // scheduling#create-a-scheduler-task-queue. Queues live as long as the scheduler.
  QueueId create_queue(Priority priority, bool is_continuation);
  // A dynamic queue follows its TaskSignal's priority: O(log queues), no task moves.
  void set_priority(QueueId queue, Priority priority);
  Priority priority(QueueId queue) const;

  // scheduling#queue-a-scheduler-task with the event loop's next enqueue order.
  TaskTicket enqueue(QueueId queue, void* cookie);
  // Takes a queued task out (an aborted task handle). Stale tickets are a no-op; returns whether
  // the task was still queued.
  bool remove(TaskTicket task);
  bool queued(TaskTicket task) const;
  bool empty(QueueId queue) const;
  // Drops every task of the queue (its global can run no more tasks); returns how many.
  std::size_t clear(QueueId queue);

  struct Next {
    TaskTicket task;
    void* cookie = nullptr;
    int effective_priority = 0;
    std::uint64_t enqueue_order = 0;
  };
  // The task the event loop would run next: the oldest first task among the queues of the highest
  // effective priority. O(1).
  std::optional<Next> next() const;
  // Takes that task out and returns it.
  std::optional<Next> pop();

  std::size_t size() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lockstep::impl
