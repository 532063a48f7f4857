#include "json_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
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
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!is_stdin) ::close(fd);
    return Error{"", "is a folder, not a file"};
  }
  std::unique_ptr<ByteSource> source(new ByteSource(fd, !is_stdin, max_bytes));
  source->buffer_ = std::make_unique<char[]>(kChunkBytes);
  return source;
}

std::unique_ptr<ByteSource> ByteSource::of_text(std::string_view text, std::size_t max_bytes) {
  std::unique_ptr<ByteSource> source(new ByteSource(-1, false, max_bytes));
  source->data_ = text.data();
  // Text over the limit is refused whole: the parser sees nothing and the limit is reported.
  source->over_limit_ = text.size() > max_bytes;
  source->size_ = source->over_limit_ ? 0 : text.size();
  source->total_ = source->size_;
  source->stop_at_nul(0);
  return source;
}

bool ByteSource::refill() {
  if (fd_ < 0 || done_ || over_limit_) return false;
  ssize_t n;
  do n = ::read(fd_, buffer_.get(), kChunkBytes);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    if (n < 0) read_error_ = errno;
    done_ = true;
    return false;
  }
  std::size_t got = static_cast<std::size_t>(n);
  if (got > max_bytes_ - total_) {  // past the limit: keep what fits, read no more
    got = max_bytes_ - total_;
    over_limit_ = true;
  }
  data_ = buffer_.get();
  at_ = 0;
  size_ = got;
  total_ += got;
  stop_at_nul(total_ - got);
  return size_ > 0;
}

// nlohmann's lexer takes a NUL byte for the end of the input and would accept a document that
// goes on after one: the bytes end there, and the parse is refused.
void ByteSource::stop_at_nul(std::size_t offset_of_data) {
  const void* nul = std::memchr(data_, 0, size_);
  if (!nul) return;
  size_ = static_cast<std::size_t>(static_cast<const char*>(nul) - data_);
  nul_offset_ = offset_of_data + size_;
  done_ = true;
}

namespace {

using nlohmann::json;

// nlohmann's message without its exception id: "at line 3, column 5: syntax error while ...";
// a message that has no place of its own (a number too large) gets the byte offset.
std::string malformed(std::size_t byte, const nlohmann::detail::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
    what = what.substr(what.find("] ") + 2);
  if (what.rfind("parse error ", 0) == 0) return "malformed JSON " + what.substr(12);
  return "malformed JSON at byte " + std::to_string(byte) + ": " + what;
}

// One container under construction. The root object and the streamed array build nothing: their
// members and items go to the sink as they complete.
struct Frame {
  Node node;
  std::string key;        // object: the member being read
  std::size_t index = 0;  // array: the item being read
  bool root = false;
  bool streamed = false;
  // Keys seen, once an object has too many members for a linear search to stay cheap.
  std::unique_ptr<std::unordered_set<std::string>> keys;
  bool is_object() const { return root || node.is_object(); }
};

// The SAX handler (nlohmann's interface, resolved at compile time: no virtual calls).
class Handler {
 public:
  Handler(const ParseLimits& limits, const std::string& what, std::string_view streamed,
          DocumentSink& sink)
      : limits_(limits), what_(what), streamed_(streamed), sink_(sink) {}

  std::optional<Error> error;
  bool started = false;  // a value or container began
  bool root_closed = false;

  bool null() { return scalar(Node()); }
  bool boolean(bool b) { return scalar(Node::boolean(b)); }
  bool number_integer(json::number_integer_t i) { return scalar(Node::integer(i)); }
  bool number_unsigned(json::number_unsigned_t u) { return scalar(Node::unsigned_integer(u)); }
  bool number_float(json::number_float_t d, const json::string_t& text) {
    if (!std::isfinite(d))
      return refuse("the number " + text.substr(0, 40) + " is out of range of a double");
    return scalar(Node::floating(d, text));
  }
  bool string(json::string_t& s) {
    if (s.size() > limits_.max_string_bytes) return refuse(too_long(s.size()));
    return scalar(Node::string(std::move(s)));
  }
  bool binary(json::binary_t&) { return refuse("binary data is not JSON"); }
  bool start_object(std::size_t) { return open(Node::Kind::Object); }
  bool start_array(std::size_t) { return open(Node::Kind::Array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    f.key = std::move(k);
    if (f.key.size() > limits_.max_string_bytes) return refuse(too_long(f.key.size()));
    if (is_duplicate(f)) return refuse("duplicate member \"" + f.key.substr(0, 40) + "\"");
    return true;
  }

  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    if (!error) error = Error{"", malformed(byte, e)};
    return false;
  }

