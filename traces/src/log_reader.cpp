// Reads a lockstep-log (traces/README.md, "The event log"; schema/log.schema.json) into a Log,
// holding every event to its kind's members and their types: a log is an implementation's word,
// so what it says is either what the format says or bad input, never a silent default. Each
// event is converted as soon as it is parsed (json_stream.h).
#include <sys/mman.h>

#include <array>
#include <limits>
#include <new>
#include <string_view>

#include "json_node.h"
#include "json_stream.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

using detail::fail;
using detail::Node;

// Every member an event may have, and what its value is.
enum class Member : std::uint8_t {
  Step,
  Agent,
  Event,  // every event's
  Request,
  Lock,
  Task,
  Id,
  Target,
  State,
  Value,
  Reason,
  Signal,
  PreviousPriority,
  Priority,
  Op,
  Error,
  Label,
  Count
};
// In the enum's order.
constexpr std::array<std::string_view, static_cast<std::size_t>(Member::Count)> kMemberNames{
    "step",  "agent",  "event",  "request",          "lock",     "task", "id",    "target", "state",
    "value", "reason", "signal", "previousPriority", "priority", "op",   "error", "label"};

std::optional<Member> member_named(std::string_view key) {
  for (std::size_t i = 0; i < kMemberNames.size(); ++i)
    if (kMemberNames[i] == key) return static_cast<Member>(i);
  return std::nullopt;
}

std::string_view name_of(Member m) {
  return kMemberNames[static_cast<std::size_t>(m)];
}

// The members each kind of event has, required first, in the order the format lists them: an
// event read is laid out as the engines log it.
struct EventKind {
  std::string_view name;
  std::vector<Member> required;
  std::vector<Member> optional;
};

const std::vector<EventKind>& event_kinds() {
  static const std::vector<EventKind> kinds{
      {"callback", {Member::Request, Member::Lock}, {}},
      {"task", {Member::Task}, {}},
      {"idle", {Member::Id}, {}},
      {"settled", {Member::Target, Member::State}, {Member::Value, Member::Reason}},
      {"prioritychange", {Member::Signal, Member::PreviousPriority, Member::Priority}, {}},
      {"threw", {Member::Op, Member::Error}, {}},
      {"mark", {Member::Label}, {}},
  };
  return kinds;
}

std::string names_of(const std::vector<Member>& members) {
  std::string out;
  for (Member m : members) out += std::string(out.empty() ? "" : ", ") + std::string(name_of(m));
  return out;
}

// Where an event is, spelt out only when something there is refused: most events are not.
struct EventAt {
  std::size_t index;
  operator std::string() const { return "/events/" + std::to_string(index); }
};
std::string child(EventAt at, std::string_view key) {
  return detail::child(std::string(at), key);
}

class LogReader : public detail::DocumentSink {
 public:
  explicit LogReader(const ReadLimits& limits) : limits_(limits) {}

  void member(const std::string& key, Node&& value) override {
    if (key == "format") {
      if (value.equals("lockstep-trace"))
        fail("/format",
             "expected \"lockstep-log\": this is a trace (\"lockstep-trace\"), not an event log");
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
      fail(detail::child("", key),
           "unknown member \"" + key + "\" (allowed here: format, version, events, partial)");
    }
  }

  void item(std::size_t index, Node& value) override {
    if (log_.events.size() >= limits_.max_actions)
      fail(EventAt{index},
           "more than " + std::to_string(limits_.max_actions) + " events in one log");
    log_.events.push_back(read_event(value, EventAt{index}));
  }

  void expect(std::size_t events) {
    try {
      log_.events.reserve(events);
    } catch (const std::bad_alloc&) {  // only an estimate: without it the vector grows as usual
      return;
    }
    // Large logs fill hundreds of megabytes: in huge pages that is a few hundred page faults
    // instead of ~10^5 (a sixth of the read's time otherwise). Advice only; ignored elsewhere.
    const std::size_t bytes = log_.events.capacity() * sizeof(Event);
    if (bytes >= (64u << 20)) {
      const auto start = reinterpret_cast<std::uintptr_t>(log_.events.data());
      const std::uintptr_t page = 2u << 20, from = (start + page - 1) & ~(page - 1);
      if (from < start + bytes)
        madvise(reinterpret_cast<void*>(from), (start + bytes - from) & ~(page - 1), MADV_HUGEPAGE);
    }
  }

