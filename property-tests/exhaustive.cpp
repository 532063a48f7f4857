#include "exhaustive.h"

#include <vector>

#include "exhaustive_enumerator.h"

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

class LockEnumerator : public Enumerator {
 public:
  LockEnumerator(const ExhaustiveBound& bound, const Emit& emit)
      : Enumerator(bound, emit, "exhaustive-", R"(, "kind": "window", "origin": "https://a.test")",
                   /*queue_all_but_last=*/false) {}

 private:
  void add_steps() override {
    for (int a = 0; a < agent_limit() && !stopped(); ++a) {
      if (a < static_cast<int>(terminated_.size()) && terminated_[a]) continue;
      const int saved_agents = enter_agent(a);
      terminated_.resize(agents_used(), false);
      const std::string who = R"({"agent": ")" + agent_id(a) + R"(", )";
      // request
      const int name_limit = std::min(names_used_ + 1, bound().names);
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
      push(who + R"("op": "query", "id": "q)" + std::to_string(step_count()) + "\"}");
      terminated_[a] = true;  // after either, the agent takes no more steps here
      push(who + R"("op": "terminate"})");
      push(who + R"("op": "unload"})");
      terminated_[a] = false;
      leave_agent(saved_agents);
      terminated_.resize(agents_used());
    }
  }

  std::vector<Request> requests_;
  std::vector<Controller> controllers_;
  std::vector<bool> terminated_;
  int names_used_ = 0;
};

}  // namespace

std::uint64_t enumerate_lock_traces(
    const ExhaustiveBound& bound,
    const std::function<bool(std::uint64_t index, const std::string& json)>& emit) {
  return LockEnumerator(bound, emit).run();
}

}  // namespace lockstep::gen