 private:
  std::string too_long(std::size_t bytes) const {
    return "string of " + std::to_string(bytes) + " bytes exceeds the limit of " +
           std::to_string(limits_.max_string_bytes);
  }

  // The pointer of what is being read: each open container's current member or item.
  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_) p = f.is_object() ? child(p, f.key) : child(p, f.index);
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
    const auto& members = f.node.members();
    if (members.size() < 16) {
      for (const auto& m : members)
        if (m.first == f.key) return true;
      return false;
    }
    f.keys = std::make_unique<std::unordered_set<std::string>>();
    for (const auto& m : members) f.keys->insert(m.first);
    return !f.keys->insert(f.key).second;
  }

  bool open(Node::Kind kind) {
    started = true;
    if (frames_.empty()) {
      if (kind != Node::Kind::Object) return not_an_object("an array");
      frames_.emplace_back().root = true;
      return true;
    }
    if (frames_.size() >= limits_.max_depth)
      return refuse("JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    const Frame& parent = frames_.back();
    Frame f;
    f.streamed = kind == Node::Kind::Array && parent.root && parent.key == streamed_;
    if (!f.streamed) f.node = Node(kind);
    frames_.push_back(std::move(f));
    return true;
  }

  bool close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (f.root) {
      root_closed = true;
      return true;
    }
    return deliver(f.streamed ? Node(Node::Kind::Array) : std::move(f.node));
  }

  bool scalar(Node&& n) {
    started = true;
    if (frames_.empty()) return not_an_object(n.type_name());
    return deliver(std::move(n));
  }

  bool not_an_object(const std::string& got) {
    error = Error{"", what_ + " is a JSON object, got " + got};
    return false;
  }

  bool deliver(Node&& n) {
    Frame& parent = frames_.back();
    try {
      if (parent.root) {
        sink_.member(parent.key, std::move(n));
      } else if (parent.streamed) {
        sink_.item(parent.index, child(child("", frames_[0].key), parent.index), std::move(n));
        ++parent.index;
      } else if (parent.node.is_array()) {
        parent.node.add_item(std::move(n));
        ++parent.index;
      } else {
        parent.node.add_member(std::move(parent.key), std::move(n));
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
  std::vector<Frame> frames_;
};

}  // namespace

std::optional<Error> parse_document(ByteSource& source, const ParseLimits& limits,
                                    const std::string& what, std::string_view streamed,
                                    DocumentSink& sink) {
  Handler handler(limits, what, streamed, sink);
  const bool parsed = json::sax_parse(source.begin(), source.end(), &handler);
  // The reasons the bytes stopped come first: what the parser made of a cut document is moot.
  if (source.over_limit())
    return Error{"",
                 "document exceeds the limit of " + std::to_string(source.max_bytes()) + " bytes"};
  if (source.read_error())
    return Error{"", std::string("read error: ") + std::strerror(source.read_error())};
  if (source.nul_offset())
    return Error{"", "malformed JSON at byte " + std::to_string(*source.nul_offset()) +
                         ": a NUL byte, which JSON text never has"};
  if (handler.error) {
    // Nothing but blanks: say so rather than what the parser expected next.
    if (!handler.started &&
        handler.error->message.find("unexpected end of input") != std::string::npos)
      return Error{"", "empty document: expected " + what + ", a JSON object"};
    return handler.error;
  }
  if (!parsed || !handler.root_closed) return Error{"", "malformed JSON"};
  return std::nullopt;
}

}  // namespace lockstep::detail
