#include "json_value.h"

#include <cmath>
#include <cstdint>

namespace lockstep::detail {

Json to_json(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::Undefined:  // callers leave undefined members out; inside arrays, null
    case Value::Kind::Null:
      return nullptr;
    case Value::Kind::Boolean:
      return value.as_boolean();
    case Value::Kind::Number: {
      double d = value.as_number();
      // Integers print without a fraction, as JavaScript prints them.
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9007199254740992.0)
        return static_cast<std::int64_t>(d);
      return d;
    }
    case Value::Kind::String:
      return value.as_string();
    case Value::Kind::Array: {
      Json out = Json::array();
      for (const Value& item : value.items()) out.push_back(to_json(item));
      return out;
    }
    case Value::Kind::Object: {
      Json out = Json::object();
      for (const auto& [key, member] : value.members())
        if (!member.is_undefined()) out[key] = to_json(member);
      return out;
    }
    case Value::Kind::DOMException:
      return Json{{"DOMException", value.as_string()}};
  }
  return nullptr;
}

}  // namespace lockstep::detail
