#include "lockstep/signature.h"

#include <set>
#include <string_view>

namespace lockstep::check {
namespace {

// The op of the action that made `id`, or "?" when no action of the trace makes it.
std::string op_making(const Trace& trace, std::string_view id) {
  const Action* made = action_making(trace, id);
  return made ? op_name(made->op) : "?";
}

// A settled promise's state, with a rejection's DOMException name or "value".
std::string outcome(const Event& event) {
  const Value* state = event.member("state");
  const std::string text = state && state->kind() == Value::Kind::String ? state->as_string() : "?";
  if (text != "rejected") return text;
  const Value* reason = event.member("reason");
  if (reason && reason->kind() == Value::Kind::DOMException)
    return "rejected " + reason->as_string();
  return "rejected value";
}

std::string string_member(const Event& event, const char* key) {
  const Value* v = event.member(key);
  return v && v->kind() == Value::Kind::String ? v->as_string() : "?";
}

}  // namespace

const Action* action_making(const Trace& trace, std::string_view id) {
  const Action* found = nullptr;
  for_each_action(trace.steps, [&](const Action& a) {
    if (!found && !a.id.empty() && std::string_view(a.id) == id) found = &a;
  });
  return found;
}

std::string event_kind(const Trace& trace, const Event& event) {
  if (event.event == "settled")
    return "settled " + op_making(trace, string_member(event, "target")) + " " + outcome(event);
  if (event.event == "callback") {
    const Value* lock = event.member("lock");
    if (!lock || lock->kind() == Value::Kind::Null) return "callback null lock";
    const Value* mode = lock->member("mode");
    return "callback " +
           (mode && mode->kind() == Value::Kind::String ? mode->as_string() : std::string("?"));
  }
  if (event.event == "threw") {
    const Value* error = event.member("error");
    const bool named = error && error->kind() == Value::Kind::DOMException;
    return "threw " + string_member(event, "op") + " " + (named ? error->as_string() : "value");
  }
  return event.event;
}

std::string divergence_signature(const Trace& trace, const Divergence& d) {
  const std::string seen = d.observed ? event_kind(trace, *d.observed) : "the agent's events end";
  if (d.instead.empty())
    return seen + " | instead: nothing more" +
           (d.model_could_stop ? " (the model could stop)" : "");
  std::set<std::string> kinds, steps;  // sorted, each once
  for (const Event& e : d.instead) {
    kinds.insert(event_kind(trace, e));
    if (d.observed)
      steps.insert(e.step < d.observed->step   ? "earlier"
                   : e.step > d.observed->step ? "later"
                                               : "same");
  }
  std::string text = seen + " | instead: ";
  for (auto k = kinds.begin(); k != kinds.end(); ++k)
    text += (k == kinds.begin() ? "" : " / ") + *k;
  if (steps.empty()) return text;  // no observed event to compare steps with
  text += " | model's step ";
  for (auto s = steps.begin(); s != steps.end(); ++s) text += (s == steps.begin() ? "" : "/") + *s;
  return text;
}

}  // namespace lockstep::check
