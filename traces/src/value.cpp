#include "lockstep/value.h"

#include <algorithm>
#include <atomic>

namespace lockstep {

// The shared block: a reference count (atomic, as copies of one Value may live on several
// threads of an embedder), then what the owning Value's kind has. The kind picks the shape, so
// no block carries the other kinds' members.
namespace detail {
struct ValueBlock {
  mutable std::atomic<std::uint32_t> references{1};
};
}  // namespace detail

namespace {

struct MessageBlock : detail::ValueBlock {
  std::string message;
};
struct ItemsBlock : detail::ValueBlock {
  std::vector<Value> items;
};
struct MembersBlock : detail::ValueBlock {
  std::vector<std::pair<std::string, Value>> members;
};

}  // namespace

void Value::retain() const {
  if (has_compound()) compound_->references.fetch_add(1, std::memory_order_relaxed);
}

void Value::release() {
  if (!has_compound()) return;
  if (compound_->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    switch (kind_) {
      case Kind::Array:
        delete static_cast<const ItemsBlock*>(compound_);
        break;
      case Kind::Object:
        delete static_cast<const MembersBlock*>(compound_);
        break;
      default:  // DOMException (has_compound() rules out the rest)
        delete static_cast<const MessageBlock*>(compound_);
        break;
    }
  }
  compound_ = nullptr;
}

// The union's word, by the member the kind uses.
void Value::copy_word(const Value& other) {
  if (other.kind_ == Kind::Number)
    number_ = other.number_;
  else if (other.kind_ == Kind::Array || other.kind_ == Kind::Object ||
           other.kind_ == Kind::DOMException)
    compound_ = other.compound_;
  else
    number_ = 0;
}

Value::Value(const Value& other)
    : kind_(other.kind_), boolean_(other.boolean_), text_(other.text_) {
  copy_word(other);
  retain();
}

Value::Value(Value&& other) noexcept
    : kind_(other.kind_), boolean_(other.boolean_), text_(std::move(other.text_)) {
  copy_word(other);
  if (other.has_compound()) other.compound_ = nullptr;  // the block moves with it
}

Value& Value::operator=(const Value& other) {
  // Copied first: `other` may live inside the block this value is about to let go of.
  if (this != &other) *this = Value(other);
  return *this;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this != &other) {
    Value taken(std::move(other));  // first, as for a copy: `other` may live in this value's block
    release();
    kind_ = taken.kind_;
    boolean_ = taken.boolean_;
    copy_word(taken);
    text_ = std::move(taken.text_);
    if (taken.has_compound()) taken.compound_ = nullptr;
  }
  return *this;
}

Value::~Value() {
  release();
}

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
  v.compound_ = nullptr;  // nothing to share yet
  if (!items.empty()) {
    auto* block = new ItemsBlock;
    block->items = std::move(items);
    v.compound_ = block;
  }
  return v;
}

Value Value::object(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind_ = Kind::Object;
  v.compound_ = nullptr;  // nothing to share yet
  if (!members.empty()) {
    auto* block = new MembersBlock;  // built in place: no temporary to move from
    block->members = std::move(members);
    v.compound_ = block;
  }
  return v;
}

Value Value::dom_exception(std::string name, std::string message) {
  Value v;
  v.kind_ = Kind::DOMException;
  v.compound_ = nullptr;  // nothing to share yet
  v.text_ = std::move(name);
  if (!message.empty()) {
    auto* block = new MessageBlock;
    block->message = std::move(message);
    v.compound_ = block;
  }
  return v;
}

namespace {
const std::string kNoMessage;
const std::vector<Value> kNoItems;
const std::vector<std::pair<std::string, Value>> kNoMembers;
}  // namespace

const std::string& Value::message() const {
  return kind_ == Kind::DOMException && compound_
             ? static_cast<const MessageBlock*>(compound_)->message
             : kNoMessage;
}

const std::vector<Value>& Value::items() const {
  return kind_ == Kind::Array && compound_ ? static_cast<const ItemsBlock*>(compound_)->items
                                           : kNoItems;
}

const std::vector<std::pair<std::string, Value>>& Value::members() const {
  return kind_ == Kind::Object && compound_ ? static_cast<const MembersBlock*>(compound_)->members
                                            : kNoMembers;
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
