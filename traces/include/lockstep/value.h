// A script-visible value as traces and logs write it: JSON data, `undefined`, or a DOMException.
// Kept free of any JSON library so the models include nothing heavy.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lockstep {

namespace detail {
// What every kind's shared block starts with (the shapes are in value.cpp): a reference count,
// atomic, as copies of one Value may live on several threads of an embedder.
struct ValueBlock {
  mutable std::atomic<std::uint32_t> references{1};
};
}  // namespace detail

class Value {
 public:
  using Member = std::pair<std::string, Value>;

  enum class Kind : std::uint8_t {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
    DOMException
  };

  Value() = default;  // undefined
  Value(const Value& other);
  Value(Value&& other) noexcept;
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;
  ~Value();

  static Value null();
  static Value boolean(bool b);
  static Value number(double d);
  static Value string(std::string s);
  static Value string(std::string_view s);  // the text copied once, straight into the value
  static Value string(const char* s);
  static Value array(std::vector<Value> items);
  static Value object(std::vector<Member> members);
  // An object of the members given as key, value, key, value, ..., each built straight into the
  // object's block: no vector in between (the impl engine makes a lock info on every grant).
  template <class... KeysAndValues>
  static Value object_of(KeysAndValues&&... keys_and_values) {
    static_assert(sizeof...(keys_and_values) > 0 && sizeof...(keys_and_values) % 2 == 0);
    Value v = object_with_room(sizeof...(keys_and_values) / 2);
    v.add_members(std::forward<KeysAndValues>(keys_and_values)...);
    return v;
  }
  // A DOMException is compared and logged by name; the message is informative only.
  static Value dom_exception(std::string name, std::string message = {});

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::Undefined; }
  bool as_boolean() const { return boolean_; }
  double as_number() const { return kind_ == Kind::Number ? number_ : 0; }  // 0: not a Number
  const std::string& as_string() const { return text_; }  // String; DOMException's name
  const std::string& message() const;
  const std::vector<Value>& items() const;
  std::span<const Member> members() const;
  const Value* member(const std::string& key) const;

  // Structural equality; DOMExceptions compare by name only, objects by members in any order.
  friend bool operator==(const Value& a, const Value& b);

 private:
  // What only some kinds have (a DOMException's message, an array's items, an object's members)
  // lives in a block of that kind's own shape (value.cpp), shared by copies: a Value never changes
  // once made, so a copy of an object is a reference count. Only a Number needs `number_` and only
  // those three kinds a block, so they share a word, and a Value is 48 bytes (event logs hold
  // ~10^5 of them, docs/performance.md).
  bool has_compound() const {
    return (kind_ == Kind::Array || kind_ == Kind::Object || kind_ == Kind::DOMException) &&
           compound_ != nullptr;
  }
  // The union's word as bits: whichever member the kind uses travels, and the kinds that use
  // neither keep it zero, so no branch on the kind is needed.
  void copy_word(const Value& other) {
    std::memcpy(static_cast<void*>(&number_), static_cast<const void*>(&other.number_),
                sizeof number_);
  }
  void retain() const {
    if (has_compound()) compound_->references.fetch_add(1, std::memory_order_relaxed);
  }
  // Drops one reference to `block`, which a value of kind `kind` held, and frees it at the last.
  static void release(const detail::ValueBlock* block, Kind kind) {
    if (block != nullptr && block->references.fetch_sub(1, std::memory_order_acq_rel) == 1)
      destroy(block, kind);
  }
  static void destroy(const detail::ValueBlock* block, Kind kind);  // the last reference went

  // An object whose block has room for `members` members, none built yet (object_of).
  static Value object_with_room(std::size_t members);
  void add_member(std::string&& key, Value&& value);  // into that room, in order
  template <class V, class... Rest>
  void add_members(const char* key, V&& value, Rest&&... rest) {
    add_member(std::string(key), Value(std::forward<V>(value)));
    if constexpr (sizeof...(rest) > 0) add_members(std::forward<Rest>(rest)...);
  }

  Kind kind_ = Kind::Undefined;
  bool boolean_ = false;
  union {
    double number_ = 0;                   // Number
    const detail::ValueBlock* compound_;  // Array, Object, DOMException; null when there is nothing
  };
  std::string text_;
};

// The copies, moves and destructor are inline: values move through every promise and job of a
// replay (about ten moves per step of the whole-trace benchmark, docs/performance.md). Only a
// String or a DOMException has text, so for the other kinds the string is left alone: moving even
// an empty std::string copies its buffer through a call to memcpy.
inline Value::Value(const Value& other) : kind_(other.kind_), boolean_(other.boolean_) {
  if (!other.text_.empty()) text_ = other.text_;
  copy_word(other);
  retain();
}

inline Value::Value(Value&& other) noexcept : kind_(other.kind_), boolean_(other.boolean_) {
  if (!other.text_.empty()) text_ = std::move(other.text_);
  copy_word(other);
  if (other.has_compound()) other.compound_ = nullptr;  // the block moves with it
}

// Both assignments let go of the block this value held last: `other` may live inside it.
inline Value& Value::operator=(const Value& other) {
  const detail::ValueBlock* previous = has_compound() ? compound_ : nullptr;
  const Kind previous_kind = kind_;
  if (!text_.empty() || !other.text_.empty()) text_ = other.text_;
  other.retain();  // before the release: on self-assignment the two cancel out
  kind_ = other.kind_;
  boolean_ = other.boolean_;
  copy_word(other);
  release(previous, previous_kind);
  return *this;
}

inline Value& Value::operator=(Value&& other) noexcept {
  if (this == &other) return *this;
  const detail::ValueBlock* previous = has_compound() ? compound_ : nullptr;
  const Kind previous_kind = kind_;
  if (!text_.empty() || !other.text_.empty()) text_ = std::move(other.text_);
  kind_ = other.kind_;
  boolean_ = other.boolean_;
  copy_word(other);
  if (other.has_compound()) other.compound_ = nullptr;  // the block moves with it
  release(previous, previous_kind);
  return *this;
}

inline Value::~Value() {
  if (has_compound()) release(compound_, kind_);
}

}  // namespace lockstep
