// A trace id carried by value when it is short, as nearly all are ("r12", "t3"), and as a view
// into the trace otherwise. An event that names an id is often logged long after the action that
// made it ran (a request settles when its lock is released, many steps later); by then that
// action's text is out of the cache, and reading it back was one cache miss per event
// (docs/performance.md, "Whole-trace replay"). A copy made while the action runs travels with the
// work that logs it instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace lockstep::impl {

class ShortId {
 public:
  ShortId() = default;
  explicit ShortId(std::string_view id) {
    if (id.size() <= kInline) {
      if (!id.empty()) std::memcpy(bytes_, id.data(), id.size());  // a null data() only if empty
      size_ = static_cast<std::uint8_t>(id.size());
    } else {  // the trace outlives the replay that carries this view
      const char* data = id.data();
      const std::size_t size = id.size();
      std::memcpy(bytes_, &data, sizeof data);
      std::memcpy(bytes_ + sizeof data, &size, sizeof size);
      size_ = kLong;
    }
  }

  std::string_view view() const {
    if (size_ != kLong) return std::string_view(bytes_, size_);
    const char* data = nullptr;
    std::size_t size = 0;
    std::memcpy(&data, bytes_, sizeof data);
    std::memcpy(&size, bytes_ + sizeof data, sizeof size);
    return std::string_view(data, size);
  }

 private:
  static constexpr std::size_t kInline = 23;
  static constexpr std::uint8_t kLong = 0xff;
  alignas(8) char bytes_[kInline] = {};  // the id, or (when long) a pointer and a size
  std::uint8_t size_ = 0;
};

static_assert(sizeof(ShortId) == 24, "three words, as a std::string_view and its size would be");

}  // namespace lockstep::impl
