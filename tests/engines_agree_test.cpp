// The impl engine against the spec engine: the same outcome (log, choices taken, or the same
// error) on every corpus trace, unpinned and under pinned schedules found by random walks over the
// choice points the spec engine reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include "engines.h"
#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

std::vector<std::filesystem::path> corpus_traces() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(LOCKSTEP_SOURCE_DIR "/traces/corpus"))
    if (entry.path().string().ends_with(".trace.json")) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(EnginesAgree, OnEveryCorpusTraceUnpinned) {
  const auto traces = corpus_traces();
  ASSERT_GT(traces.size(), 50u);
  for (const auto& path : traces) {
    auto trace = read_trace_file(path.string());
    ASSERT_TRUE(trace.ok()) << path << ": " << trace.error().to_string();
    EXPECT_EQ(disagreement(trace.value()), "") << path;
  }
}

TEST(EnginesAgree, OnEveryCorpusTraceUnderPinnedSchedules) {
  std::mt19937 random(20261123);
  std::size_t schedules = 0, valid = 0;
  for (const auto& path : corpus_traces()) {
    auto read = read_trace_file(path.string());
    ASSERT_TRUE(read.ok());
    Trace trace = read.value();
    RunOutcome unpinned = make_spec_engine()->run(trace, {});
    ASSERT_TRUE(unpinned.ok()) << path;
    // What a pin can say here: any unit name seen, a whole event loop, any lock task queue.
    std::set<std::string> names{"locks", "settled"};  // "settled": I-27
    for (const std::string& c : unpinned.result().choices) {
      names.insert(c);
      if (c.rfind("loop:", 0) == 0) names.insert(c.substr(0, c.find('/')));
    }
    const std::vector<std::string> vocabulary(names.begin(), names.end());
    const std::size_t depth = std::min<std::size_t>(unpinned.result().choices.size(), 30);
    for (int walk = 0; walk < 16; ++walk) {
      std::vector<std::string> pins;
      for (std::size_t k = 0; k < depth; ++k) {
        bool extended = false;
        for (int attempt = 0; attempt < 3 && !extended; ++attempt) {
          trace.schedule = pins;
          trace.schedule.push_back(vocabulary[random() % vocabulary.size()]);
          ++schedules;
          EXPECT_EQ(disagreement(trace), "")
              << path << " with schedule of " << trace.schedule.size();
          if (make_spec_engine()->run(trace, {}).ok()) {
            pins = trace.schedule;
            extended = true;
            ++valid;
          }
        }
        if (!extended) break;
      }
    }
  }
  // The walks must reach real alternative schedules, not only refused ones.
  EXPECT_GT(valid, 300u) << schedules << " schedules tried";
}

}  // namespace
}  // namespace lockstep
