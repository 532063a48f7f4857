// Comparing a log with an expected one, event by event, with a message that says where.
#pragma once

#include <optional>
#include <string>

#include "lockstep/log.h"

namespace lockstep {

std::string write_event(const Event& event);
// Nothing when equal; otherwise "events[3]: expected ..., got ..." for the first difference.
std::optional<std::string> first_difference(const Log& expected, const Log& actual);

}  // namespace lockstep
