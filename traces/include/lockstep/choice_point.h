// A choice point as an engine hands it to a chooser (`lockstep check`'s search): the units runnable
// now, named as a trace's `schedule` names them, so that both engines offer the same vocabulary
// and a schedule found on one replays on the other.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep {

// The pins of a schedule that name no unit, and the prefix that runs a unit before a step
// (traces/README.md, "schedule"), spelled once for the reader, both engines, check and export.
namespace pins {
inline constexpr std::string_view kStep = "step";           // I-26: the step begins
inline constexpr std::string_view kEarly = "early:";        // I-26: "early:<unit>" runs it first
inline constexpr std::string_view kIdle = "idle";           // I-27: the idle periods start
inline constexpr std::string_view kSettled = "settled";     // I-27: the settling ends without
inline constexpr std::string_view kAnyLockQueue = "locks";  // the one lock task queue there is

inline bool is_early(std::string_view pin) {
  return pin.substr(0, kEarly.size()) == kEarly;
}
// The unit an "early:" pin names; any other pin as it is.
inline std::string_view unit_of(std::string_view pin) {
  return is_early(pin) ? pin.substr(kEarly.size()) : pin;
}
}  // namespace pins

struct ChoicePoint {
  std::vector<std::string> names;
  // Those the suggested strategy proposes (I-17: per loop, the scheduler's queue by effective
  // priority against the loop's other tasks), and the one the canonical policy would run.
  std::vector<std::size_t> proposals;
  std::size_t canonical = 0;
  // I-26: a point before a step, where names[0] is "step" (begin it: canonical) and the other
  // names are "early:<unit>"; the name picked is listed in the choices taken.
  bool before_step = false;
  // I-27: a point where only idle periods could start, with names {"idle", "settled"}: start
  // them (canonical) or end the settling without; the name picked is listed in the choices taken.
  bool idle_only = false;
};

// Returns the index in `names` of the unit to run.
using Chooser = std::function<std::size_t(const ChoicePoint&)>;

// The `schedule` that replays a run's choices (names as a chooser was offered them, in order): the
// same list without each "step" (I-26) and "idle" (I-27) that the point would take anyway. A step
// begins at every pin but "early:" and "step", and idle periods start at every pin but "settled"
// and "idle"; a "step" or "idle" is kept where such a pin comes next, or that pin would be taken
// at this earlier point.
std::vector<std::string> schedule_of_choices(const std::vector<std::string>& choices);

}  // namespace lockstep
