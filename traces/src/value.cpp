#include "lockstep/value.h"

#include <algorithm>

namespace lockstep {

Value Value::null() {
  Value v;
  v.kind_ = Kind::Null;
  return v;
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Boolean;
  v.boolean_ = b;
  return v;
}

Value Value::number(double d) {
  Value v;
  v.kind_ = Kind::Number;
  v.number_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.text_ = std::move(s);
  return v;
}

Value Value::array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::Array;
  if (!items.empty()) {
    auto compound = std::make_shared<Compound>();
    compound->items = std::move(items);
    v.compound_ = std::move(compound);
  }
  return v;
}

Value Value::object(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind_ = Kind::Object;
  if (!members.empty()) {
    auto compound = std::make_shared<Compound>();  // built in place: no temporary to move from
    compound->members = std::move(members);
    v.compound_ = std::move(compound);
  }
  return v;
}

Value Value::dom_exception(std::string name, std::string message) {
  Value v;
  v.kind_ = Kind::DOMException;
  v.text_ = std::move(name);
  if (!message.empty())
    v.compound_ = std::make_shared<const Compound>(Compound{std::move(message), {}, {}});
  return v;
}

namespace {
const std::string kNoMessage;
const std::vector<Value> kNoItems;
const std::vector<std::pair<std::string, Value>> kNoMembers;
}  // namespace

const std::string& Value::message() const {
  return compound_ ? compound_->message : kNoMessage;
}

const std::vector<Value>& Value::items() const {
  return compound_ ? compound_->items : kNoItems;
}

const std::vector<std::pair<std::string, Value>>& Value::members() const {
  return compound_ ? compound_->members : kNoMembers;
}

const Value* Value::member(const std::string& key) const {
  for (const auto& [k, v] : members())
    if (k == key) return &v;
  return nullptr;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::Undefined:
    case Value::Kind::Null:
      return true;
    case Value::Kind::Boolean:
      return a.boolean_ == b.boolean_;
    case Value::Kind::Number:
      return a.number_ == b.number_;
    case Value::Kind::String:
    case Value::Kind::DOMException:
      return a.text_ == b.text_;
    case Value::Kind::Array:
      return a.items() == b.items();
    case Value::Kind::Object:
      if (a.members().size() != b.members().size()) return false;
      return std::all_of(a.members().begin(), a.members().end(), [&](const auto& m) {
        const Value* other = b.member(m.first);
        return other && *other == m.second;
      });
  }
  return false;
}

}  // namespace lockstep
