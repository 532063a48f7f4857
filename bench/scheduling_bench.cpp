// Prioritized Task Scheduling workloads with a backlog of queued tasks, on the spec model (its
// Scheduling algorithms and the event loop's scheduler step, see spec_driver.h) and on impl's
// TaskScheduler core, as BM_<Workload>/spec/N next to BM_<Workload>/impl/N.
#include "bench_common.h"
#include "lockstep/impl/task_scheduler.h"
#include "spec_driver.h"

namespace lockstep::bench {
namespace {

using impl::Priority;
using impl::TaskScheduler;

// ---- postTask with N user-visible tasks queued. op: one more task is posted at the back and the
// event loop runs the next one (the oldest), so N stay queued.

void post_task_impl(benchmark::State& state) {
  TaskScheduler scheduler;
  const auto queue = scheduler.create_queue(Priority::UserVisible, false);
  for (std::int64_t i = 0; i < state.range(0); ++i) scheduler.enqueue(queue, nullptr);
  for (auto _ : state) {
    scheduler.enqueue(queue, nullptr);
    benchmark::DoNotOptimize(scheduler.pop());
  }
  if (scheduler.size() != static_cast<std::size_t>(state.range(0))) state.SkipWithError("size");
  count_ops(state, 1);
}

void post_task_spec(benchmark::State& state) {
  SpecModel model;
  auto* agent = model.add_agent("A");
  for (std::int64_t i = 0; i < state.range(0); ++i) model.post_task(agent, {});
  for (auto _ : state) {
    model.post_task(agent, {});
    model.run_next_scheduler_task(agent);
  }
  if (static_cast<std::int64_t>(model.tasks_run()) != state.iterations())
    state.SkipWithError("a task did not run");
  count_ops(state, 1);
}

// ---- yield with N user-visible tasks queued. op: scheduler.yield() queues a continuation (which
// outranks the queued tasks) and the event loop runs it next.

void yield_impl(benchmark::State& state) {
  TaskScheduler scheduler;
  const auto tasks = scheduler.create_queue(Priority::UserVisible, false);
  const auto continuations = scheduler.create_queue(Priority::UserVisible, true);
  for (std::int64_t i = 0; i < state.range(0); ++i) scheduler.enqueue(tasks, nullptr);
  int marker = 0;
  for (auto _ : state) {
    scheduler.enqueue(continuations, &marker);
    if (scheduler.pop()->cookie != &marker) state.SkipWithError("the continuation did not run");
  }
  count_ops(state, 1);
}

void yield_spec(benchmark::State& state) {
  SpecModel model;
  auto* agent = model.add_agent("A");
  for (std::int64_t i = 0; i < state.range(0); ++i) model.post_task(agent, {});
  for (auto _ : state) {
    model.yield(agent);
    model.run_next_scheduler_task(agent);
  }
  if (model.tasks_run() != 0) state.SkipWithError("a task ran before the continuation");
  count_ops(state, 1);
}

// ---- setPriority on a TaskController whose signal has N tasks queued. op: the priority flips
// (user-blocking <-> background) and the event loop asks which queue runs next.

void set_priority_impl(benchmark::State& state) {
  TaskScheduler scheduler;
  const auto other = scheduler.create_queue(Priority::UserVisible, false);
  const auto dynamic = scheduler.create_queue(Priority::UserVisible, false);
  scheduler.enqueue(other, nullptr);
  for (std::int64_t i = 0; i < state.range(0); ++i) scheduler.enqueue(dynamic, nullptr);
  bool high = false;
  for (auto _ : state) {
    high = !high;
    scheduler.set_priority(dynamic, high ? Priority::UserBlocking : Priority::Background);
    benchmark::DoNotOptimize(scheduler.next());
  }
  count_ops(state, 1);
}

void set_priority_spec(benchmark::State& state) {
  SpecModel model;
  auto* agent = model.add_agent("A");
  auto& scheduling = model.scheduling();
  spec::TaskController* controller = nullptr;
  model.world().run_task_now(agent, [&] {
    controller = scheduling.new_task_controller(agent, TaskPriority::UserVisible);
  });
  model.post_task(agent, {});
  spec::SchedulerPostTaskOptions options;
  options.signal = controller->signal;
  for (std::int64_t i = 0; i < state.range(0); ++i) model.post_task(agent, options);
  bool high = false;
  for (auto _ : state) {
    high = !high;
    scheduling.set_priority(controller,
                            high ? TaskPriority::UserBlocking : TaskPriority::Background);
    benchmark::DoNotOptimize(
        scheduling.select_the_next_scheduler_task_queue_from_all_schedulers(*agent->event_loop));
  }
  count_ops(state, 1);
}

[[maybe_unused]] const bool registered = [] {
  using benchmark::RegisterBenchmark;
  as_spec(RegisterBenchmark("BM_PostTask/spec", post_task_spec)->Arg(10'000), 20'000);
  as_impl(RegisterBenchmark("BM_PostTask/impl", post_task_impl)->Arg(10'000));
  as_spec(RegisterBenchmark("BM_Yield/spec", yield_spec)->Arg(10'000), 20'000);
  as_impl(RegisterBenchmark("BM_Yield/impl", yield_impl)->Arg(10'000));
  as_spec(RegisterBenchmark("BM_SetPriority/spec", set_priority_spec)->Arg(10'000), 200'000);
  as_impl(RegisterBenchmark("BM_SetPriority/impl", set_priority_impl)->Arg(10'000));
  return true;
}();

}  // namespace
}  // namespace lockstep::bench
