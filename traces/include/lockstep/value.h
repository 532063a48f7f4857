// A script-visible value as traces and logs write it: JSON data, `undefined`, or a DOMException.
// Kept free of any JSON library so the models include nothing heavy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lockstep {

namespace detail {
struct ValueBlock;  // value.cpp
}  // namespace detail

class Value {
 public:
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
  static Value array(std::vector<Value> items);
  static Value object(std::vector<std::pair<std::string, Value>> members);
  // A DOMException is compared and logged by name; the message is informative only.
  static Value dom_exception(std::string name, std::string message = {});

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::Undefined; }
  bool as_boolean() const { return boolean_; }
  double as_number() const { return kind_ == Kind::Number ? number_ : 0; }  // 0: not a Number
  const std::string& as_string() const { return text_; }  // String; DOMException's name
  const std::string& message() const;
  const std::vector<Value>& items() const;
  const std::vector<std::pair<std::string, Value>>& members() const;
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
  void copy_word(const Value& other);
  void retain() const;
  void release();

  Kind kind_ = Kind::Undefined;
  bool boolean_ = false;
  union {
    double number_ = 0;                   // Number
    const detail::ValueBlock* compound_;  // Array, Object, DOMException; null when there is nothing
  };
  std::string text_;
};

}  // namespace lockstep
