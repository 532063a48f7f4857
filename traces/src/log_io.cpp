// Reads and writes lockstep-log JSON (traces/README.md, "The event log").
#include <cstring>
#include <limits>

#include "json_node.h"
#include "json_stream.h"
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

using detail::child;
using detail::fail;
using detail::Json;
using detail::Node;

namespace {

// The members each kind of event has (traces/README.md, "The event log"; log.schema.json), in the
// order the format lists them: an event read is laid out as the engines log it.
struct EventKind {
  const char* name;
  std::vector<const char*> required;
  std::vector<const char*> optional;
};

const std::vector<EventKind>& event_kinds() {
  static const std::vector<EventKind> kinds{
      {"callback", {"request", "lock"}, {}},
      {"task", {"task"}, {}},
      {"idle", {"id"}, {}},
      {"settled", {"target", "state"}, {"value", "reason"}},
      {"prioritychange", {"signal", "previousPriority", "priority"}, {}},
      {"threw", {"op", "error"}, {}},
      {"mark", {"label"}, {}},
  };
  return kinds;
}

std::string names_of(const std::vector<const char*>& names) {
  std::string out;
  for (const char* n : names) out += std::string(out.empty() ? "" : ", ") + n;
  return out;
}

class LogReader : public detail::DocumentSink {
 public:
  explicit LogReader(const ReadLimits& limits) : limits_(limits) {}

  void member(const std::string& key, Node&& value) override {
    if (key == "format") {
      if (value.equals("lockstep-trace"))
        fail("/format",
             "expected \"lockstep-log\": this is a trace (\"lockstep-trace\"), not an "
             "event log");
      if (!value.equals("lockstep-log"))
        fail("/format", "expected \"lockstep-log\", got " + value.dump());
      seen_format_ = true;
    } else if (key == "version") {
      if (!value.exact_integer(1, 1))
        fail("/version", "this lockstep reads log format version 1, got " + value.dump());
      seen_version_ = true;
    } else if (key == "events") {
      if (!value.is_array())
        fail("/events", "expected an array of events, got " + value.type_name());
      seen_events_ = true;
    } else if (key == "partial") {
      if (!value.is_boolean()) fail("/partial", "expected true or false, got " + value.dump());
      log_.partial = value.as_boolean();
    } else {
      fail(child("", key),
           "unknown member \"" + key + "\" (allowed here: format, version, events, partial)");
    }
  }

  void item(std::size_t, const std::string& pointer, Node&& value) override {
    if (log_.events.size() >= limits_.max_actions)
      fail(pointer, "more than " + std::to_string(limits_.max_actions) + " events in one log");
    log_.events.push_back(read_event(value, pointer));
  }

  Log finish() {
    if (!seen_format_) fail("", "missing required member \"format\"");
    if (!seen_version_) fail("", "missing required member \"version\"");
    if (!seen_events_) fail("", "missing required member \"events\"");
    return std::move(log_);
  }

 private:
  Event read_event(const Node& e, const std::string& p) {
    if (!e.is_object()) fail(p, "an event is an object, got " + e.type_name());
    Event ev;
    const Node* step = e.find("step");
    if (!step) fail(p, "missing required member \"step\"");
    const auto index = step->exact_integer(0, std::numeric_limits<int>::max());
    if (!index)
      fail(child(p, "step"),
           "expected the index of a top-level step (a whole number from 0), got " + step->dump());
    ev.step = static_cast<int>(*index);
    ev.agent = text(e, "agent", p, limits_.max_id_bytes);
    ev.event = text(e, "event", p, limits_.max_id_bytes);
    const EventKind* kind = nullptr;
    for (const EventKind& k : event_kinds())
      if (ev.event == k.name) kind = &k;
    if (!kind) {
      std::vector<const char*> all;
      for (const EventKind& k : event_kinds()) all.push_back(k.name);
      fail(child(p, "event"),
           "unknown event \"" + ev.event.substr(0, 40) + "\" (" + names_of(all) + ")");
    }
    for (const auto& [key, value] : e.members()) {
      if (key == "step" || key == "agent" || key == "event") continue;
      bool known = false;
      for (const char* k : kind->required) known = known || key == k;
      for (const char* k : kind->optional) known = known || key == k;
      if (!known) {
        std::vector<const char*> allowed = kind->required;
        allowed.insert(allowed.end(), kind->optional.begin(), kind->optional.end());
        fail(child(p, key), "unknown member \"" + key.substr(0, 40) + "\" for a " + kind->name +
                                " event (allowed: step, agent, event, " + names_of(allowed) + ")");
      }
    }
    for (const char* k : kind->required)
      if (!e.contains(k)) fail(p, std::string("missing required member \"") + k + "\"");
    for (const auto& keys : {kind->required, kind->optional})
      for (const char* k : keys)
        if (const Node* v = e.find(k)) ev.members.emplace_back(k, member(k, *v, p));
    if (ev.event == "settled") {
      const bool fulfilled = e["state"].as_string() == "fulfilled";
      if (fulfilled && e.contains("reason"))
        fail(child(p, "reason"), "a fulfilled promise has a value, not a reason");
      if (!fulfilled && e.contains("value"))
        fail(child(p, "value"), "a rejected promise has a reason, not a value");
    }
    return ev;
  }

