// The part of the Storage standard that Web Locks uses to find its lock manager (I-12).
#pragma once

#include <optional>
#include <string>

#include "environment.h"

namespace lockstep::spec {

// storage#storage-key, reduced to what decides sharing here: the user agent and the origin.
struct StorageKey {
  std::string partition;
  std::string origin;
  friend bool operator<(const StorageKey& a, const StorageKey& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.origin < b.origin;
  }
};

// storage#obtain-a-storage-key: failure (nullopt) for an opaque origin.
std::optional<StorageKey> obtain_a_storage_key(const Environment& environment);

}  // namespace lockstep::spec
