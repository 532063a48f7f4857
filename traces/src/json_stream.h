// The strict streaming JSON reader behind every document lockstep reads (traces, logs, targets
// files): bytes are read in chunks and parsed as they come (RapidJSON's SAX reader, which parses
// several times faster than nlohmann's: docs/performance.md, "Reading"), so the
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
#include <utility>

#include "json_node.h"
#include "lockstep/error.h"

namespace lockstep::detail {

// Where a document's bytes come from: a file, standard input ("-"), or text in memory, read in
// chunks. Reads at most `max_bytes`: more is an error, found without reading past the limit. The
// parser reads it as a RapidJSON input stream (Peek, Take, Tell; "\0" at the end).
class ByteSource {
 public:
  using Ch = char;

  // A file, or standard input for "-"; an Error says why it cannot be read (no such file, a
  // folder, no permission).
  static Result<std::unique_ptr<ByteSource>> open(const std::string& path, std::size_t max_bytes);
  static std::unique_ptr<ByteSource> of_text(std::string_view text, std::size_t max_bytes);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  Ch Peek() { return at_ < size_ || refill() ? data_[at_] : '\0'; }
  Ch Take() {
    const Ch c = Peek();
    if (at_ < size_) ++at_;
    return c;
  }
  std::size_t Tell() const { return chunk_offset_ + at_; }
  // JSON's whitespace skipped within the chunk, for SkipWhitespace below.
  void skip_whitespace() {
    for (;;) {
      for (; at_ < size_; ++at_) {
        const char c = data_[at_];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      }
      if (!refill()) return;
    }
  }
  // Writing is never asked of an input stream parsed without kParseInsituFlag.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  // "line L, column C" of a byte offset in the chunk being read (where a parse error is found).
  std::string place(std::size_t offset) const;

  // The document's size when known before reading it (a regular file, or text), else 0.
  std::size_t size_hint() const { return size_hint_; }

  bool over_limit() const { return over_limit_; }
  std::size_t max_bytes() const { return max_bytes_; }
  // errno of a failed read, 0 if none.
  int read_error() const { return read_error_; }
  // Where a NUL byte ended the input, if one did.
  std::optional<std::size_t> nul_offset() const { return nul_offset_; }

 private:
  ByteSource(int fd, bool owns_fd, std::size_t max_bytes);
  bool refill();
  void stop_at_nul();
  void count_lines();  // of the chunk, eight bytes at a time

  int fd_ = -1;
  bool owns_fd_ = false;
  std::size_t max_bytes_;
  std::unique_ptr<char[]> buffer_;
  const char* data_ = nullptr;
  std::size_t at_ = 0, size_ = 0;
  std::size_t chunk_offset_ = 0;  // of data_[0] in the document
  std::size_t lines_before_ = 0;  // newlines in the chunks before this one
  std::size_t chunk_lines_ = 0;   // newlines in this one
  std::size_t line_start_ = 0;    // offset just after the last of them
  std::size_t size_hint_ = 0;
  bool over_limit_ = false;
  bool done_ = false;
  int read_error_ = 0;
  std::optional<std::size_t> nul_offset_;
};

// Found by argument-dependent lookup in place of RapidJSON's own SkipWhitespace, which reads a
// stream like this one a character at a time through Peek and Take.
inline void SkipWhitespace(ByteSource& source) {
  source.skip_whitespace();
}

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
  // Item `index` of the streamed member's array; the sink may move from it or swap it.
  virtual void item(std::size_t index, Node& value) = 0;
  // Converts what the sink has held back of the items, if it holds any back; read_document calls
  // it before reporting a parse error, which comes later in the document.
  virtual void flush() {}
};

// Parses one JSON document whose root must be an object (`what` names it in the error, e.g. "a
// trace"); the items of the top-level member `streamed` go to `sink.item` one by one. Returns the
// first error: malformed JSON (with line and column), the limits, or the sink's refusal.
std::optional<Error> parse_document(ByteSource& source, const ParseLimits& limits,
                                    const std::string& what, std::string_view streamed,
                                    DocumentSink& sink);

// parse_document, then what the sink's finish() makes of the whole (or its refusal).
template <class Sink>
auto read_document(ByteSource& source, const ParseLimits& limits, const std::string& what,
                   std::string_view streamed, Sink& sink) -> Result<decltype(sink.finish())> {
  if (auto error = parse_document(source, limits, what, streamed, sink)) {
    try {
      sink.flush();
    } catch (const ReadFailure& f) {
      return f.error;
    }
    return *error;
  }
  try {
    return sink.finish();
  } catch (const ReadFailure& f) {
    return f.error;
  }
}

// `read` (a function of a ByteSource) on the file at `path`, or why the file cannot be read.
template <class Read>
auto read_path(const std::string& path, std::size_t max_bytes, Read&& read)
    -> decltype(read(std::declval<ByteSource&>())) {
  auto source = ByteSource::open(path, max_bytes);
  if (!source) return source.error();
  return read(*source.value());
}

}  // namespace lockstep::detail
