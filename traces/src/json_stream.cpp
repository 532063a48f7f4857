#include "json_stream.h"

#include <fcntl.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace lockstep::detail {

namespace {
constexpr std::size_t kChunkBytes = 256u << 10;
}

ByteSource::ByteSource(int fd, bool owns_fd, std::size_t max_bytes)
    : fd_(fd), owns_fd_(owns_fd), max_bytes_(max_bytes) {}

ByteSource::~ByteSource() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<ByteSource>> ByteSource::open(const std::string& path,
                                                     std::size_t max_bytes) {
  int fd = STDIN_FILENO;
  const bool is_stdin = path == "-";
  if (!is_stdin) {
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return Error{"", std::string("cannot open the file: ") + std::strerror(errno)};
  }
  struct stat st {};
  const bool known = ::fstat(fd, &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    if (!is_stdin) ::close(fd);
    return Error{"", "is a folder, not a file"};
  }
  // A file known to be too large is refused before a byte of it is parsed: what a parse builds
  // before the limit (a trace's steps) can take several times the bytes it read.
  if (known && S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    if (!is_stdin) ::close(fd);
    return Error{"", "document of " + std::to_string(st.st_size) + " bytes exceeds the limit of " +
                         std::to_string(max_bytes) + " bytes"};
  }
  std::unique_ptr<ByteSource> source(new ByteSource(fd, !is_stdin, max_bytes));
  if (known && S_ISREG(st.st_mode)) source->size_hint_ = static_cast<std::size_t>(st.st_size);
  source->buffer_ = std::make_unique<char[]>(kChunkBytes);
  return source;
}

std::unique_ptr<ByteSource> ByteSource::of_text(std::string_view text, std::size_t max_bytes) {
  std::unique_ptr<ByteSource> source(new ByteSource(-1, false, max_bytes));
  source->data_ = text.data();
  // Text over the limit is refused whole: the parser sees nothing and the limit is reported.
  source->over_limit_ = text.size() > max_bytes;
  source->size_ = source->over_limit_ ? 0 : text.size();
  source->size_hint_ = source->size_;
  source->stop_at_nul();
  source->count_lines();
  return source;
}

bool ByteSource::refill() {
  if (fd_ < 0 || done_ || over_limit_) return false;
  // The chunk read is done with: its newlines count for the places of errors after it.
  if (size_ > 0) {
    lines_before_ += chunk_lines_;
    if (const void* last = memrchr(data_, '\n', size_))
      line_start_ =
          chunk_offset_ + static_cast<std::size_t>(static_cast<const char*>(last) - data_) + 1;
  }
  chunk_offset_ += size_;
  at_ = size_ = 0;
  ssize_t n;
  do n = ::read(fd_, buffer_.get(), kChunkBytes);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    if (n < 0) read_error_ = errno;
    done_ = true;
    return false;
  }
  std::size_t got = static_cast<std::size_t>(n);
  if (got > max_bytes_ - chunk_offset_) {  // past the limit: keep what fits, read no more
    got = max_bytes_ - chunk_offset_;
    over_limit_ = true;
  }
  data_ = buffer_.get();
  size_ = got;
  stop_at_nul();
  count_lines();
  return size_ > 0;
}

// A byte is a newline when it XORs to zero with '\n': eight bytes are tested at once.
void ByteSource::count_lines() {
  constexpr std::uint64_t kHighs = 0x8080808080808080u, kLow7 = 0x7f7f7f7f7f7f7f7fu;
  constexpr std::uint64_t kNewlines = 0x0a0a0a0a0a0a0a0au;
  std::size_t lines = 0, i = 0;
  for (; i + 8 <= size_; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data_ + i, sizeof w);
    const std::uint64_t x = w ^ kNewlines;
    const std::uint64_t zero = ~(((x & kLow7) + kLow7) | x) & kHighs;  // per byte: x == 0
    lines += static_cast<std::size_t>(((zero >> 7) * 0x0101010101010101u) >> 56);  // their sum
  }
  for (; i < size_; ++i) lines += data_[i] == '\n';
  chunk_lines_ = lines;
}