  Log finish() {
    if (!seen_format_) fail("", "missing required member \"format\"");
    if (!seen_version_) fail("", "missing required member \"version\"");
    if (!seen_events_) fail("", "missing required member \"events\"");
    return std::move(log_);
  }

 private:
  using Slots = std::array<Node*, static_cast<std::size_t>(Member::Count)>;

  Event read_event(Node& e, EventAt p) {
    if (!e.is_object()) fail(p, "an event is an object, got " + e.type_name());
    Slots slot{};
    for (auto& [key, value] : e.mutable_members()) {
      const auto m = member_named(key);
      if (!m) fail(child(p, key), "unknown member \"" + key.substr(0, 40) + "\" of an event");
      slot[static_cast<std::size_t>(*m)] = &value;
    }
    Event ev;
    const Node* step = slot[0];
    if (!step) fail(p, "missing required member \"step\"");
    const auto index = step->exact_integer(0, std::numeric_limits<int>::max());
    if (!index)
      fail(child(p, "step"),
           "expected the index of a top-level step (a whole number from 0), got " + step->dump());
    ev.step = static_cast<int>(*index);
    ev.agent = text(slot, Member::Agent, p, limits_.max_id_bytes);
    ev.event = text(slot, Member::Event, p, limits_.max_id_bytes);
    const EventKind& kind = kind_of(ev.event, p);
    for (std::size_t m = static_cast<std::size_t>(Member::Request); m < slot.size(); ++m) {
      if (!slot[m]) continue;
      const auto member = static_cast<Member>(m);
      if (!is_one_of(member, kind.required) && !is_one_of(member, kind.optional)) {
        std::vector<Member> allowed = kind.required;
        allowed.insert(allowed.end(), kind.optional.begin(), kind.optional.end());
        fail(child(p, name_of(member)), "unknown member \"" + std::string(name_of(member)) +
                                            "\" for a " + std::string(kind.name) +
                                            " event (allowed: step, agent, event, " +
                                            names_of(allowed) + ")");
      }
    }
    for (Member m : kind.required)
      if (!slot[static_cast<std::size_t>(m)])
        fail(p, "missing required member \"" + std::string(name_of(m)) + "\"");
    for (const auto* members : {&kind.required, &kind.optional})
      for (Member m : *members)
        if (Node* v = slot[static_cast<std::size_t>(m)])
          ev.members.emplace_back(std::string(name_of(m)), value_of_member(m, *v, p));
    if (slot[static_cast<std::size_t>(Member::State)]) {
      const bool fulfilled = slot[static_cast<std::size_t>(Member::State)]->equals("fulfilled");
      if (fulfilled && slot[static_cast<std::size_t>(Member::Reason)])
        fail(child(p, "reason"), "a fulfilled promise has a value, not a reason");
      if (!fulfilled && slot[static_cast<std::size_t>(Member::Value)])
        fail(child(p, "value"), "a rejected promise has a reason, not a value");
    }
    return ev;
  }

  static bool is_one_of(Member m, const std::vector<Member>& members) {
    for (Member x : members)
      if (x == m) return true;
    return false;
  }

  const EventKind& kind_of(const std::string& event, EventAt p) {
    for (const EventKind& k : event_kinds())
      if (event == k.name) return k;
    std::string all;
    for (const EventKind& k : event_kinds()) all += (all.empty() ? "" : ", ") + std::string(k.name);
    fail(child(p, "event"), "unknown event \"" + event.substr(0, 40) + "\" (" + all + ")");
  }

  // A member's value, of the type its event kind gives it.
  lockstep::Value value_of_member(Member m, Node& v, EventAt p) {
    switch (m) {
      case Member::Value:
      case Member::Reason:
      case Member::Error:
        if (v.is_number()) return lockstep::Value::number(v.as_double());  // nothing to refuse
        return detail::value_of(v, child(p, name_of(m)), limits_.max_string_bytes,
                                limits_.max_depth);
      case Member::Lock:
        return lock(v, p);
      case Member::State:
        return one_of(v, p, m, {"fulfilled", "rejected"});
      case Member::PreviousPriority:
      case Member::Priority:
        return one_of(v, p, m, {"user-blocking", "user-visible", "background"});
      default: {
        const std::size_t limit =
            m == Member::Label ? limits_.max_string_bytes : limits_.max_id_bytes;
        return lockstep::Value::string(string_of(v, p, m, limit));
      }
    }
  }

