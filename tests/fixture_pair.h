// A trace and the log beside it in the source tree (<path>.trace.json and <path>.log.json), as the
// corpus and tests/check keep them, read for a test.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "lockstep/trace_io.h"

namespace lockstep::testing {

struct FixturePair {
  Trace trace;
  Log log;
};

// `path` is from the source tree's root, without the suffixes ("/tests/check/commuting-units").
// Nothing, after a non-fatal failure naming the file and what is wrong with it, when either file
// cannot be read; a caller that cannot go on without it asserts on the result.
inline std::optional<FixturePair> read_fixture_pair(const std::string& path) {
  const std::string base = std::string(LOCKSTEP_SOURCE_DIR) + path;
  auto trace = read_trace_file(base + ".trace.json");
  if (!trace.ok()) {
    ADD_FAILURE() << base << ".trace.json: " << trace.error().to_string();
    return std::nullopt;
  }
  auto log = read_log_file(base + ".log.json");
  if (!log.ok()) {
    ADD_FAILURE() << base << ".log.json: " << log.error().to_string();
    return std::nullopt;
  }
  return FixturePair{std::move(trace.value()), std::move(log.value())};
}

}  // namespace lockstep::testing
