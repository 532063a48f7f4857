// A minimal event loop on its own thread: a FIFO of tasks, run one at a time. Enough to stand for
// a window's or worker's event loop in the examples and the thread stress test; it is not part of
// impl/ (an embedder brings its own).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace lockstep::examples {

class EventLoop {
 public:
  using Task = std::function<void()>;

  EventLoop() : thread_([this] { run(); }) {}
  ~EventLoop() { stop(); }
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Safe from any thread, never runs the task inline: what LockService::Post asks for.
  void post(Task task) {
    {
      std::lock_guard guard(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

  // Runs the tasks already queued and any they queue, then stops the thread.
  void stop() {
    {
      std::lock_guard guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    for (;;) {
      Task task;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping and drained
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace lockstep::examples