// A NUL byte is where both JSON libraries' streams end: a document that went on after one would
// be accepted with the rest unread. The bytes end there, and the parse is refused.
void ByteSource::stop_at_nul() {
  const void* nul = std::memchr(data_, 0, size_);
  if (!nul) return;
  size_ = static_cast<std::size_t>(static_cast<const char*>(nul) - data_);
  nul_offset_ = chunk_offset_ + size_;
  done_ = true;
}

std::string ByteSource::place(std::size_t offset) const {
  std::size_t line = lines_before_ + 1, start = line_start_;
  const std::size_t end = offset < chunk_offset_ ? 0 : std::min(offset - chunk_offset_, size_);
  for (std::size_t i = 0; i < end; ++i)
    if (data_[i] == '\n') {
      ++line;
      start = chunk_offset_ + i + 1;
    }
  return "line " + std::to_string(line) + ", column " +
         std::to_string(offset >= start ? offset - start + 1 : 1);
}

namespace {

// RapidJSON's message for an error code, as a clause: "missing a comma or ']' after an array
// element".
std::string clause(rapidjson::ParseErrorCode code) {
  std::string text = rapidjson::GetParseError_En(code);
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// A JSON number as written: an integer literal (no fraction, no exponent) that fits 64 bits keeps
// its exact value; anything else is read as JavaScript reads it, to the nearest double.
std::optional<Node> number_of(std::string_view text) {
  const bool integer = text.find_first_of(".eE") == std::string_view::npos;
  if (integer) {
    const char* end = text.data() + text.size();
    if (text[0] == '-') {
      std::int64_t i;
      if (auto r = std::from_chars(text.data(), end, i); r.ec == std::errc() && r.ptr == end)
        return Node::integer(i);
    } else {
      std::uint64_t u;
      if (auto r = std::from_chars(text.data(), end, u); r.ec == std::errc() && r.ptr == end)
        return Node::unsigned_integer(u);
    }
  }
  const std::string copy(text);  // strtod wants an end; the C locale reads '.' as the point
  errno = 0;
  const double d = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(d)) return std::nullopt;  // RapidJSON refuses most before; 2^1024 gets here
  return Node::floating(d, copy);
}

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. Strings are checked
// here rather than by RapidJSON's kParseValidateEncodingFlag, which decodes every character
// through the stream: ASCII, nearly all of what traces and logs hold, is checked eight bytes at a
// time.
bool valid_utf8_beyond_ascii(const char* text, std::size_t length) {
  const auto* s = reinterpret_cast<const unsigned char*>(text);
  std::size_t i = 0;
  while (i < length) {
    if (i + 8 <= length) {
      std::uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t extra;
    std::uint32_t code;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= length) return false;  // cut short
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    if ((extra == 2 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) ||
        (extra == 3 && (code < 0x10000 || code > 0x10FFFF)))
      return false;
    i += extra + 1;
  }
  return true;
}

// Checked for each string as RapidJSON delivers it, escapes decoded: a document all ASCII can still
// spell a lone surrogate as "\udc00", which RapidJSON 1.1 decodes into bytes no UTF-8 has. The
// short ASCII strings that are nearly all of a trace or log leave after one pass, in line.
inline bool valid_utf8(const char* text, std::size_t length) {
  unsigned char high = 0;
  for (std::size_t i = 0; i < length; ++i) high |= static_cast<unsigned char>(text[i]);
  return high < 0x80 || valid_utf8_beyond_ascii(text, length);
}

// One container under construction. The root object and the streamed array build nothing: their
// members and items go to the sink as they complete. Those are built in their frame's own node,
// which keeps its room for the next one; any container below them is built in place, in its
// parent's items or members (Node::open_item), so that nothing is moved into its parent.
struct Frame {
  Node own;
  Node* in_place = nullptr;  // set: the value is built there, not in `own`
  std::string key;           // object: the member being read
  std::size_t index = 0;     // array: the item being read
  bool root = false;
  bool streamed = false;
  // Keys seen, once an object has too many members for a linear search to stay cheap.
  std::unique_ptr<std::unordered_set<std::string>> keys;
  Node& node() { return in_place ? *in_place : own; }
  const Node& node() const { return in_place ? *in_place : own; }
  bool is_object() const { return root || node().is_object(); }
  // Its values are built in its container, not handed to the sink.
  bool builds() const { return !root && !streamed; }
  // The slot of the value read next in this frame's container (a frame that builds), reset to
  // `kind`; `completed` once the value is whole.
  Node& next(Node::Kind kind) {
    Node& container = node();
    return container.is_array() ? container.open_item(kind) : container.open_member(key, kind);
  }
  void completed() {
    if (node().is_array()) ++index;
  }
};

// The SAX handler (RapidJSON's, resolved at compile time: no virtual calls). Numbers come as
// their text (kParseNumbersAsStringsFlag), so that integers stay exact.
class Handler {
 public:
  using Ch = char;
  static constexpr const char* kNotUtf8 = "a string that is not valid UTF-8";
  Handler(const ParseLimits& limits, const std::string& what, std::string_view streamed,
          DocumentSink& sink)
      : limits_(limits), what_(what), streamed_(streamed), sink_(sink) {}

