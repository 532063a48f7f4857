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

Value from_json(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return Value::null();
    case Json::value_t::boolean:
      return Value::boolean(j.get<bool>());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return Value::number(j.get<double>());
    case Json::value_t::string:
      return Value::string(j.get<std::string>());
    case Json::value_t::array: {
      std::vector<Value> items;
      for (const Json& item : j) items.push_back(from_json(item));
      return Value::array(std::move(items));
    }
    case Json::value_t::object: {
      if (j.size() == 1 && j.contains("DOMException") && j["DOMException"].is_string())
        return Value::dom_exception(j["DOMException"].get<std::string>());
      std::vector<std::pair<std::string, Value>> members;
      for (auto it = j.begin(); it != j.end(); ++it) members.emplace_back(it.key(), from_json(*it));
      return Value::object(std::move(members));
    }
    default:
      return Value();
  }
}

}  // namespace lockstep::detail
