#include "recorded_log.h"

#include <algorithm>

#include "huge_pages.h"

namespace lockstep::impl {

void RecordedLog::reserve(std::size_t events) {
  records_.reserve(events);
  advise_huge_pages(records_.data(), records_.capacity() * sizeof(Record));
}

RecordedLog::Record& RecordedLog::append(Shape shape, int step, const std::string* agent,
                                         const char* event) {
  Record& r = records_.emplace_back();
  r.shape = shape;
  r.step = step;
  r.agent = agent;
  r.event = event;
  return r;
}

void RecordedLog::record(int step, const std::string* agent, const char* event, Members members) {
  append(Shape::Built, step, agent, event).members = std::move(members);
}

void RecordedLog::record_callback(int step, const std::string* agent, const char* event,
                                  const char* key, ShortId id, bool with_value,
                                  const Value& value) {
  Record& r = append(Shape::Callback, step, agent, event);
  r.flag = with_value;
  r.key = key;
  r.id = id;
  if (with_value) r.value = value;
}

void RecordedLog::record_settled(int step, const std::string* agent, ShortId target, bool fulfilled,
                                 const Value& value) {
  Record& r = append(Shape::Settled, step, agent, "settled");
  r.flag = fulfilled;
  r.id = target;
  r.value = value;
}

// The members in the order traces/README.md lists them for each event.
void RecordedLog::flush() {
  const std::size_t needed = log_.events.size() + records_.size();
  if (needed > log_.events.capacity()) {  // geometric: check reads the log after every unit
    log_.events.reserve(std::max(needed, 2 * log_.events.capacity()));
    advise_huge_pages(log_.events.data(), log_.events.capacity() * sizeof(Event));
  }
  for (Record& r : records_) {
    Event& e = log_.events.emplace_back();
    e.step = r.step;
    e.agent = *r.agent;
    e.event = r.event;
    switch (r.shape) {
      case Shape::Built:
        e.members = std::move(r.members);
        break;
      case Shape::Callback:
        e.members.reserve(r.flag ? 2 : 1);
        e.members.emplace_back(r.key, Value::string(r.id.view()));
        if (r.flag) e.members.emplace_back("lock", std::move(r.value));
        break;
      case Shape::Settled:
        e.members.reserve(r.value.is_undefined() ? 2 : 3);
        e.members.emplace_back("target", Value::string(r.id.view()));
        e.members.emplace_back("state", Value::string(r.flag ? "fulfilled" : "rejected"));
        if (!r.value.is_undefined())
          e.members.emplace_back(r.flag ? "value" : "reason", std::move(r.value));
        break;
    }
  }
  records_.clear();
}

const Log& RecordedLog::log() {
  if (!records_.empty()) flush();
  return log_;
}

Log RecordedLog::take() {
  flush();
  records_ = {};
  return std::move(log_);
}

}  // namespace lockstep::impl
