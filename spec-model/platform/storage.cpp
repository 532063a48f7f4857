#include "storage.h"

namespace lockstep::spec {

std::optional<StorageKey> obtain_a_storage_key(const Environment& environment) {
  // storage#obtain-a-storage-key-for-non-storage-purposes step 3: an opaque origin has none.
  if (environment.origin == "opaque") return std::nullopt;
  return StorageKey{environment.partition, environment.origin};
}

}  // namespace lockstep::spec
