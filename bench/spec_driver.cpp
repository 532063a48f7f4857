#include "spec_driver.h"

#include <charconv>

namespace lockstep::bench {
namespace {

// The callback's owner string carries what the host needs: "h<handle>" holds the lock,
// "r<handle>" returns at once.
std::size_t handle_of(const std::string& owner) {
  std::size_t handle = 0;
  std::from_chars(owner.data() + 1, owner.data() + owner.size(), handle);
  return handle;
}

}  // namespace

SpecModel::SpecModel() : locks_(world_, *this), scheduling_(world_, *this) {}
SpecModel::~SpecModel() = default;

spec::Environment* SpecModel::add_agent(const std::string& id, AgentKind kind) {
  Agent& agent = agents_.emplace_back();
  agent.id = id;
  agent.kind = kind;
  agent.origin = "https://bench.test";
  agent.event_loop = id;
  return world_.add_environment(agent);
}

std::size_t SpecModel::request(spec::Environment* agent, const std::string& name,
                               spec::LockOptions options, bool hold) {
  const std::size_t handle = results_.size();
  results_.push_back(nullptr);
  owners_.push_back(agent);
  const spec::CallbackFunction callback{agent, nullptr,
                                        (hold ? "h" : "r") + std::to_string(handle)};
  world_.run_task_now(agent, [&] { locks_.request(agent, name, options, callback); });
  world_.settle();
  return handle;
}

void SpecModel::release(std::size_t handle) {
  spec::Promise* result = results_[handle];
  world_.run_task_now(owners_[handle], [&] { result->own.resolve(world_, spec::JsValue()); });
  world_.settle();
}

spec::Promise* SpecModel::query(spec::Environment* agent) {
  spec::Promise* promise = nullptr;
  world_.run_task_now(agent, [&] { promise = locks_.query(agent); });
  world_.settle();
  return promise;
}

void SpecModel::terminate(spec::Environment* agent) {
  // As the trace runner does for a top-level "terminate" step.
  world_.terminate_environment(agent);
  locks_.agent_terminates(agent);
  world_.settle();
}

void SpecModel::post_task(spec::Environment* agent, const spec::SchedulerPostTaskOptions& options) {
  const spec::CallbackFunction callback{agent, nullptr, "t"};
  world_.run_task_now(
      agent, [&] { scheduling_.post_task(scheduling_.scheduler(agent), callback, options); });
}

void SpecModel::yield(spec::Environment* agent) {
  world_.run_task_now(agent, [&] { scheduling_.yield(scheduling_.scheduler(agent)); });
}

void SpecModel::run_next_scheduler_task(spec::Environment* agent) {
  scheduling_.run_next_scheduler_task(*agent->event_loop);
}

spec::Completion SpecModel::call_lock_granted_callback(const spec::CallbackFunction& callback,
                                                       spec::LockObject* lock) {
  if (!lock || callback.owner[0] != 'h') return spec::Completion::normal(spec::JsValue());
  spec::Promise* pending = spec::new_promise(world_, callback.environment);
  results_[handle_of(callback.owner)] = pending;
  return spec::Completion::normal(spec::JsValue(pending));
}

spec::Completion SpecModel::call_post_task_callback(const spec::CallbackFunction&) {
  ++tasks_run_;
  return spec::Completion::normal(spec::JsValue());
}

void SpecModel::call_idle_request_callback(const spec::CallbackFunction&) {}

}  // namespace lockstep::bench
