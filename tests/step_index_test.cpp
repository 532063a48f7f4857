// Spec-step identity: the index, the code and the spec source agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "lockstep/spec_engine.h"
#include "lockstep/step_index.h"
#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

StepIndex index() {
  auto idx = read_step_index(web_locks_step_index_json());
  EXPECT_TRUE(idx.ok()) << idx.error().message;
  return idx.value();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every SPEC_STEP("...") id in the model's sources.
std::set<std::string> ids_in_code() {
  std::set<std::string> ids;
  std::regex mark(R"re(SPEC_STEP\("([^"]+)"\))re");
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "spec-model")) {
    auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    std::string text = slurp(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), mark); it != std::sregex_iterator(); ++it)
      if ((*it)[1] != "id") ids.insert((*it)[1]);
  }
  return ids;
}

TEST(StepIndex, EveryIndexedStepIsImplemented) {
  std::set<std::string> code = ids_in_code();
  for (const std::string& id : index().ids()) EXPECT_TRUE(code.count(id)) << "no SPEC_STEP(\"" << id << "\") in spec-model/";
}

TEST(StepIndex, EveryStepInTheCodeIsIndexed) {
  StepIndex idx = index();
  for (const std::string& id : ids_in_code()) EXPECT_NE(idx.find(id), nullptr) << id << " is not in steps.json";
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
  std::string line;
  std::regex item(R"(^( *)1\. )");
  std::smatch m;
  while (std::getline(block, line)) {
    if (!std::regex_search(line, m, item)) continue;
    std::size_t level = m[1].length() / 4;
    counters.resize(level + 1, 0);
    ++counters[level];
    std::string id;
    for (std::size_t i = 0; i <= level; ++i) id += (i ? "." : "") + std::to_string(counters[i]);
    out.insert(id);
  }
  return out;
}

TEST(StepIndex, MatchesTheSpecSource) {
  fs::path source_path = fs::path(LOCKSTEP_REFERENCE_DIR) / "web-locks.bs";
  if (!fs::exists(source_path)) GTEST_SKIP() << source_path << " is not here; the check needs ../shared/reference";
  std::string source = slurp(source_path);
  StepIndex idx = index();
  std::size_t algorithms_in_source = 0;
  for (auto pos = source.find("<div algorithm"); pos != std::string::npos; pos = source.find("<div algorithm", pos + 1))
    ++algorithms_in_source;
  std::size_t checked = 0;
  for (const auto& alg : idx.algorithms) {
    if (alg.prose) continue;
    ++checked;
    std::set<std::string> in_source = steps_in_source(source, alg.locate);
    ASSERT_FALSE(in_source.empty()) << alg.anchor << ": \"" << alg.locate << "\" not found in the spec source";
    std::set<std::string> indexed;
    for (const auto& s : alg.steps) indexed.insert(s.number);
    EXPECT_EQ(indexed, in_source) << alg.anchor << ": the index and the spec's numbered steps differ";
  }
  EXPECT_EQ(checked, algorithms_in_source) << "every <div algorithm> of the spec has an entry in the index";
}

TEST(StepIndex, CorpusExercisesWhatItClaims) {
  // Each corpus trace names the steps it is about; replaying it must execute every one of them.
  auto engine = make_spec_engine();
  StepIndex idx = index();
  int traces = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "traces/corpus/web-locks")) {
    std::string p = entry.path().string();
    if (p.size() < 11 || p.substr(p.size() - 11) != ".trace.json") continue;
    auto trace = read_trace_file(p);
    ASSERT_TRUE(trace.ok()) << p << ": " << trace.error().to_string();
    RunOptions options;
    options.coverage = true;
    RunOutcome outcome = engine->run(trace.value(), options);
    ASSERT_TRUE(outcome.ok()) << p << ": " << outcome.failure().error.to_string();
    for (const std::string& id : trace->exercises) {
      EXPECT_NE(idx.find(id), nullptr) << p << ": exercises names unknown step " << id;
      EXPECT_TRUE(outcome.result().steps_hit.count(id)) << p << ": claims " << id << " but does not execute it";
    }
    ++traces;
  }
  EXPECT_GT(traces, 0);
}

TEST(StepIndex, CorpusCoversAtLeast95PercentOfWebLocks) {
  auto engine = make_spec_engine();
  std::map<std::string, std::uint64_t> hit;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LOCKSTEP_SOURCE_DIR) / "traces/corpus")) {
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
  CoverageReport report = coverage_report(index(), hit);
  std::string missed;
  for (const auto& m : report.missed) missed += "\n  " + m;
  EXPECT_GE(static_cast<double>(report.covered), 0.95 * static_cast<double>(report.total)) << report.summary() << missed;
  EXPECT_TRUE(report.unknown.empty());
}

}  // namespace
}  // namespace lockstep
