#include "lockstep/choice_point.h"

namespace lockstep {

std::vector<std::string> schedule_of_choices(const std::vector<std::string>& choices) {
  std::vector<std::string> schedule;
  schedule.reserve(choices.size());
  // Backwards, so that the pin that follows each choice in the schedule is known when it is met.
  const auto next_pin_is = [&](std::string_view pin) {
    return !schedule.empty() && schedule.back() == pin;
  };
  const auto next_pin_is_early = [&] {
    return !schedule.empty() && pins::is_early(schedule.back());
  };
  for (auto it = choices.rbegin(); it != choices.rend(); ++it) {
    // A "step" (I-26) or "idle" (I-27) is what happens there without a pin for the point, unless
    // the next pin is one that point would take: an "early:" or "settled" pin, or another "step"
    // or "idle" kept for a later point of its kind.
    bool needed = true;
    if (*it == pins::kStep) needed = next_pin_is_early() || next_pin_is(pins::kStep);
    if (*it == pins::kIdle) needed = next_pin_is(pins::kSettled) || next_pin_is(pins::kIdle);
    if (needed) schedule.push_back(*it);
  }
  return {schedule.rbegin(), schedule.rend()};
}

}  // namespace lockstep
