// Large buffers a replay fills from start to end (the log's events and records) are fresh memory:
// each 4 KiB page costs a page fault when first written, and on the whole-trace benchmark those
// faults were about 5% of the replay (docs/performance.md, "Whole-trace replay"). Advising the
// kernel to back such a buffer with transparent huge pages makes that one fault per 2 MiB. Only
// the whole 2 MiB pages inside the buffer are advised, so nothing outside it changes; where the
// kernel or the platform has no transparent huge pages this does nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lockstep::impl {

inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (start + bytes) & ~(kHugePage - 1);
  if (last > first)  // advice only: a kernel that refuses it leaves the buffer as it was
    (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace lockstep::impl
