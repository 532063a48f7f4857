// Writes a Trace back as lockstep-trace JSON; read_trace(write_trace(t)) gives t again.
#include "json_value.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

using detail::Json;
using detail::to_json;

Json write_body(const std::vector<Action>& body);

Json write_callback(const Callback& cb) {
  Json out = Json::object();
  if (!cb.body.empty()) out["body"] = write_body(cb.body);
  switch (cb.result) {
    case Callback::Result::Return:
      if (!cb.value->is_undefined()) out["result"] = Json{{"return", to_json(*cb.value)}};
      break;
    case Callback::Result::Throw:
      out["result"] = Json{{"throw", to_json(*cb.value)}};
      break;
    case Callback::Result::Pending:
      out["result"] = Json{{"pending", true}};
      break;
  }
  return out;
}

Json write_action(const Action& a, bool top_level) {
  Json out = Json::object();
  if (top_level && a.op != Op::AdvanceTime) out["agent"] = a.agent;
  out["op"] = op_name(a.op);
  if (!a.id.empty()) out["id"] = a.id;
  switch (a.op) {
    case Op::Request:
      out["name"] = a.name;
      if (a.lock_options) {
        Json o = Json::object();
        o["mode"] = lock_mode_name(a.lock_options->mode);
        if (a.lock_options->if_available) o["ifAvailable"] = true;
        if (a.lock_options->steal) o["steal"] = true;
        if (a.lock_options->signal) o["signal"] = *a.lock_options->signal;
        out["options"] = o;
      }
      break;
    case Op::Abort:
      out["signal"] = a.signal;
      if (a.reason) out["reason"] = to_json(*a.reason);
      break;
    case Op::TimeoutSignal:
    case Op::SetTimeout:
    case Op::AdvanceTime:
      out["ms"] = a.ms;
      break;
    case Op::Settle:
      out["target"] = a.target;
      out["outcome"] = a.fulfill ? "fulfill" : "reject";
      if (!a.value->is_undefined()) out["value"] = to_json(*a.value);
      break;
    case Op::PostTask: {
      Json o = Json::object();
      if (a.task_options->priority) o["priority"] = task_priority_name(*a.task_options->priority);
      if (a.task_options->signal) o["signal"] = *a.task_options->signal;
      if (a.task_options->delay) o["delay"] = *a.task_options->delay;
      if (!o.empty()) out["options"] = o;
      break;
    }
    case Op::NewTaskController:
      if (a.priority) out["priority"] = task_priority_name(*a.priority);
      break;
    case Op::SetPriority:
      out["controller"] = a.controller;
      out["priority"] = task_priority_name(*a.priority);
      break;
    case Op::TaskSignalAny:
      out["signals"] = *a.signals;
      if (a.any_priority->priority) out["priority"] = task_priority_name(*a.any_priority->priority);
      if (a.any_priority->signal) out["priority"] = Json{{"signal", *a.any_priority->signal}};
      break;
    case Op::OnPriorityChange:
      out["signal"] = a.signal;
      break;
    case Op::Then:
    case Op::Await:
      out["target"] = a.target;
      break;
    case Op::Mark:
      out["label"] = a.label;
      break;
    default:
      break;
  }
  if (a.callback) out["callback"] = write_callback(*a.callback);
  if (!a.body.empty() || a.op == Op::Run) out["body"] = write_body(a.body);
  if (top_level && !a.settle) out["settle"] = false;
  return out;
}

Json write_body(const std::vector<Action>& body) {
  Json out = Json::array();
  for (const Action& a : body) out.push_back(write_action(a, false));
  return out;
}

}  // namespace

std::string write_value(const Value& value) {
  return to_json(value).dump();
}

std::string write_trace(const Trace& trace) {
  Json out = Json::object();
  out["format"] = "lockstep-trace";
  out["version"] = 1;
  if (!trace.name.empty()) out["name"] = trace.name;
  if (!trace.description.empty()) out["description"] = trace.description;
  if (!trace.exercises.empty()) out["exercises"] = trace.exercises;
  Json agents = Json::array();
  for (const Agent& a : trace.agents) {
    Json j = Json::object();
    j["id"] = a.id;
    j["kind"] = a.kind == AgentKind::Window ? "window" : "worker";
    j["origin"] = a.origin;
    if (a.partition != "default") j["partition"] = a.partition;
    if (a.event_loop != a.id) j["eventLoop"] = a.event_loop;
    agents.push_back(j);
  }
  out["agents"] = agents;
  Json steps = Json::array();
  for (const Action& a : trace.steps) steps.push_back(write_action(a, true));
  out["steps"] = steps;
  if (!trace.schedule.empty()) out["schedule"] = trace.schedule;
  for (const auto& [member, value] : non_default_readings(trace.readings))
    out["readings"][member] = value;
  return out.dump(2) + "\n";
}

}  // namespace lockstep
