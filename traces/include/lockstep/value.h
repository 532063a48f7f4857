// A script-visible value as traces and logs write it: JSON data, `undefined`, or a DOMException.
// Kept free of any JSON library so the models include nothing heavy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lockstep {

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
  double as_number() const { return number_; }
  const std::string& as_string() const { return text_; }  // String; DOMException's name
  const std::string& message() const;
  const std::vector<Value>& items() const;
  const std::vector<std::pair<std::string, Value>>& members() const;
  const Value* member(const std::string& key) const;

  // Structural equality; DOMExceptions compare by name only, objects by members in any order.
  friend bool operator==(const Value& a, const Value& b);

 private:
  // What only some kinds have (a DOMException's message, an array's items, an object's members),
  // in one block that copies share: a Value never changes once made, so a copy of an object is a
  // reference count, and a Value is 64 bytes instead of 128 (event logs hold ~10^5 of them).
  struct Compound {
    std::string message;
    std::vector<Value> items;
    std::vector<std::pair<std::string, Value>> members;
  };
  Kind kind_ = Kind::Undefined;
  bool boolean_ = false;
  double number_ = 0;
  std::string text_;
  std::shared_ptr<const Compound> compound_;
};

}  // namespace lockstep