  std::string string_of(Node& v, EventAt p, Member m, std::size_t limit) {
    if (!v.is_string()) fail(child(p, name_of(m)), "expected a string, got " + v.type_name());
    if (v.as_string().size() > limit)
      fail(child(p, name_of(m)), "string of " + std::to_string(v.as_string().size()) +
                                     " bytes exceeds the limit of " + std::to_string(limit));
    return v.take_string();
  }

  // A callback's lock: null (ifAvailable not granted) or {"name", "mode"}, nothing else.
  lockstep::Value lock(Node& v, EventAt p) {
    if (v.is_null()) return lockstep::Value::null();
    const auto at = [&] { return child(p, "lock"); };
    if (!v.is_object()) fail(at(), "expected null or {\"name\", \"mode\"}, got " + v.dump());
    Node *name = nullptr, *mode = nullptr;
    for (auto& [key, value] : v.mutable_members()) {
      if (key == "name")
        name = &value;
      else if (key == "mode")
        mode = &value;
      else
        fail(detail::child(at(), key),
             "unknown member \"" + key.substr(0, 40) + "\" of a lock (name, mode)");
    }
    if (!name) fail(at(), "missing required member \"name\"");
    if (!mode) fail(at(), "missing required member \"mode\"");
    if (!name->is_string() || name->as_string().size() > limits_.max_string_bytes)
      fail(detail::child(at(), "name"),
           "expected the lock's name, a string, got " + name->type_name());
    lockstep::Value mode_value;
    if (mode->equals("exclusive"))
      mode_value = lockstep::Value::string("exclusive");
    else if (mode->equals("shared"))
      mode_value = lockstep::Value::string("shared");
    else
      fail(detail::child(at(), "mode"),
           "expected \"exclusive\" or \"shared\", got " + mode->dump());
    return lockstep::Value::object_of("name", lockstep::Value::string(name->take_string()), "mode",
                                      std::move(mode_value));
  }

  lockstep::Value one_of(const Node& v, EventAt p, Member m,
                         std::initializer_list<const char*> names) {
    std::string list;
    for (const char* n : names) {
      if (v.equals(n)) return lockstep::Value::string(n);
      list += std::string(list.empty() ? "" : " or ") + "\"" + n + "\"";
    }
    fail(child(p, name_of(m)), "expected " + list + ", got " + v.dump());
  }

  std::string text(Slots& slot, Member m, EventAt p, std::size_t limit) {
    Node* v = slot[static_cast<std::size_t>(m)];
    if (!v) fail(p, "missing required member \"" + std::string(name_of(m)) + "\"");
    return string_of(*v, p, m, limit);
  }

  const ReadLimits& limits_;
  Log log_;
  bool seen_format_ = false, seen_version_ = false, seen_events_ = false;
};

Result<Log> read_log_from(detail::ByteSource& source, const ReadLimits& limits) {
  LogReader reader(limits);
  // The events are sized once from the document's size (hardly an event is written in fewer
  // bytes than this), so that the vector never grows: growing moves every event read so far and
  // touches their memory twice. Room never used is never touched, so it takes no memory.
  constexpr std::size_t kFewestBytesPerEvent = 48;
  reader.expect(std::min(source.size_hint() / kFewestBytesPerEvent, limits.max_actions));
  const detail::ParseLimits parse{limits.max_depth * 2 + 8, limits.max_string_bytes};
  return detail::read_document(source, parse, "a log", "events", reader);
}

}  // namespace

Result<Log> read_log(const std::string& text, const ReadLimits& limits) {
  return read_log_from(*detail::ByteSource::of_text(text, limits.max_document_bytes), limits);
}

Result<Log> read_log_file(const std::string& path, const ReadLimits& limits) {
  return detail::read_path(path, limits.max_document_bytes, [&](detail::ByteSource& source) {
    return read_log_from(source, limits);
  });
}

}  // namespace lockstep
