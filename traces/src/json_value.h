// lockstep::Value as nlohmann JSON (for writing); private to the traces library.
#pragma once

#include <nlohmann/json.hpp>

#include "lockstep/value.h"

namespace lockstep::detail {

using Json = nlohmann::ordered_json;

Json to_json(const Value& value);

}  // namespace lockstep::detail