  std::optional<Error> error;
  bool root_closed = false;

  bool Null() { return scalar(Node()); }
  bool Bool(bool b) { return scalar(Node::boolean(b)); }
  bool RawNumber(const Ch* text, rapidjson::SizeType length, bool) {
    auto n = number_of(std::string_view(text, length));
    if (!n)
      return refuse("the number " + std::string(text, std::min<std::size_t>(length, 40)) +
                    " is out of range of a double");
    return scalar(std::move(*n));
  }
  // Never called under kParseNumbersAsStringsFlag; the reader's interface needs them.
  bool Int(int i) { return scalar(Node::integer(i)); }
  bool Uint(unsigned u) { return scalar(Node::unsigned_integer(u)); }
  bool Int64(std::int64_t i) { return scalar(Node::integer(i)); }
  bool Uint64(std::uint64_t u) { return scalar(Node::unsigned_integer(u)); }
  bool Double(double d) { return scalar(Node::floating(d, std::to_string(d))); }
  bool String(const Ch* text, rapidjson::SizeType length, bool) {
    if (length > limits_.max_string_bytes) return refuse(too_long(length));
    if (!valid_utf8(text, length)) return refuse(kNotUtf8);
    const std::string_view s(text, length);
    if (depth_ > 0 && frames_[depth_ - 1].builds()) {  // in place: its slot keeps its room
      Frame& parent = frames_[depth_ - 1];
      parent.next(Node::Kind::String).set_text(s);
      parent.completed();
      return true;
    }
    return scalar(Node(s));
  }
  bool StartObject() { return open(Node::Kind::Object); }
  bool StartArray() { return open(Node::Kind::Array); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  bool Key(const Ch* text, rapidjson::SizeType length, bool) {
    Frame& f = frames_[depth_ - 1];
    if (length > limits_.max_string_bytes) {
      f.key.clear();
      return refuse(too_long(length));
    }
    f.key.clear();
    f.key.append(text, length);
    if (!valid_utf8(text, length)) return refuse(kNotUtf8);
    if (is_duplicate(f)) return refuse("duplicate member \"" + f.key.substr(0, 40) + "\"");
    return true;
  }

 private:
  std::string too_long(std::size_t bytes) const {
    return "string of " + std::to_string(bytes) + " bytes exceeds the limit of " +
           std::to_string(limits_.max_string_bytes);
  }

  // The pointer of what is being read: each open container's current member or item.
  std::string pointer() const {
    std::string p;
    for (std::size_t d = 0; d < depth_; ++d)
      p = frames_[d].is_object() ? child(p, frames_[d].key) : child(p, frames_[d].index);
    return p;
  }

  bool refuse(const std::string& message) {
    error = Error{pointer(), message};
    return false;
  }

  bool is_duplicate(Frame& f) {
    if (f.root || f.keys) {
      if (!f.keys) f.keys = std::make_unique<std::unordered_set<std::string>>();
      return !f.keys->insert(f.key).second;
    }
    const auto members = f.node().members();
    if (members.size() < 16) {
      for (const auto& m : members)
        if (Node::same_text(m.first, f.key)) return true;
      return false;
    }
    f.keys = std::make_unique<std::unordered_set<std::string>>();
    for (const auto& m : members) f.keys->insert(m.first);
    return !f.keys->insert(f.key).second;
  }

  // Frames are reused in place, depth by depth: an object at the depth of a trace's steps or a
  // log's events keeps the room its members took in the one before.
  bool open(Node::Kind kind) {
    if (depth_ >= limits_.max_depth)
      return refuse("JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    if (depth_ == 0 && kind != Node::Kind::Object) return not_an_object("an array");
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame* parent = depth_ > 0 ? &frames_[depth_ - 1] : nullptr;
    Frame& f = frames_[depth_];
    f.key.clear();
    f.index = 0;
    f.keys.reset();
    f.root = parent == nullptr;
    f.streamed = kind == Node::Kind::Array && parent && parent->root && parent->key == streamed_;
    // The parent's key is copied into the member, not moved: an error inside names it.
    f.in_place = parent && parent->builds() ? &parent->next(kind) : nullptr;
    if (!f.in_place) f.own.reset(f.root || f.streamed ? Node::Kind::Null : kind);
    if (kind == Node::Kind::Object && !f.root) f.node().reserve_members(4);
    root_opened_ = true;
    ++depth_;
    return true;
  }

  bool close() {
    Frame& f = frames_[--depth_];
    if (f.root) {
      root_closed = true;
      return true;
    }
    if (f.streamed) {
      Node empty(Node::Kind::Array);
      return deliver(empty);
    }
    if (f.in_place) {  // already in its container
      frames_[depth_ - 1].completed();
      return true;
    }
    return deliver(f.own);
  }

  bool scalar(Node&& n) {
    if (depth_ == 0) return not_an_object(n.type_name());
    return deliver(n);
  }

  bool not_an_object(const std::string& got) {
    error = Error{"", what_ + " is a JSON object, got " + got};
    return false;
  }

  // Hands a complete value to its container, or to the sink: a streamed item by reference, so
  // that its frame keeps its room for the next one.
  bool deliver(Node& n) {
    Frame& parent = frames_[depth_ - 1];
    try {
      if (parent.root) {
        sink_.member(parent.key, std::move(n));
      } else if (parent.streamed) {
        sink_.item(parent.index, n);
        ++parent.index;
      } else {
        parent.next(n.kind()) = std::move(n);
        parent.completed();
      }
    } catch (const ReadFailure& f) {
      error = f.error;
      return false;
    }
    return true;
  }

  const ParseLimits& limits_;
  const std::string& what_;
  std::string_view streamed_;
  DocumentSink& sink_;
  std::vector<Frame> frames_;  // frames_[0, depth_) are open
  std::size_t depth_ = 0;
  bool root_opened_ = false;
};

}  // namespace

std::optional<Error> parse_document(ByteSource& source, const ParseLimits& limits,
                                    const std::string& what, std::string_view streamed,
                                    DocumentSink& sink) {
  Handler handler(limits, what, streamed, sink);
  rapidjson::Reader reader;
  // Iterative: no recursion however deep the document (the handler stops it at the limit).
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(source, handler);
  // The reasons the bytes stopped come first: what the parser made of a cut document is moot.
  if (source.over_limit())
    return Error{"",
                 "document exceeds the limit of " + std::to_string(source.max_bytes()) + " bytes"};
  if (source.read_error())
    return Error{"", std::string("read error: ") + std::strerror(source.read_error())};
  if (source.nul_offset())
    return Error{"", "malformed JSON at " + source.place(*source.nul_offset()) +
                         ": a NUL byte, which JSON text never has"};
  if (handler.error) return handler.error;
  if (result.IsError()) {
    if (result.Code() == rapidjson::kParseErrorDocumentEmpty)
      return Error{"", "empty document: expected " + what + ", a JSON object"};
    return Error{
        "", "malformed JSON at " + source.place(result.Offset()) + ": " + clause(result.Code())};
  }
  if (!handler.root_closed) return Error{"", "malformed JSON"};
  return std::nullopt;
}

}  // namespace lockstep::detail