  // A member's value, of the type its event kind gives it.
  Value member(const char* key, const Node& v, const std::string& p) {
    const std::string at = child(p, key);
    const std::string k = key;
    if (k == "value" || k == "reason" || k == "error")
      return value_of(v, at, limits_.max_string_bytes, limits_.max_depth);
    if (k == "lock") return lock(v, at);
    if (k == "state") return one_of(v, at, {"fulfilled", "rejected"});
    if (k == "previousPriority" || k == "priority")
      return one_of(v, at, {"user-blocking", "user-visible", "background"});
    const std::size_t limit = k == "label" ? limits_.max_string_bytes : limits_.max_id_bytes;
    if (!v.is_string()) fail(at, "expected a string, got " + v.type_name());
    if (v.as_string().size() > limit)
      fail(at, "string of " + std::to_string(v.as_string().size()) +
                   " bytes exceeds the limit of " + std::to_string(limit));
    return Value::string(v.as_string());
  }

  // A callback's lock: null (ifAvailable not granted) or {"name", "mode"}, nothing else.
  Value lock(const Node& v, const std::string& at) {
    if (v.is_null()) return Value::null();
    if (!v.is_object()) fail(at, "expected null or {\"name\", \"mode\"}, got " + v.dump());
    for (const auto& [key, value] : v.members())
      if (key != "name" && key != "mode")
        fail(child(at, key), "unknown member \"" + key.substr(0, 40) + "\" of a lock (name, mode)");
    if (!v.contains("name")) fail(at, "missing required member \"name\"");
    if (!v.contains("mode")) fail(at, "missing required member \"mode\"");
    const Node& name = v["name"];
    if (!name.is_string() || name.as_string().size() > limits_.max_string_bytes)
      fail(child(at, "name"), "expected the lock's name, a string, got " + name.type_name());
    return Value::object_of("name", Value::string(name.as_string()), "mode",
                            one_of(v["mode"], child(at, "mode"), {"exclusive", "shared"}));
  }

  Value one_of(const Node& v, const std::string& at, std::initializer_list<const char*> names) {
    std::string list;
    for (const char* n : names) {
      if (v.equals(n)) return Value::string(n);
      list += std::string(list.empty() ? "" : " or ") + "\"" + n + "\"";
    }
    fail(at, "expected " + list + ", got " + v.dump());
  }

  std::string text(const Node& e, const char* key, const std::string& p, std::size_t limit) {
    const Node* v = e.find(key);
    if (!v) fail(p, std::string("missing required member \"") + key + "\"");
    if (!v->is_string()) fail(child(p, key), "expected a string, got " + v->type_name());
    if (v->as_string().size() > limit)
      fail(child(p, key), "string of " + std::to_string(v->as_string().size()) +
                              " bytes exceeds the limit of " + std::to_string(limit));
    return v->as_string();
  }

  const ReadLimits& limits_;
  Log log_;
  bool seen_format_ = false, seen_version_ = false, seen_events_ = false;
};

Result<Log> read_log_from(detail::ByteSource& source, const ReadLimits& limits) {
  LogReader reader(limits);
  const detail::ParseLimits parse{limits.max_depth * 2 + 8, limits.max_string_bytes};
  if (auto error = detail::parse_document(source, parse, "a log", "events", reader)) return *error;
  try {
    return reader.finish();
  } catch (const detail::ReadFailure& f) {
    return f.error;
  }
}

}  // namespace

Result<Log> read_log(const std::string& text, const ReadLimits& limits) {
  return read_log_from(*detail::ByteSource::of_text(text, limits.max_document_bytes), limits);
}

Result<Log> read_log_file(const std::string& path, const ReadLimits& limits) {
  auto source = detail::ByteSource::open(path, limits.max_document_bytes);
  if (!source) return source.error();
  return read_log_from(*source.value(), limits);
}

Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  auto source = detail::ByteSource::open(path, max_bytes);
  if (!source) return source.error();
  std::string text;
  for (auto it = source.value()->begin(), end = source.value()->end(); it != end; ++it) text += *it;
  if (source.value()->over_limit())
    return Error{"", "file exceeds the limit of " + std::to_string(max_bytes) + " bytes"};
  if (source.value()->read_error())
    return Error{"", std::string("read error: ") + std::strerror(source.value()->read_error())};
  return text;
}

std::string write_log(const Log& log) {
  std::string out = "{\"format\": \"lockstep-log\", \"version\": 1, ";
  if (log.partial) out += "\"partial\": true, ";
  out += "\"events\": [";
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
