#include "lockstep/log_compare.h"

#include "lockstep/trace_io.h"

namespace lockstep {

std::string write_event(const Event& event) {
  Log one{{event}};
  std::string text = write_log(one);
  auto begin = text.find("\n  ");
  auto end = text.rfind("\n]}");
  return text.substr(begin + 3, end - begin - 3);
}

std::optional<std::string> first_difference(const Log& expected, const Log& actual) {
  std::size_t n = std::min(expected.events.size(), actual.events.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(expected.events[i] == actual.events[i]))
      return "events[" + std::to_string(i) + "]: expected " + write_event(expected.events[i]) +
             ", got " + write_event(actual.events[i]);
  if (expected.events.size() > n)
    return "events[" + std::to_string(n) + "]: expected " + write_event(expected.events[n]) +
           ", got the end of the log";
  if (actual.events.size() > n)
    return "events[" + std::to_string(n) + "]: expected the end of the log, got " +
           write_event(actual.events[n]);
  return std::nullopt;
}

}  // namespace lockstep
