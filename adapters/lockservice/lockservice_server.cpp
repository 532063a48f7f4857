// impl/'s LockService (lockstep/impl/lock_service.h) as a lock manager of the lock-manager
// protocol (adapters/protocol/README.md): messages from the driver on stdin, one JSON object per
// line; messages to it on stdout. An embedder of our own that is not JavaScript: the runner's
// script side (promises, callbacks, signals) drives it, and `check` judges what it decided.
//
// One thread. Each line runs its LockService call, whose agent-side steps LockService hands to
// the agent's `post`; here every agent's event loop is one queue of the messages to write, in
// the order the lock task queue produced them, written once the call returns.
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "lockstep/impl/lock_service.h"

namespace {

using lockstep::impl::AgentHandle;
using lockstep::impl::LockService;
using lockstep::impl::Mode;
using lockstep::impl::RequestHandle;
using lockstep::impl::ServiceError;
using Json = nlohmann::ordered_json;

const char* mode_name(Mode mode) {
  return mode == Mode::Shared ? "shared" : "exclusive";
}

void write(const Json& message) {
  std::cout << message.dump() << "\n" << std::flush;
}

class Server {
 public:
  // One line from the driver; false when it is not a message of the protocol (said on stdout).
  bool handle(const std::string& line) {
    const Json m = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string())
      return refuse("not a message: expected an object with a \"type\"");
    const std::string type = m["type"];
    static const std::map<std::string, bool (Server::*)(const Json&), std::less<>> kHandlers = {
        {"agent", &Server::agent}, {"request", &Server::request}, {"release", &Server::release},
        {"abort", &Server::abort}, {"query", &Server::query},     {"terminate", &Server::terminate},
        {"sync", &Server::sync}};
    const auto handler = kHandlers.find(type);
    if (handler == kHandlers.end()) return refuse("unknown message type \"" + type + "\"");
    const bool ok = (this->*handler->second)(m);
    // What the call queued for the agents' event loops, in the lock task queue's order.
    for (; !posted_.empty(); posted_.pop_front()) posted_.front()();
    return ok;
  }

 private:
  static bool refuse(const std::string& why) {
    write({{"type", "error"}, {"message", why}});
    return false;
  }
  static bool has_string(const Json& m, const char* key) {
    return m.contains(key) && m[key].is_string();
  }
  template <class T>
  static bool failed(const lockstep::impl::ServiceResult<T>& r) {
    if (const auto* e = std::get_if<ServiceError>(&r)) return !refuse(e->message);
    return false;
  }

  bool agent(const Json& m) {
    if (!has_string(m, "agent") || !has_string(m, "storageKey") || !has_string(m, "clientId"))
      return refuse("agent: expected \"agent\", \"storageKey\" and \"clientId\" strings");
    if (agents_.count(m["agent"]))
      return refuse("agent: \"" + std::string(m["agent"]) + "\" twice");
    auto r = service_.register_agent(
        {m["storageKey"], m["clientId"],
         [this](std::function<void()> task) { posted_.push_back(std::move(task)); }});
    if (failed(r)) return false;
    agents_[m["agent"]] = std::get<AgentHandle>(r);
    return true;
  }

