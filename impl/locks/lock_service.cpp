// LockService: LockManagers behind one mutex, the stand-in for the lock task queue (see the header
// for why running the queue's steps under a mutex in the caller's thread is indistinguishable).
#include "lockstep/impl/lock_service.h"

#include <mutex>
#include <unordered_map>

namespace lockstep::impl {
namespace {

std::uint64_t key_of(Ticket t) {
  return (std::uint64_t{t.slot} << 32) | t.generation;
}

}  // namespace

struct LockService::State {
  struct Agent;

  // What the service keeps per live request or lock: whose it is and how to reach it.
  struct Request {
    Agent* agent = nullptr;
    RequestCallbacks callbacks;
    Ticket ticket;
    bool granted = false;
  };

  struct Manager final : LockManager::Observer {
    Manager() : locks(*this) {}
    LockManager locks;
    void granted(Ticket ticket, void* user) override;
    void stolen(Ticket ticket, void* user) override;
  };

  struct Agent {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    Manager* manager = nullptr;
    AgentId id = 0;
    std::string client_id;
    Post post;
    bool terminated = false;
    // Live requests and locks by ticket: termination drops them all, whatever the manager did.
    std::unordered_map<std::uint64_t, std::unique_ptr<Request>> requests;
  };

  std::mutex mutex;  // the lock task queue
  std::unordered_map<std::string, std::unique_ptr<Manager>> managers;
  std::vector<std::unique_ptr<Agent>> agents;

