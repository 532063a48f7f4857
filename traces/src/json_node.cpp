#include "json_node.h"

#include <charconv>
#include <cstdio>
#include <limits>

namespace lockstep::detail {

Node Node::boolean(bool b) {
  Node n(Kind::Boolean);
  n.boolean_ = b;
  return n;
}

Node Node::integer(std::int64_t i) {
  Node n(Kind::Integer);
  n.negative_ = i < 0;
  // The magnitude of INT64_MIN does not fit an int64: negate in unsigned arithmetic.
  n.magnitude_ = n.negative_ ? ~static_cast<std::uint64_t>(i) + 1 : static_cast<std::uint64_t>(i);
  n.number_ = static_cast<double>(i);
  return n;
}

Node Node::unsigned_integer(std::uint64_t u) {
  Node n(Kind::Integer);
  n.magnitude_ = u;
  n.number_ = static_cast<double>(u);
  return n;
}

Node Node::floating(double d, std::string text) {
  Node n(Kind::Float);
  n.number_ = d;
  n.text_ = std::move(text);
  return n;
}

Node Node::string(std::string s) {
  Node n(Kind::String);
  n.text_ = std::move(s);
  return n;
}

std::optional<std::int64_t> Node::exact_integer(std::int64_t min, std::int64_t max) const {
  if (kind_ != Kind::Integer) return std::nullopt;
  if (negative_) {
    if (min >= 0 || magnitude_ > ~static_cast<std::uint64_t>(min) + 1) return std::nullopt;
    return static_cast<std::int64_t>(~magnitude_ + 1);
  }
  if (max < 0 || magnitude_ > static_cast<std::uint64_t>(max)) return std::nullopt;
  const auto value = static_cast<std::int64_t>(magnitude_);
  if (value < min) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> Node::exact_unsigned(std::uint64_t max) const {
  if (kind_ != Kind::Integer || (negative_ && magnitude_ != 0) || magnitude_ > max)
    return std::nullopt;
  return magnitude_;
}

const Node& Node::operator[](std::string_view key) const {
  static const Node none;
  const Node* found = find(key);
  return found ? *found : none;
}

const Node& Node::operator[](std::size_t index) const {
  static const Node none;
  return index < items().size() ? items()[index] : none;
}

std::string Node::type_name() const {
  switch (kind_) {
    case Kind::Null:
      return "null";
    case Kind::Boolean:
      return "a boolean";
    case Kind::Integer:
    case Kind::Float:
      return "a number";
    case Kind::String:
      return "a string";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
  }
  return "a value";
}

namespace {

void quote(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

}  // namespace

void Node::dump_to(std::string& out, std::size_t max_chars) const {
  if (out.size() > max_chars) return;
  switch (kind_) {
    case Kind::Null:
      out += "null";
      break;
    case Kind::Boolean:
      out += boolean_ ? "true" : "false";
      break;
    case Kind::Integer:
      if (negative_) out += '-';
      out += std::to_string(magnitude_);
      break;
    case Kind::Float:
      out += text_;
      break;
    case Kind::String:
      quote(out, text_);
      break;
    case Kind::Array:
      out += '[';
      for (std::size_t i = 0; i < items().size() && out.size() <= max_chars; ++i) {
        if (i) out += ", ";
        items()[i].dump_to(out, max_chars);
      }
      out += ']';
      break;
    case Kind::Object:
      out += '{';
      for (std::size_t i = 0; i < members().size() && out.size() <= max_chars; ++i) {
        if (i) out += ", ";
        quote(out, members()[i].first);
        out += ": ";
        members()[i].second.dump_to(out, max_chars);
      }
      out += '}';
      break;
  }
}

std::string Node::dump(std::size_t max_chars) const {
  std::string out;
  dump_to(out, max_chars);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

void fail(const std::string& pointer, const std::string& message) {
  throw ReadFailure{Error{pointer, message}};
}

std::string child(const std::string& pointer, std::string_view key) {
  std::string out;
  out.reserve(pointer.size() + key.size() + 1);
  out.append(pointer).push_back('/');
  if (key.find_first_of("~/") == std::string_view::npos) return out.append(key);
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string child(const std::string& pointer, std::size_t index) {
  char digits[24];
  char* end = std::to_chars(digits, digits + sizeof digits, index).ptr;
  std::string out;
  out.reserve(pointer.size() + 1 + static_cast<std::size_t>(end - digits));
  out.append(pointer).push_back('/');
  return out.append(digits, end);
}

Value value_of(const Node& node, const std::string& pointer, std::size_t max_string_bytes,
               std::size_t max_depth, std::size_t depth) {
  if (depth > max_depth) fail(pointer, "value nested deeper than " + std::to_string(max_depth));
  switch (node.kind()) {
    case Node::Kind::Null:
      return Value::null();
    case Node::Kind::Boolean:
      return Value::boolean(node.as_boolean());
    case Node::Kind::Integer:
    case Node::Kind::Float:
      return Value::number(node.as_double());
    case Node::Kind::String:
      if (node.as_string().size() > max_string_bytes)
        fail(pointer, "string of " + std::to_string(node.as_string().size()) +
                          " bytes exceeds the limit of " + std::to_string(max_string_bytes));
      return Value::string(node.as_string());
    case Node::Kind::Array: {
      std::vector<Value> items;
      items.reserve(node.items().size());
      for (std::size_t i = 0; i < node.items().size(); ++i)
        items.push_back(
            value_of(node.items()[i], child(pointer, i), max_string_bytes, max_depth, depth + 1));
      return Value::array(std::move(items));
    }
    case Node::Kind::Object: {
      if (node.size() == 1 && node.contains("DOMException")) {
        const Node& name = *node.find("DOMException");
        if (!name.is_string() || name.as_string().empty() ||
            name.as_string().size() > max_string_bytes)
          fail(child(pointer, "DOMException"),
               "expected the DOMException's name, e.g. \"AbortError\", got " + name.dump());
        return Value::dom_exception(name.as_string());
      }
      std::vector<Value::Member> members;
      members.reserve(node.members().size());
      for (const auto& [key, member] : node.members())
        members.emplace_back(
            key, value_of(member, child(pointer, key), max_string_bytes, max_depth, depth + 1));
      return Value::object(std::move(members));
    }
  }
  fail(pointer, "unsupported JSON value");
}

}  // namespace lockstep::detail
