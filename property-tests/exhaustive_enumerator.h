// What the exhaustive enumerators (exhaustive.cpp, exhaustive_scheduling.cpp) share: a depth-first
// walk that appends one step at a time, emits every prefix as a trace, and lets agents enter in
// order of first use (so traces that differ only by renaming agents are made once).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "exhaustive.h"

namespace lockstep::gen {

class Enumerator {
 public:
  using Emit = std::function<bool(std::uint64_t, const std::string&)>;

  std::uint64_t run() {
    extend();
    return count_;
  }

 protected:
  // `name` prefixes each trace's name; `agent_fields` follows each agent's id in its JSON object;
  // with `queue_all_but_last`, every step but the last has `"settle": false`.
  Enumerator(const ExhaustiveBound& bound, const Emit& emit, std::string name,
             std::string agent_fields, bool queue_all_but_last)
      : bound_(bound),
        emit_(emit),
        name_(std::move(name)),
        agent_fields_(std::move(agent_fields)),
        queue_all_but_last_(queue_all_but_last) {}
  virtual ~Enumerator() = default;

  // Appends each possible next step (through push()), for agents below agent_limit().
  virtual void add_steps() = 0;

  static std::string agent_id(int a) { return "A" + std::to_string(a); }
  // An agent that has taken no step yet may take the next one only if it is the first such.
  int agent_limit() const { return std::min(agents_used_ + 1, bound_.agents); }
  // Makes agent `a` one of the trace's agents (if it is not yet) for what add_steps does with it;
  // returns what to pass to leave_agent afterwards.
  int enter_agent(int a) {
    const int saved = agents_used_;
    agents_used_ = std::max(agents_used_, a + 1);
    return saved;
  }
  void leave_agent(int saved) { agents_used_ = saved; }
  int agents_used() const { return agents_used_; }
  std::size_t step_count() const { return steps_.size(); }
  bool stopped() const { return stopped_; }
  const ExhaustiveBound& bound() const { return bound_; }

  // Tries `step` as the next step: emits the trace with it, then extends it further.
  void push(std::string step) {
    steps_.push_back(std::move(step));
    extend();
    steps_.pop_back();
  }

 private:
  void extend() {
    if (stopped_) return;
    if (!steps_.empty() && !emit_(count_++, json())) {
      stopped_ = true;
      return;
    }
    if (static_cast<int>(steps_.size()) >= bound_.ops) return;
    add_steps();
  }

  std::string json() const {
    std::string out = R"({"format": "lockstep-trace", "version": 1, "name": ")" + name_ +
                      std::to_string(count_) + R"(", "agents": [)";
    for (int a = 0; a < agents_used_; ++a)
      out +=
          (a ? ", " : "") + std::string(R"({"id": ")") + agent_id(a) + "\"" + agent_fields_ + "}";
    out += R"(], "steps": [)";
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      out += (i ? ",\n" : "\n") + steps_[i];
      if (queue_all_but_last_ && i + 1 < steps_.size())
        out.insert(out.size() - 1, R"(, "settle": false)");
    }
    return out + "\n]}\n";
  }

  const ExhaustiveBound& bound_;
  const Emit& emit_;
  const std::string name_, agent_fields_;
  const bool queue_all_but_last_;
  std::vector<std::string> steps_;
  int agents_used_ = 0;
  std::uint64_t count_ = 0;
  bool stopped_ = false;
};

}  // namespace lockstep::gen
