// The impl runtime's event log. While a replay runs, each event is one record appended to a flat
// array: the frequent ones (a callback, a task, an idle callback, a settlement) keep the trace id
// they name as a view and their value as is, so nothing is allocated for them. The records become
// the shared `Log` format (lockstep/log.h) only when the log is read: in one pass, away from the
// replay's own working set. The events are the same; only when they are built moves. On the
// whole-trace benchmark this made the replay 10-13% faster (docs/performance.md, "Whole-trace
// replay"). The agent names, and ids too long to copy (short_id.h), are views: the trace must
// outlive the records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lockstep/log.h"
#include "short_id.h"

namespace lockstep::impl {

using Members = std::vector<std::pair<std::string, Value>>;

class RecordedLog {
 public:
  void reserve(std::size_t events);

  // An event whose members the caller built.
  void record(int step, const std::string* agent, const char* event, Members members);
  // `event` with one member, `key`: `id`; then, when `with_value`, "lock": `value` (a lock
  // granted callback's lock info, or null).
  void record_callback(int step, const std::string* agent, const char* event, const char* key,
                       ShortId id, bool with_value, const Value& value);
  // "settled" with target: `target`, state, and value or reason unless `value` is undefined.
  void record_settled(int step, const std::string* agent, ShortId target, bool fulfilled,
                      const Value& value);

  // The events recorded so far, in the shared format (copies: the records' views are not kept).
  const Log& log();
  Log take();

 private:
  enum class Shape : std::uint8_t { Built, Callback, Settled };
  struct Record {
    Shape shape = Shape::Built;
    bool flag = false;  // Callback: with the lock member; Settled: fulfilled
    int step = 0;
    const std::string* agent = nullptr;
    const char* event = nullptr;
    const char* key = nullptr;  // Callback
    ShortId id;                 // Callback: the id; Settled: the target
    Value value;                // Callback: the lock info; Settled: the value or reason
    Members members;            // Built
  };
  // A record with what every shape has; the caller fills in the rest.
  Record& append(Shape shape, int step, const std::string* agent, const char* event);
  void flush();

  std::vector<Record> records_;  // not yet in log_
  Log log_;
};

}  // namespace lockstep::impl
