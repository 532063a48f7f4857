// Errors are values: where (a JSON pointer into the trace) and what.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace lockstep {

struct Error {
  std::string pointer;  // RFC 6901 JSON pointer, "" for the whole document
  std::string message;

  // "steps[4].options.mode": the pointer as a reader of the trace would write the path.
  std::string path() const;
  // "steps[4].options.mode (/steps/4/options/mode): message", or just the message at the root.
  std::string to_string() const;
};

// The result of an operation that can fail with an Error.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}
  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace lockstep
