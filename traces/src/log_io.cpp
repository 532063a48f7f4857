// Reads and writes lockstep-log JSON (traces/README.md, "The event log").
#include "json_value.h"
#include "lockstep/trace_io.h"

namespace lockstep {

Result<detail::Json> parse_json(const std::string& text, std::size_t max_depth);

const Value* Event::member(const std::string& key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

bool operator==(const Event& a, const Event& b) {
  if (a.step != b.step || a.agent != b.agent || a.event != b.event) return false;
  if (a.members.size() != b.members.size()) return false;
  for (const auto& [key, value] : a.members) {
    const Value* other = b.member(key);
    if (!other || !(*other == value)) return false;
  }
  return true;
}

using detail::from_json;
using detail::Json;

Result<Log> read_log(const std::string& text) {
  auto parsed = parse_json(text, 64);
  if (!parsed) return parsed.error();
  const Json& doc = parsed.value();
  if (!doc.is_object()) return Error{"", "a log is a JSON object"};
  if (doc.value("format", "") != "lockstep-log")
    return Error{"/format", "expected \"lockstep-log\""};
  if (!doc.contains("version") || doc["version"] != 1)
    return Error{"/version", "this lockstep reads log format version 1"};
  if (!doc.contains("events") || !doc["events"].is_array())
    return Error{"/events", "expected an array of events"};
  Log log;
  const Json& events = doc["events"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    std::string p = "/events/" + std::to_string(i);
    const Json& e = events[i];
    if (!e.is_object()) return Error{p, "an event is an object"};
    Event ev;
    if (!e.contains("step") || !e["step"].is_number_integer())
      return Error{p + "/step", "expected the step index"};
    ev.step = e["step"].get<int>();
    if (!e.contains("event") || !e["event"].is_string())
      return Error{p + "/event", "expected the event's kind"};
    ev.event = e["event"].get<std::string>();
    if (e.contains("agent")) {
      if (!e["agent"].is_string()) return Error{p + "/agent", "expected an agent id"};
      ev.agent = e["agent"].get<std::string>();
    }
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "step" && it.key() != "event" && it.key() != "agent")
        ev.members.emplace_back(it.key(), from_json(*it));
    log.events.push_back(std::move(ev));
  }
  return log;
}

Result<Log> read_log_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto log = read_log(text.value());
  if (!log) return Error{log.error().pointer, path + ": " + log.error().message};
  return log;
}

std::string write_log(const Log& log) {
  std::string out = "{\"format\": \"lockstep-log\", \"version\": 1, \"events\": [";
  for (std::size_t i = 0; i < log.events.size(); ++i) {
    const Event& e = log.events[i];
    Json j = Json::object();
    j["step"] = e.step;
    if (!e.agent.empty()) j["agent"] = e.agent;
    j["event"] = e.event;
    for (const auto& [key, value] : e.members)
      if (!value.is_undefined()) j[key] = detail::to_json(value);
    // One event a line, with the spacing of the format's examples, so logs diff well.
    std::string line = j.dump();
    std::string spaced;
    bool in_string = false, escaped = false;
    for (char c : line) {
      spaced += c;
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == ':' || c == ',') {
        spaced += ' ';
      }
    }
    out += (i ? ",\n  " : "\n  ") + spaced;
  }
  out += log.events.empty() ? "]}\n" : "\n]}\n";
  return out;
}

}  // namespace lockstep
