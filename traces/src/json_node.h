// A JSON value as the strict reader (json_stream.h) hands it to the trace and log readers: an
// integer keeps its exact value apart from its double, so that "1.0", "1e0" or 2^64 is never
// taken for a whole number; an object keeps its members in document order, duplicates having
// been refused while parsing. Only small subtrees exist at a time (a step, an event, a top-level
// member), so the shape favours simple access over size. Private to the traces library.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "lockstep/error.h"
#include "lockstep/value.h"

namespace lockstep::detail {

class Node {
 public:
  enum class Kind : std::uint8_t { Null, Boolean, Integer, Float, String, Array, Object };
  using Member = std::pair<std::string, Node>;

  Node() = default;
  explicit Node(Kind kind) : kind_(kind) {}
  explicit Node(std::string_view text) : kind_(Kind::String), text_(text) {}  // a String
  static Node boolean(bool b);
  static Node integer(std::int64_t i);
  static Node unsigned_integer(std::uint64_t u);
  static Node floating(double d, std::string text);  // `text`: as written, for messages
  static Node string(std::string s);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_integer() const {
    return kind_ == Kind::Integer;
  }  // written without fraction or exponent
  bool is_number() const { return kind_ == Kind::Integer || kind_ == Kind::Float; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }

  bool as_boolean() const { return boolean_; }
  double as_double() const { return number_; }
  const std::string& as_string() const { return text_; }
  // The exact value of an Integer within [min, max]; nothing for any other node or value.
  std::optional<std::int64_t> exact_integer(std::int64_t min, std::int64_t max) const;
  std::optional<std::uint64_t> exact_unsigned(std::uint64_t max) const;

  std::span<const Node> items() const {
    return {items_.data(), kind_ == Kind::Array ? used_.n : 0};
  }
  std::span<const Member> members() const {
    return {members_.data(), kind_ == Kind::Object ? used_.n : 0};
  }
  std::size_t size() const { return is_array() || is_object() ? used_.n : 0; }
  const Node* find(std::string_view key) const {
    for (const Member& m : members())
      if (same_text(m.first, key)) return &m.second;
    return nullptr;
  }
  // Keys are a few bytes: compared in line, where memcmp's call would cost more than the bytes.
  static bool same_text(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // The member or item, or a null node when there is none (callers test `contains` first).
  const Node& operator[](std::string_view key) const;
  const Node& operator[](std::size_t index) const;
  bool equals(std::string_view s) const { return kind_ == Kind::String && same_text(text_, s); }

  // Empty, of `kind`. The items and members it had stay behind the count, with the room of their
  // own strings and containers, for the next value built here: a parser that reuses a node per
  // trace step or log event then allocates nothing once the first few are read.
  void reset(Kind kind) {
    kind_ = kind;
    boolean_ = negative_ = false;
    magnitude_ = 0;
    number_ = 0;
    text_.clear();
    used_.n = 0;
  }
  // For a reader that consumes the node: its members to move from, its string moved out.
  std::span<Member> mutable_members() {
    return {members_.data(), kind_ == Kind::Object ? used_.n : 0};
  }
  std::string take_string() { return std::move(text_); }

  // The next item or member, reset to `kind`, to be filled in place (the parser builds each value
  // in its container; an item or member left behind by `reset` is reused).
  Node& open_item(Kind kind) {
    Node& item = next_item();
    item.reset(kind);
    return item;
  }
  Node& open_member(std::string_view key, Kind kind) {
    Node& member = next_member(key);
    member.reset(kind);
    return member;
  }
  // A String's text, into a node just reset to a String (its room kept).
  void set_text(std::string_view text) {
    text_.clear();
    text_.append(text);  // not assign: see next_member
  }
  // Room for a few members before the first, for an object under construction: most objects of a
  // trace or log have two to six, and growing one at a time reallocates twice on the way.
  void reserve_members(std::size_t n) { members_.reserve(n); }

  // "a string", "an array", ... for messages.
  std::string type_name() const;
  // Compact JSON of the node, cut after about `max_chars`, for messages.
  std::string dump(std::size_t max_chars = 80) const;

 private:
  void dump_to(std::string& out, std::size_t max_chars) const;
  Node& next_item() {
    if (used_.n == items_.size()) items_.emplace_back();
    return items_[used_.n++];
  }
  Node& next_member(std::string_view key) {
    if (used_.n == members_.size()) members_.emplace_back();
    Member& m = members_[used_.n++];
    m.first.clear();
    m.first.append(key);  // not assign: its general path was a tenth of a trace's read
    return m.second;
  }

  // How many of items_ or members_ are this node's; a node moved from has none.
  struct Count {
    std::size_t n = 0;
    Count() = default;
    Count(const Count&) = default;
    Count& operator=(const Count&) = default;
    Count(Count&& other) noexcept : n(other.n) { other.n = 0; }
    Count& operator=(Count&& other) noexcept {
      n = other.n;
      other.n = 0;
      return *this;
    }
  };

  Kind kind_ = Kind::Null;
  bool boolean_ = false;
  bool negative_ = false;        // Integer: the sign; the magnitude is `magnitude_`
  std::uint64_t magnitude_ = 0;  // Integer
  double number_ = 0;            // Integer and Float, as JavaScript would read it
  std::string text_;             // String; a Float as written
  std::vector<Node> items_;      // Array: the first used_ of them
  std::vector<Member> members_;  // Object, in document order: the first used_ of them
  Count used_;
};

// A refusal found while converting nodes: thrown by `fail`, caught by the reader's sink, which
// stops the parse with it (json_stream.h).
struct ReadFailure {
  Error error;
};
[[noreturn]] void fail(const std::string& pointer, const std::string& message);

// RFC 6901: `pointer` + "/" + the key with "~" and "/" escaped.
std::string child(const std::string& pointer, std::string_view key);
std::string child(const std::string& pointer, std::size_t index);

// A value of a trace or a log (traces/README.md): any JSON, with {"DOMException": "<name>"} for a
// DOMException. Strings longer than `max_string_bytes`, nesting deeper than `max_depth` and
// numbers JavaScript cannot hold are refused at their pointer.
Value value_of(const Node& node, const std::string& pointer, std::size_t max_string_bytes,
               std::size_t max_depth, std::size_t depth = 0);

}  // namespace lockstep::detail
