// The strict streaming JSON reader behind every document lockstep reads (traces, logs, targets
// files): bytes are read in chunks and parsed as they come (nlohmann's SAX interface), so the
// size limit holds while reading and no tree of the whole document is ever built. The top-level
// object's members are handed to a sink as each completes, and the items of one array member (a
// trace's steps, a log's events) one by one, so that a reader converts them into its own types
// and the JSON goes. Refused while parsing, each at its JSON pointer: duplicate keys, nesting past
// the limit, strings past the limit, numbers JavaScript cannot hold (traces/README.md, "Limits").
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "json_node.h"
#include "lockstep/error.h"

namespace lockstep::detail {

// Where a document's bytes come from: a file, standard input ("-"), or text in memory. Reads at
// most `max_bytes`; more is an error, found without reading past the limit.
class ByteSource {
 public:
  // A file, or standard input for "-"; an Error says why it cannot be read (no such file, a
  // folder, no permission).
  static Result<std::unique_ptr<ByteSource>> open(const std::string& path, std::size_t max_bytes);
  static std::unique_ptr<ByteSource> of_text(std::string_view text, std::size_t max_bytes);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // The input iterator the parser reads through; the end iterator has no source.
  struct Iterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    ByteSource* source = nullptr;
    const char& operator*() const { return source->data_[source->at_]; }
    Iterator& operator++() {
      ++source->at_;
      return *this;
    }
    bool at_end() const { return source == nullptr || !source->has_byte(); }
    friend bool operator==(const Iterator& a, const Iterator& b) {
      return a.at_end() == b.at_end();
    }
  };
  Iterator begin() { return Iterator{this}; }
  Iterator end() { return Iterator{}; }

  bool over_limit() const { return over_limit_; }
  std::size_t max_bytes() const { return max_bytes_; }
  // errno of a failed read, 0 if none.
  int read_error() const { return read_error_; }
  // Where a NUL byte ended the input, if one did.
  std::optional<std::size_t> nul_offset() const { return nul_offset_; }

 private:
  ByteSource(int fd, bool owns_fd, std::size_t max_bytes);
  bool has_byte() { return at_ < size_ || refill(); }
  bool refill();
  void stop_at_nul(std::size_t offset_of_data);

  int fd_ = -1;
  bool owns_fd_ = false;
  std::size_t max_bytes_;
  std::unique_ptr<char[]> buffer_;
  const char* data_ = nullptr;
  std::size_t at_ = 0, size_ = 0;
  std::size_t total_ = 0;  // bytes taken so far
  bool over_limit_ = false;
  bool done_ = false;
  int read_error_ = 0;
  std::optional<std::size_t> nul_offset_;
};

struct ParseLimits {
  std::size_t max_depth;         // nesting of arrays and objects
  std::size_t max_string_bytes;  // any string or key
};

// Receives a document's parts. A member function may throw ReadFailure to refuse the document.
class DocumentSink {
 public:
  virtual ~DocumentSink() = default;
  // A member of the top-level object, complete (the streamed member: an empty array, after its
  // items went to `item`).
  virtual void member(const std::string& key, Node&& value) = 0;
  // An item of the streamed member's array, at `pointer`.
  virtual void item(std::size_t index, const std::string& pointer, Node&& value) = 0;
};

// Parses one JSON document whose root must be an object (`what` names it in the error, e.g. "a
// trace"); the items of the top-level member `streamed` go to `sink.item` one by one. Returns the
// first error: malformed JSON (with line and column), the limits, or the sink's refusal.
std::optional<Error> parse_document(ByteSource& source, const ParseLimits& limits,
                                    const std::string& what, std::string_view streamed,
                                    DocumentSink& sink);

}  // namespace lockstep::detail