  bool request(const Json& m) {
    if (!has_string(m, "agent") || !has_string(m, "request") || !has_string(m, "name") ||
        !has_string(m, "mode"))
      return refuse("request: expected \"agent\", \"request\", \"name\" and \"mode\" strings");
    auto agent = agents_.find(m["agent"]);
    if (agent == agents_.end()) return refuse("request: unknown agent");
    const std::string id = m["request"];
    if (requests_.count(id)) return refuse("request: \"" + id + "\" twice");
    if (m["mode"] != "shared" && m["mode"] != "exclusive")
      return refuse("request: \"mode\" is \"shared\" or \"exclusive\"");
    for (const char* flag : {"ifAvailable", "steal"})
      if (m.contains(flag) && !m[flag].is_boolean())
        return refuse(std::string("request: \"") + flag + "\" is true or false");
    LockService::RequestOptions options;
    options.mode = m["mode"] == "shared" ? Mode::Shared : Mode::Exclusive;
    options.if_available = m.value("ifAvailable", false);
    options.steal = m.value("steal", false);
    LockService::RequestCallbacks on;
    on.granted = [id](RequestHandle) { write({{"type", "granted"}, {"request", id}}); };
    on.not_available = [id] { write({{"type", "notAvailable"}, {"request", id}}); };
    on.stolen = [id] { write({{"type", "stolen"}, {"request", id}}); };
    auto r = service_.request(agent->second, m["name"], options, on);
    if (failed(r)) return false;
    requests_[id] = std::get<RequestHandle>(r);
    return true;
  }

  // web-locks "waiting promise settles": release the lock, then the released promise is resolved
  // (for a lock stolen already, the release is a no-op and so is the resolution).
  bool release(const Json& m) {
    auto request = find_request(m, "release");
    if (!request) return false;
    if (failed(service_.release(*request))) return false;
    const std::string id = m["request"];
    // Behind the grants the release allowed, as the lock task queue runs both steps in turn.
    posted_.push_back([id] { write({{"type", "released"}, {"request", id}}); });
    return true;
  }

  bool abort(const Json& m) {
    auto request = find_request(m, "abort");
    return request && !failed(service_.abort(*request));
  }

  bool query(const Json& m) {
    if (!has_string(m, "agent") || !has_string(m, "query"))
      return refuse("query: expected \"agent\" and \"query\" strings");
    auto agent = agents_.find(m["agent"]);
    if (agent == agents_.end()) return refuse("query: unknown agent");
    const std::string id = m["query"];
    return !failed(service_.query(agent->second, [id](LockService::QueryResult state) {
      const auto entries = [](const std::vector<LockService::QueryEntry>& list) {
        Json out = Json::array();
        for (const auto& e : list)
          out.push_back({{"name", e.name}, {"mode", mode_name(e.mode)}, {"clientId", e.client_id}});
        return out;
      };
      write({{"type", "snapshot"},
             {"query", id},
             {"held", entries(state.held)},
             {"pending", entries(state.pending)}});
    }));
  }

  bool terminate(const Json& m) {
    if (!has_string(m, "agent")) return refuse("terminate: expected an \"agent\" string");
    auto agent = agents_.find(m["agent"]);
    if (agent == agents_.end()) return refuse("terminate: unknown agent");
    return !failed(service_.terminate(agent->second));
  }

  // Everything before it is done: what it posted is written before the answer.
  bool sync(const Json& m) {
    if (!m.contains("sync") || !m["sync"].is_number_integer())
      return refuse("sync: expected a \"sync\" number");
    posted_.push_back([sync = m["sync"]] { write({{"type", "synced"}, {"sync", sync}}); });
    return true;
  }

  const RequestHandle* find_request(const Json& m, const char* what) {
    if (!has_string(m, "request")) {
      refuse(std::string(what) + ": expected a \"request\" string");
      return nullptr;
    }
    auto found = requests_.find(m["request"]);
    if (found == requests_.end()) {
      refuse(std::string(what) + ": unknown request \"" + std::string(m["request"]) + "\"");
      return nullptr;
    }
    return &found->second;
  }

  LockService service_;
  std::deque<std::function<void()>> posted_;  // every agent's tasks, in posting order
  std::map<std::string, AgentHandle, std::less<>> agents_;
  std::map<std::string, RequestHandle, std::less<>> requests_;
};

}  // namespace

// Exit 0 at the end of stdin; 2 after a line that is not a message of the protocol (it has said
// why on stdout as an "error" message).
int main() {
  Server server;
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    if (!server.handle(line)) return 2;
  }
  return 0;
}
