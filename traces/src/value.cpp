#include "lockstep/value.h"

#include <algorithm>
#include <new>

namespace lockstep {

// The shared blocks: detail::ValueBlock's reference count (value.h), then what the owning Value's
// kind has. The kind picks the shape, so no block carries the other kinds' members.

namespace {

struct MessageBlock : detail::ValueBlock {
  std::string message;
};
struct ItemsBlock : detail::ValueBlock {
  std::vector<Value> items;
};
// An object's members live right after its block, in one allocation: a lock info is one
// allocation instead of a block and a vector's buffer.
struct MembersBlock : detail::ValueBlock {
  std::uint32_t size = 0;  // members built so far; the room was sized when the block was made

  void* room() { return reinterpret_cast<char*>(this) + sizeof(MembersBlock); }
  Value::Member* begin() { return std::launder(static_cast<Value::Member*>(room())); }
  const Value::Member* begin() const { return const_cast<MembersBlock*>(this)->begin(); }

  static MembersBlock* make(std::size_t room) {
    void* raw = ::operator new(sizeof(MembersBlock) + room * sizeof(Value::Member));
    return new (raw) MembersBlock;
  }
  static void destroy(const MembersBlock* block) {
    auto* b = const_cast<MembersBlock*>(block);
    for (std::uint32_t i = 0; i < b->size; ++i) b->begin()[i].~pair();
    b->~MembersBlock();
    ::operator delete(static_cast<void*>(b));
  }
};
static_assert(sizeof(MembersBlock) % alignof(Value::Member) == 0, "members follow the block");

}  // namespace

void Value::destroy(const detail::ValueBlock* block, Kind kind) {
  switch (kind) {
    case Kind::Array:
      delete static_cast<const ItemsBlock*>(block);
      break;
    case Kind::Object:
      MembersBlock::destroy(static_cast<const MembersBlock*>(block));
      break;
    default:  // DOMException (only the compound kinds have a block)
      delete static_cast<const MessageBlock*>(block);
      break;
  }
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

Value Value::string(std::string_view s) {
  Value v;
  v.kind_ = Kind::String;
  v.text_.assign(s.data(), s.size());
  return v;
}

Value Value::string(const char* s) {
  return string(std::string_view(s));
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

Value Value::object(std::vector<Member> members) {
  Value v = object_with_room(members.size());
  for (Member& m : members) v.add_member(std::move(m.first), std::move(m.second));
  return v;
}

Value Value::object_with_room(std::size_t members) {
  Value v;
  v.kind_ = Kind::Object;
  v.compound_ = members == 0 ? nullptr : MembersBlock::make(members);  // empty: nothing to share
  return v;
}

// Only while object_of or object() builds the value: no copy shares the block yet.
void Value::add_member(std::string&& key, Value&& value) {
  auto* block = const_cast<MembersBlock*>(static_cast<const MembersBlock*>(compound_));
  new (static_cast<Member*>(block->room()) + block->size) Member(std::move(key), std::move(value));
  ++block->size;
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

std::span<const Value::Member> Value::members() const {
  if (kind_ != Kind::Object || !compound_) return {};
  const auto* block = static_cast<const MembersBlock*>(compound_);
  return {block->begin(), block->size};
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
