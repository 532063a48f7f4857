// Conversions between lockstep::Value and nlohmann JSON; private to the traces library.
#pragma once

#include <nlohmann/json.hpp>

#include "lockstep/value.h"

namespace lockstep::detail {

using Json = nlohmann::ordered_json;

Json to_json(const Value& value);
// Any JSON as a value; {"DOMException": name} is a DOMException. No limits: for trusted logs.
Value from_json(const Json& json);

}  // namespace lockstep::detail