  // The agent a handle names, or why there is none.
  std::variant<Agent*, ServiceError> find(AgentHandle handle, const char* where) {
    if (!handle || handle.index >= agents.size() ||
        agents[handle.index]->generation != handle.generation)
      return ServiceError{std::string(where) + ": agent handle " + std::to_string(handle.index) +
                          " was not made by this service"};
    return agents[handle.index].get();
  }
};

// web-locks#algorithm-process-request step 2.13: queue a task on the agent's event loop that runs
// the callback with the lock. A terminating agent's own requests can be granted while its other
// locks go (terminate step 1 before step 2); nothing reaches a gone agent.
void LockService::State::Manager::granted(Ticket ticket, void* user) {
  auto& request = *static_cast<Request*>(user);
  request.granted = true;
  Agent& agent = *request.agent;
  if (agent.terminated || !request.callbacks.granted) return;
  agent.post([callback = std::move(request.callbacks.granted),
              handle = RequestHandle{AgentHandle{agent.index, agent.generation}, ticket}] {
    callback(handle);
  });
}

// web-locks#algorithm-request-lock step 3.4.1.1: the stolen lock has left the held set; its
// holder learns of it through its released promise, by a task.
void LockService::State::Manager::stolen(Ticket ticket, void* user) {
  auto& request = *static_cast<Request*>(user);
  Agent& agent = *request.agent;
  if (!agent.terminated && request.callbacks.stolen)
    agent.post(std::move(request.callbacks.stolen));
  agent.requests.erase(key_of(ticket));  // the record is gone from the manager too
}

LockService::LockService() : state_(std::make_unique<State>()) {}
LockService::~LockService() = default;

ServiceResult<AgentHandle> LockService::register_agent(AgentOptions options) {
  if (!options.post) return ServiceError{"register_agent: options.post is empty"};
  std::lock_guard guard(state_->mutex);
  auto& manager = state_->managers[options.storage_key];
  if (!manager) manager = std::make_unique<State::Manager>();
  auto agent = std::make_unique<State::Agent>();
  agent->index = static_cast<std::uint32_t>(state_->agents.size());
  agent->generation = 1;
  agent->manager = manager.get();
  agent->id = manager->locks.add_agent(options.client_id);
  agent->client_id = std::move(options.client_id);
  agent->post = std::move(options.post);
  AgentHandle handle{agent->index, agent->generation};
  state_->agents.push_back(std::move(agent));
  return handle;
}

ServiceResult<RequestHandle> LockService::request(AgentHandle agent_handle, std::string name,
                                                  RequestOptions options,
                                                  RequestCallbacks callbacks) {
  std::lock_guard guard(state_->mutex);
  auto found = state_->find(agent_handle, "request");
  if (auto* error = std::get_if<ServiceError>(&found)) return std::move(*error);
  State::Agent& agent = *std::get<State::Agent*>(found);
  if (agent.terminated)
    return ServiceError{"request: agent " + agent.client_id + " has been terminated"};
  if (options.steal && options.if_available)
    return ServiceError{"request: options.steal and options.ifAvailable are both true"};
  // The record must exist before the manager runs: a grant is reported from inside request().
  auto record = std::make_unique<State::Request>();
  record->agent = &agent;
  record->callbacks = std::move(callbacks);
  State::Request* user = record.get();
  const RequestResult result = agent.manager->locks.request(
      agent.id, name, options.mode, RequestFlags{options.if_available, options.steal}, user);
  if (result.outcome == RequestOutcome::NotAvailable) {
    // Step 3.5: queue a task that runs the callback with null.
    if (user->callbacks.not_available) agent.post(std::move(user->callbacks.not_available));
    return RequestHandle{agent_handle, Ticket{}};
  }
  user->ticket = result.ticket;
  agent.requests.emplace(key_of(result.ticket), std::move(record));
  return RequestHandle{agent_handle, result.ticket};
}

ServiceResult<bool> LockService::release(RequestHandle lock) {
  std::lock_guard guard(state_->mutex);
  auto found = state_->find(lock.agent, "release");
  if (auto* error = std::get_if<ServiceError>(&found)) return std::move(*error);
  State::Agent& agent = *std::get<State::Agent*>(found);
  const auto it = agent.requests.find(key_of(lock.ticket));
  if (agent.terminated || it == agent.requests.end()) return false;  // stolen, released, or gone
  if (!it->second->granted)
    return ServiceError{"release: the request has not been granted yet; abort() it instead"};
  agent.requests.erase(it);
  agent.manager->locks.release(lock.ticket);
  return true;
}

ServiceResult<bool> LockService::abort(RequestHandle request) {
  std::lock_guard guard(state_->mutex);
  auto found = state_->find(request.agent, "abort");
  if (auto* error = std::get_if<ServiceError>(&found)) return std::move(*error);
  State::Agent& agent = *std::get<State::Agent*>(found);
  const auto it = agent.requests.find(key_of(request.ticket));
  if (agent.terminated || it == agent.requests.end() || it->second->granted) return false;
  agent.requests.erase(it);
  agent.manager->locks.abort(request.ticket);
  return true;
}

ServiceResult<bool> LockService::query(AgentHandle agent_handle,
                                       std::function<void(QueryResult)> done) {
  std::lock_guard guard(state_->mutex);
  auto found = state_->find(agent_handle, "query");
  if (auto* error = std::get_if<ServiceError>(&found)) return std::move(*error);
  State::Agent& agent = *std::get<State::Agent*>(found);
  if (agent.terminated)
    return ServiceError{"query: agent " + agent.client_id + " has been terminated"};
  // web-locks#algorithm-snapshot-state, copied out: the views die with the next change.
  const Snapshot snapshot = agent.manager->locks.snapshot();
  QueryResult result;
  const auto copy = [](const std::vector<SnapshotEntry>& from, std::vector<QueryEntry>& to) {
    to.reserve(from.size());
    for (const SnapshotEntry& e : from)
      to.push_back(QueryEntry{std::string(e.name), e.mode, std::string(e.client_id)});
  };
  copy(snapshot.held, result.held);
  copy(snapshot.pending, result.pending);
  agent.post(
      [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); });
  return true;
}

ServiceResult<bool> LockService::terminate(AgentHandle agent_handle) {
  std::lock_guard guard(state_->mutex);
  auto found = state_->find(agent_handle, "terminate");
  if (auto* error = std::get_if<ServiceError>(&found)) return std::move(*error);
  State::Agent& agent = *std::get<State::Agent*>(found);
  if (agent.terminated) return false;
  agent.terminated = true;  // from here on nothing is posted to it
  agent.manager->locks.terminate(agent.id);
  agent.requests.clear();
  agent.post = nullptr;  // drop whatever the embedder captured for its loop
  return true;
}

}  // namespace lockstep::impl
