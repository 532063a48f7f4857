// Writes lockstep-log JSON (traces/README.md, "The event log"); log_reader.cpp reads it.
#include "json_value.h"
#include "lockstep/trace_io.h"

namespace lockstep {

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

using detail::Json;

std::string write_log(const Log& log) {
  std::string out = "{\"format\": \"lockstep-log\", \"version\": 1, ";
  if (log.partial) out += "\"partial\": true, ";
  out += "\"events\": [";
  for (std::size_t i = 0; i < log.events.size(); ++i) {
    const Event& e = log.events[i];
    Json j = Json::object();
    j["step"] = e.step;
    j["agent"] = e.agent;  // required, even empty: the log reads back as it was read
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
