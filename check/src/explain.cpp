#include "lockstep/explain.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "lockstep/log_compare.h"
#include "lockstep/signature.h"
#include "lockstep/spec_engine.h"
#include "lockstep/step_index.h"
#include "lockstep/trace_io.h"

namespace lockstep::check {
namespace {

// Every indexed step by id ("grantable 8"): its spec and its words, read once from the indexes
// (a report looks up each of a unit's hundred-odd steps; StepIndex::find scans them all).
struct IndexedStep {
  std::string spec;
  std::string words;
};
const std::unordered_map<std::string, IndexedStep>& indexed_steps() {
  static const std::unordered_map<std::string, IndexedStep> steps = [] {
    std::unordered_map<std::string, IndexedStep> out;
    for (const char* json : step_index_jsons()) {
      auto index = read_step_index(json);
      if (!index) continue;
      for (const StepIndex::Algorithm& a : index->algorithms)
        for (const StepIndex::Step& step : a.steps)
          out.emplace(a.anchor + " " + step.number, IndexedStep{index->spec, step.words});
    }
    return out;
  }();
  return steps;
}

std::string text_of(const Event& e, const char* key) {
  const Value* v = e.member(key);
  return v && v->kind() == Value::Kind::String ? v->as_string() : std::string();
}

// The object an event is about: a callback's request, a settled promise's target, a task's id.
std::string subject(const Event& e) {
  for (const char* key : {"request", "target", "task", "id", "signal"})
    if (!text_of(e, key).empty()) return text_of(e, key);
  return "";
}

// "a shared", "an exclusive", "an AbortError".
std::string with_article(const std::string& word) {
  const bool vowel = !word.empty() && std::string("aeiouAEIOU").find(word[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + word;
}

std::string lock_words(const Event& e) {
  const Value* lock = e.member("lock");
  if (!lock || lock->kind() != Value::Kind::Object) return "null";
  const Value* mode = lock->member("mode");
  const Value* name = lock->member("name");
  return with_article(mode ? mode->as_string() : "?") + " lock on " +
         (name ? name->as_string() : "?");
}

std::string outcome_words(const Event& e) {
  if (text_of(e, "state") == "fulfilled") {
    const Value* v = e.member("value");
    return "fulfills" + (v && !v->is_undefined() ? " with " + write_value(*v) : std::string());
  }
  const Value* reason = e.member("reason");
  if (reason && reason->kind() == Value::Kind::DOMException)
    return "rejects with " + with_article(reason->as_string());
  return "rejects with " + (reason ? write_value(*reason) : std::string("undefined"));
}

// An event as a clause: "r1's callback runs with a shared lock on res".
std::string words(const Event& e) {
  if (e.event == "callback")
    return text_of(e, "request") + "'s callback runs with " + lock_words(e);
  if (e.event == "settled") return text_of(e, "target") + " " + outcome_words(e);
  if (e.event == "task") return "task " + text_of(e, "task") + " runs";
  if (e.event == "idle") return "idle callback " + text_of(e, "id") + " runs";
  if (e.event == "mark") return "mark " + text_of(e, "label");
  if (e.event == "threw") {
    const Value* error = e.member("error");
    return text_of(e, "op") + " throws " + (error ? write_value(*error) : std::string("?"));
  }
  if (e.event == "prioritychange")
    return text_of(e, "signal") + " hears its priority change to " + text_of(e, "priority");
  return write_event(e);
}

// Whether an action aborts the request's signal: `before` when one comes ahead of the request
// in the trace's order (request() then rejects at once), else after it. The trace's order stands
// for the order they run in, which a callback's body may not keep (it runs when it is called).
enum class SignalAborted { Never, Before, After };
SignalAborted signal_aborted(const Trace& trace, const Action& request) {
  const std::string_view signal = *request.lock_options->signal;
  bool seen_request = false;
  SignalAborted found = SignalAborted::Never;
  for_each_action(trace.steps, [&](const Action& a) {
    if (&a == &request) seen_request = true;
    if (found == SignalAborted::Never && a.op == Op::Abort && std::string_view(a.signal) == signal)
      found = seen_request ? SignalAborted::After : SignalAborted::Before;
  });
  return found;
}

// The steps of the spec that decide an event of the model's, the deciding one first.
std::vector<std::string> deciding_steps(const Trace& trace, const Event& e) {
  if (e.event == "callback") {
    const Value* lock = e.member("lock");
    if (!lock || lock->kind() != Value::Kind::Object)
      return {"algorithm-request-lock 3.5.1.1", "grantable 7", "grantable 8", "grantable 9"};
    return {"algorithm-process-request 2.14.2", "algorithm-process-request 2.1", "grantable 7",
            "grantable 8", "grantable 9"};
  }
  if (e.event != "settled") return {};
  const Action* made = action_making(trace, subject(e));
  const Value* reason = e.member("reason");
  const std::string name =
      reason && reason->kind() == Value::Kind::DOMException ? reason->as_string() : "";
  if (made && made->op == Op::Query) {
    if (text_of(e, "state") == "fulfilled")
      return {"algorithm-snapshot-state 6", "algorithm-snapshot-state 3.1.1",
              "algorithm-snapshot-state 5.1"};
    return {"dom-lockmanager-query 2", "dom-lockmanager-query 3"};
  }
  if (!made || made->op != Op::Request) return {};
  if (text_of(e, "state") == "fulfilled")
    return {"concept-lock 2", "algorithm-request-lock 3.5.1.2"};
  if (name == "InvalidStateError") return {"dom-lockmanager-request 3"};
  if (name == "SecurityError") return {"dom-lockmanager-request 4"};
  if (name == "NotSupportedError")
    return {"dom-lockmanager-request 5", "dom-lockmanager-request 6", "dom-lockmanager-request 7",
            "dom-lockmanager-request 8"};
  const SignalAborted aborted = made->lock_options.has_value() && made->lock_options->signal
                                    ? signal_aborted(trace, *made)
                                    : SignalAborted::Never;
  if (aborted == SignalAborted::Before)
    return {"dom-lockmanager-request 9", "signal-to-abort-the-request 2"};
  if (aborted == SignalAborted::After)
    return {"signal-to-abort-the-request 2", "dom-lockmanager-request 9"};
  if (name == "AbortError") return {"algorithm-request-lock 3.4.1.1.2"};
  return {"concept-lock 2"};
}

// The snapshot's entries as "res shared by B" lines, for comparing two snapshots; without the
// clientIds when `by` is false.
std::vector<std::string> entries(const Value* snapshot, const char* list, bool by) {
  std::vector<std::string> out;
  const Value* items = snapshot ? snapshot->member(list) : nullptr;
  if (!items || items->kind() != Value::Kind::Array) return out;
  for (const Value& entry : items->items()) {
    const auto field = [&](const char* key) {
      const Value* v = entry.member(key);
      return v && v->kind() == Value::Kind::String ? v->as_string() : std::string("?");
    };
    out.push_back(field("name") + " " + field("mode") + (by ? " by " + field("clientId") : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// Whether every clientId of the snapshot is an agent id of the trace (I-23: else they are the
// implementation's own, paired with the agents by check, and not compared by text here).
bool agent_ids(const Trace& trace, const Value* snapshot) {
  for (const char* list : {"held", "pending"}) {
    const Value* items = snapshot ? snapshot->member(list) : nullptr;
    if (!items || items->kind() != Value::Kind::Array) continue;
    for (const Value& entry : items->items()) {
      const Value* id = entry.member("clientId");
      const bool known = id && std::any_of(trace.agents.begin(), trace.agents.end(),
                                           [&](const Agent& a) { return a.id == id->as_string(); });
      if (!known) return false;
    }
  }
  return true;
}

// What two snapshots of one query differ in, as a clause; empty if only their order does.
std::string snapshot_difference(const Trace& trace, const Event& observed, const Event& model) {
  std::string out;
  const bool by = agent_ids(trace, observed.member("value"));
  for (const char* list : {"held", "pending"}) {
    const auto mine = entries(observed.member("value"), list, by);
    const auto spec = entries(model.member("value"), list, by);
    std::vector<std::string> missing, extra;
    std::set_difference(spec.begin(), spec.end(), mine.begin(), mine.end(),
                        std::back_inserter(missing));
    std::set_difference(mine.begin(), mine.end(), spec.begin(), spec.end(),
                        std::back_inserter(extra));
    if (!missing.empty())
      out += (out.empty() ? "" : "; ") + std::string("the spec's snapshot has ") + listed(missing) +
             " " + list + ", the implementation's does not";
    if (!extra.empty())
      out += (out.empty() ? "" : "; ") + std::string("the implementation's has ") + listed(extra) +
             " " + list + ", the spec's does not";
  }
  return out;
}

// The model's event to compare the observed one with: the same event but for its step, else one
// about the same object, else the first.
const Event* closest(const Divergence& d) {
  if (d.instead.empty()) return nullptr;
  if (!d.observed) return &d.instead.front();
  for (const Event& e : d.instead) {
    Event moved = e;
    moved.step = d.observed->step;
    if (moved == *d.observed) return &e;
  }
  for (const Event& e : d.instead)
    if (e.event == d.observed->event && subject(e) == subject(*d.observed)) return &e;
  for (const Event& e : d.instead)
    if (subject(e) == subject(*d.observed) && !subject(e).empty()) return &e;
  return &d.instead.front();
}

}  // namespace

std::string step_spec(const std::string& id) {
  const auto found = indexed_steps().find(id);
  return found == indexed_steps().end() ? "" : found->second.spec;
}

std::string step_words(const std::string& id) {
  const auto found = indexed_steps().find(id);
  if (found == indexed_steps().end()) return id;
  return found->second.words + " (" + found->second.spec + "#" + id + ")";
}

Why divergence_why(const Trace& trace, const Divergence& d) {
  Why why;
  const Event* model = closest(d);
  if (!d.observed) {
    if (!model) return why;
    why.text = "agent " + d.agent + " logged nothing more; the spec goes on: " + words(*model);
    why.rests_on = deciding_steps(trace, *model);
    return why;
  }
  const Event& seen = *d.observed;
  if (!model) {
    why.text = "the spec logs nothing more for agent " + d.agent + " here, where the " +
               "implementation logs: " + words(seen);
    return why;
  }
  why.rests_on = deciding_steps(trace, *model);
  Event moved = *model;
  moved.step = seen.step;
  if (moved == seen) {
    why.text = "only the step differs: " + words(seen) + " in step " + std::to_string(seen.step) +
               ", where the spec has it in step " + std::to_string(model->step) +
               (model->step < seen.step ? " (the implementation is late: the spec finishes it "
                                          "before step " +
                                              std::to_string(model->step) + " settles)"
                                        : " (the implementation is early: the spec cannot do it "
                                          "before step " +
                                              std::to_string(model->step) + ")");
    return why;
  }
  const bool same_object = !subject(seen).empty() && subject(seen) == subject(*model);
  if (same_object && seen.event == "settled" && model->event == "settled" &&
      text_of(seen, "state") == "fulfilled" && text_of(*model, "state") == "fulfilled") {
    const Action* made = action_making(trace, subject(seen));
    if (made && made->op == Op::Query) {
      const std::string difference = snapshot_difference(trace, seen, *model);
      why.text = "the snapshot of " + subject(seen) + " is not one the spec takes here: " +
                 (difference.empty() ? "it lists what the spec's does, but not as the spec "
                                       "orders it or pairs its clientIds with the agents"
                                     : difference);
      return why;
    }
  }
  if (same_object) {
    why.text = "in the spec, " + words(*model) + "; in the implementation, " + words(seen);
    if (seen.event == "callback" && model->event == "callback" &&
        text_of(seen, "request") == text_of(*model, "request")) {
      const Value* lock = seen.member("lock");
      const Value* spec_lock = model->member("lock");
      const bool both = lock && spec_lock && lock->kind() == Value::Kind::Object &&
                        spec_lock->kind() == Value::Kind::Object;
      if (both) {
        why.text += " (a Lock has the mode and name of the request it grants)";
        why.rests_on.insert(why.rests_on.begin(), {"dom-lock-mode 1", "dom-lock-name 1"});
      }
    }
    return why;
  }
  why.text = "agent " + d.agent + "'s next event in the implementation: " + words(seen) +
             "; in the spec: " + words(*model);
  return why;
}

}  // namespace lockstep::check
