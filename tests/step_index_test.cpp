// Spec-step identity: the index, the code and the spec source agree.
#include "lockstep/step_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

std::vector<StepIndex> indexes() {
  std::vector<StepIndex> out;
  for (const char* json : step_index_jsons()) {
    auto idx = read_step_index(json);
    EXPECT_TRUE(idx.ok()) << idx.error().message;
    if (idx.ok()) out.push_back(idx.value());
  }
  return out;
}

const StepIndex::Step* find_step(const std::string& id) {
  static const std::vector<StepIndex> all = indexes();
  for (const StepIndex& idx : all)
    if (const StepIndex::Step* s = idx.find(id)) return s;
  return nullptr;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The indentation of a numbered step line ("   1. ..."), or npos for any other line. (No
// std::regex: GCC 12 warns inside it under the sanitizers.)
std::size_t numbered_step_indent(const std::string& line) {
  std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos || line.compare(indent, 3, "1. ") != 0) return std::string::npos;
  return indent;
}

// Every SPEC_STEP("...") id in the model's sources.
std::set<std::string> ids_in_code() {
  std::set<std::string> ids;
  const std::string mark = "SPEC_STEP(";
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "spec-model")) {
    auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    std::string text = slurp(entry.path());
    for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 1)) {
      auto quote =
          text.find_first_not_of(" \t\n", at + mark.size());  // the formatter may wrap here
      if (quote == std::string::npos || text[quote] != '"') continue;
      std::string id = text.substr(quote + 1, text.find('"', quote + 1) - quote - 1);
      ids.insert(id);
    }
  }
  return ids;
}

TEST(StepIndex, EveryIndexedStepIsImplemented) {
  std::set<std::string> code = ids_in_code();
  for (const StepIndex& idx : indexes())
    for (const std::string& id : idx.ids())
      EXPECT_TRUE(code.count(id)) << "no SPEC_STEP(\"" << id << "\") in spec-model/";
}

TEST(StepIndex, EveryStepInTheCodeIsIndexed) {
  for (const std::string& id : ids_in_code())
    EXPECT_NE(find_step(id), nullptr) << id << " is not in any steps.json";
}

// The numbered steps of the algorithm block that contains `locate`, numbered as in the spec.
std::set<std::string> steps_in_source(const std::string& source, const std::string& locate) {
  std::set<std::string> out;
  auto at = source.find(locate);
  if (at == std::string::npos) return out;
  auto begin = source.rfind("<div algorithm", at);
  auto end = source.find("</div>", at);
  std::istringstream block(source.substr(begin, end - begin));
  std::vector<int> counters;
  std::vector<std::size_t> indents;  // the indentation of each open level (2 or 4 spaces a level)
  std::string line;
  while (std::getline(block, line)) {
    const std::size_t indent = numbered_step_indent(line);
    if (indent == std::string::npos) continue;
    while (!indents.empty() && indents.back() > indent) indents.pop_back();
    if (indents.empty() || indents.back() < indent) indents.push_back(indent);
    const std::size_t level = indents.size() - 1;
    counters.resize(level + 1, 0);
    ++counters[level];
    std::string id;
    for (std::size_t i = 0; i <= level; ++i) id += (i ? "." : "") + std::to_string(counters[i]);
    out.insert(id);
  }
  return out;
}

class SpecSource : public ::testing::TestWithParam<int> {};

TEST_P(SpecSource, IndexMatchesTheNumberedSteps) {
  const StepIndex idx = indexes()[static_cast<std::size_t>(GetParam())];
  fs::path source_path = fs::path(LOCKSTEP_REFERENCE_DIR) / idx.source;
  if (!fs::exists(source_path))
    GTEST_SKIP() << source_path << " is not here; the check needs ../shared/reference";
  std::string source = slurp(source_path);
  // Every algorithm block with numbered steps must be located by exactly one index entry.
  std::set<std::size_t> numbered_blocks, located_blocks;
  for (auto pos = source.find("<div algorithm"); pos != std::string::npos;
       pos = source.find("<div algorithm", pos + 1)) {
    auto end = source.find("</div>", pos);
    std::istringstream block(source.substr(pos, end - pos));
    std::string line;
    while (std::getline(block, line))
      if (numbered_step_indent(line) != std::string::npos) {
        numbered_blocks.insert(pos);
        break;
      }
  }
  for (const auto& alg : idx.algorithms) {
    if (alg.prose) continue;
    auto at = source.find(alg.locate);
    ASSERT_NE(at, std::string::npos)
        << alg.anchor << ": \"" << alg.locate << "\" not found in " << idx.source;
    located_blocks.insert(source.rfind("<div algorithm", at));
    std::set<std::string> in_source = steps_in_source(source, alg.locate);
    std::set<std::string> indexed;
    for (const auto& s : alg.steps) indexed.insert(s.number);
    EXPECT_EQ(indexed, in_source) << alg.anchor
                                  << ": the index and the spec's numbered steps differ";
  }
  for (std::size_t block : numbered_blocks)
    EXPECT_TRUE(located_blocks.count(block))
        << idx.source << ": the algorithm at byte " << block
        << " has numbered steps but no entry in the index: " << source.substr(block, 120);
}

INSTANTIATE_TEST_SUITE_P(Specs, SpecSource, ::testing::Values(0, 1));

TEST(StepIndex, CorpusExercisesWhatItClaims) {
  // Each corpus trace names the steps it is about; replaying it must execute every one of them.
  auto engine = make_spec_engine();
  int traces = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "traces/corpus")) {
    std::string p = entry.path().string();
    if (p.size() < 11 || p.substr(p.size() - 11) != ".trace.json") continue;
    auto trace = read_trace_file(p);
    ASSERT_TRUE(trace.ok()) << p << ": " << trace.error().to_string();
    RunOptions options;
    options.coverage = true;
    RunOutcome outcome = engine->run(trace.value(), options);
    ASSERT_TRUE(outcome.ok()) << p << ": " << outcome.failure().error.to_string();
    for (const std::string& id : trace->exercises) {
      EXPECT_NE(find_step(id), nullptr) << p << ": exercises names unknown step " << id;
      EXPECT_TRUE(outcome.result().steps_hit.count(id))
          << p << ": claims " << id << " but does not execute it";
    }
    ++traces;
  }
  EXPECT_GT(traces, 0);
}

class CorpusCoverage : public ::testing::TestWithParam<int> {};

TEST_P(CorpusCoverage, AtLeast95PercentOfTheSpecsSteps) {
  auto engine = make_spec_engine();
  std::map<std::string, std::uint64_t> hit;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "traces/corpus")) {
    std::string p = entry.path().string();
    if (p.size() < 11 || p.substr(p.size() - 11) != ".trace.json") continue;
    auto trace = read_trace_file(p);
    if (!trace.ok()) continue;
    RunOptions options;
    options.coverage = true;
    RunOutcome outcome = engine->run(trace.value(), options);
    if (!outcome.ok()) continue;
    for (const auto& [id, n] : outcome.result().steps_hit) hit[id] += n;
  }
  CoverageReport report = coverage_report(indexes()[static_cast<std::size_t>(GetParam())], hit);
  std::string missed;
  for (const auto& m : report.missed) missed += "\n  " + m;
  EXPECT_GE(static_cast<double>(report.covered), 0.95 * static_cast<double>(report.total))
      << report.summary() << missed;
}

INSTANTIATE_TEST_SUITE_P(Specs, CorpusCoverage, ::testing::Values(0, 1));

}  // namespace
}  // namespace lockstep
