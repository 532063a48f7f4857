#include "lockstep/replay_errors.h"

#include <algorithm>

#include "lockstep/choice_point.h"

namespace lockstep {

Error not_created_yet(const Action& user, std::string_view id, const std::string& what,
                      const Action* definition) {
  const std::string where =
      definition ? " (made by " + Error{definition->pointer, ""}.path() + ")" : "";
  return Error{user.pointer, what + " \"" + std::string(id) + "\"" + where +
                                 " does not exist yet at this point of the replay: the body that "
                                 "makes it has not run"};
}

Error bad_pin(std::size_t index, const std::string& pin, bool ambiguous,
              std::vector<std::string> runnable) {
  std::sort(runnable.begin(), runnable.end());  // the order units are found in is no one's
  std::string names;
  for (const std::string& n : runnable) names += (names.empty() ? "" : ", ") + n;
  // The pins that name no unit belong to one kind of point each (I-26, I-27).
  const char* where = pin == pins::kStep ? "a point before a step"
                      : pin == pins::kIdle || pin == pins::kSettled
                          ? "a point where only idle periods start"
                          : nullptr;
  const std::string what = ambiguous ? "is ambiguous here"
                           : where   ? std::string("is a choice only at ") + where + ", not here"
                                     : "names nothing runnable here";
  return Error{"/schedule/" + std::to_string(index),
               "choice \"" + pin + "\" " + what + "; runnable: " + names};
}

}  // namespace lockstep
