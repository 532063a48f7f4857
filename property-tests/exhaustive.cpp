#include "exhaustive.h"

#include <vector>

namespace lockstep::gen {
namespace {

struct Request {
  int agent;
  bool settled = false;
};

struct Controller {
  int agent;
  bool aborted = false;
};

class Enumerator {
 public:
  Enumerator(const ExhaustiveBound& bound,
             const std::function<bool(std::uint64_t, const std::string&)>& emit)
      : bound_(bound), emit_(emit) {}

  std::uint64_t run() {
    extend();
    return count_;
  }

 private:
  std::string agent_id(int a) const { return "A" + std::to_string(a); }

  std::string json() const {
    std::string out = R"({"format": "lockstep-trace", "version": 1, "name": "exhaustive-)" +
                      std::to_string(count_) + R"(", "agents": [)";
    for (int a = 0; a < agents_used_; ++a)
      out += (a ? ", " : "") + std::string(R"({"id": ")") + agent_id(a) +
             R"(", "kind": "window", "origin": "https://a.test"})";
    out += R"(], "steps": [)";
    for (std::size_t i = 0; i < steps_.size(); ++i) out += (i ? ",\n" : "\n") + steps_[i];
    return out + "\n]}\n";
  }

  // Tries one more step; emits the trace so far first.
  void extend() {
    if (stopped_) return;
    if (!steps_.empty() && !emit_(count_++, json())) {
      stopped_ = true;
      return;
    }
    if (static_cast<int>(steps_.size()) >= bound_.ops) return;
    const int agent_limit = std::min(agents_used_ + 1, bound_.agents);
    for (int a = 0; a < agent_limit && !stopped_; ++a) {
      if (a < static_cast<int>(terminated_.size()) && terminated_[a]) continue;
      const int saved_agents = agents_used_;
      agents_used_ = std::max(agents_used_, a + 1);
      terminated_.resize(agents_used_, false);
      const std::string who = R"({"agent": ")" + agent_id(a) + R"(", )";
      // request
      const int name_limit = std::min(names_used_ + 1, bound_.names);
      static constexpr const char* kOptions[4] = {"", R"(, "options": {"mode": "shared"})",
                                                  R"(, "options": {"ifAvailable": true})",
                                                  R"(, "options": {"steal": true})"};
      for (int n = 0; n < name_limit; ++n)
        for (const char* options : kOptions) {
          const int saved_names = names_used_;
          names_used_ = std::max(names_used_, n + 1);
          const std::string id = "r" + std::to_string(requests_.size());
          requests_.push_back(Request{a});
          const std::string request =
              R"("op": "request", "id": ")" + id + R"(", "name": "n)" + std::to_string(n) + "\"";
          push(who + request + options + R"(, "callback": {"result": {"pending": true}}})");
          if (options[0] == '\0') {
            // The same request with the signal of a new AbortController, made in the same task.
            const std::string c = "c" + std::to_string(controllers_.size());
            controllers_.push_back(Controller{a});
            push(who + R"("op": "run", "body": [{"op": "newAbortController", "id": ")" + c +
                 R"("}, {)" + request + R"(, "options": {"signal": ")" + c +
                 R"("}, "callback": {"result": {"pending": true}}}]})");
            controllers_.pop_back();
          }
          requests_.pop_back();
          names_used_ = saved_names;
        }
      for (std::size_t c = 0; c < controllers_.size(); ++c) {
        if (controllers_[c].agent != a || controllers_[c].aborted) continue;
        controllers_[c].aborted = true;
        push(who + R"("op": "abort", "signal": "c)" + std::to_string(c) + "\"}");
        controllers_[c].aborted = false;
      }
      // settle: the owner releases one of its requests
      for (std::size_t r = 0; r < requests_.size(); ++r) {
        if (requests_[r].agent != a || requests_[r].settled) continue;
        requests_[r].settled = true;
        push(who + R"("op": "settle", "target": "r)" + std::to_string(r) +
             R"(", "outcome": "fulfill", "value": )" + std::to_string(r) + "}");
        requests_[r].settled = false;
      }
      push(who + R"("op": "query", "id": "q)" + std::to_string(steps_.size()) + "\"}");
      terminated_[a] = true;  // after either, the agent takes no more steps here
      push(who + R"("op": "terminate"})");
      push(who + R"("op": "unload"})");
      terminated_[a] = false;
      agents_used_ = saved_agents;
      terminated_.resize(agents_used_);
    }
  }

  void push(std::string step) {
    steps_.push_back(std::move(step));
    extend();
    steps_.pop_back();
  }

  const ExhaustiveBound& bound_;
  const std::function<bool(std::uint64_t, const std::string&)>& emit_;
  std::vector<std::string> steps_;
  std::vector<Request> requests_;
  std::vector<Controller> controllers_;
  std::vector<bool> terminated_;
  int agents_used_ = 0;
  int names_used_ = 0;
  std::uint64_t count_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::uint64_t enumerate_lock_traces(
    const ExhaustiveBound& bound,
    const std::function<bool(std::uint64_t index, const std::string& json)>& emit) {
  return Enumerator(bound, emit).run();
}

}  // namespace lockstep::gen
