#include "commands.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "lockstep/impl_engine.h"
#include "lockstep/log_compare.h"
#include "lockstep/spec_engine.h"
#include "lockstep/step_index.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

constexpr int kOk = 0, kFailed = 1, kBadInput = 2;

std::unique_ptr<Engine> engine_named(const std::string& name) {
  return name == "impl" ? make_impl_engine() : make_spec_engine();
}

}  // namespace

int bad_input(const std::string& file, const Error& error) {
  std::cerr << "lockstep: " << file << ": " << error.to_string() << "\n";
  return kBadInput;
}

std::vector<std::filesystem::path> trace_files_under(const std::string& dir) {
  std::vector<std::filesystem::path> traces;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > 11 &&
        name.substr(name.size() - 11) == ".trace.json")
      traces.push_back(entry.path());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

void print_coverage(const std::map<std::string, std::uint64_t>& hit, bool list_missed,
                    const std::string& only_spec) {
  std::map<std::string, std::uint64_t> unindexed = hit;
  for (const char* json : step_index_jsons()) {
    auto index = read_step_index(json);
    if (!index) {
      std::cerr << "lockstep: step index: " << index.error().message << "\n";
      continue;
    }
    for (const std::string& id : index->ids()) unindexed.erase(id);
    if (!only_spec.empty() && index->spec != only_spec) continue;
    CoverageReport report = coverage_report(index.value(), hit);
    std::cerr << "coverage: " << report.summary() << "\n";
    if (list_missed)
      for (const std::string& m : report.missed) std::cerr << "  not exercised: " << m << "\n";
  }
  for (const auto& [id, n] : unindexed) std::cerr << "  not in any step index: " << id << "\n";
}

static int coverage_needs_spec_engine() {
  std::cerr << "lockstep: --coverage counts spec steps, which only the spec engine has\n";
  return kBadInput;
}

int run_command(const RunArgs& args) {
  if (args.coverage && args.engine == "impl") return coverage_needs_spec_engine();
  auto trace = read_trace_file(args.trace);
  if (!trace) return bad_input(args.trace, trace.error());
  RunOptions options;
  options.coverage = args.coverage;
  RunOutcome outcome = engine_named(args.engine)->run(trace.value(), options);
  if (!outcome.ok()) {
    if (outcome.failure().kind == RunFailure::Kind::Internal) {
      std::cerr << "lockstep: internal error replaying " << args.trace << ": "
                << outcome.failure().error.message << "\n";
      return kFailed;
    }
    return bad_input(args.trace, outcome.failure().error);
  }
  const RunResult& result = outcome.result();
  std::string log_text = write_log(result.log);
  if (args.output.empty()) {
    std::cout << log_text;
  } else {
    std::ofstream out(args.output, std::ios::binary);
    out << log_text;
    if (!out) {
      std::cerr << "lockstep: cannot write " << args.output << "\n";
      return kBadInput;
    }
  }
  if (args.choices)
    for (std::size_t i = 0; i < result.choices.size(); ++i)
      std::cerr << "choice " << i << ": " << result.choices[i] << "\n";
  if (args.coverage) print_coverage(result.steps_hit, true);
  if (!args.expect.empty()) {
    auto expected = read_log_file(args.expect);
    if (!expected) return bad_input(args.expect, expected.error());
    if (auto diff = first_difference(expected.value(), result.log)) {
      std::cerr << "lockstep: " << args.trace << ": the log differs from " << args.expect << ": "
                << *diff << "\n";
      return kFailed;
    }
  }
  return kOk;
}

int validate_command(const std::string& path) {
  auto trace = read_trace_file(path);
  if (!trace) return bad_input(path, trace.error());
  std::cout << path << ": valid lockstep-trace (" << trace->agents.size() << " agents, "
            << trace->steps.size() << " steps)\n";
  return kOk;
}

int corpus_command(const CorpusArgs& args) {
  if (args.coverage && args.engine == "impl") return coverage_needs_spec_engine();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(args.dir, ec)) {
    std::cerr << "lockstep: " << args.dir << ": not a folder\n";
    return kBadInput;
  }
  const std::vector<fs::path> traces = trace_files_under(args.dir);
  auto engine = engine_named(args.engine);
  RunOptions options;
  options.coverage = args.coverage;
  std::map<std::string, std::uint64_t> hit;
  int passed = 0, failed = 0;
  for (const fs::path& path : traces) {
    std::string t = path.string();
    std::string expected_path = t.substr(0, t.size() - 11) + ".log.json";
    std::string problem;
    auto trace = read_trace_file(t);
    if (!trace) {
      problem = trace.error().to_string();
    } else {
      RunOutcome outcome = engine->run(trace.value(), options);
      if (!outcome.ok()) {
        problem = outcome.failure().error.to_string();
      } else {
        for (const auto& [id, n] : outcome.result().steps_hit) hit[id] += n;
        auto expected = read_log_file(expected_path);
        if (!expected)
          problem = expected_path + ": " + expected.error().to_string();
        else if (auto diff = first_difference(expected.value(), outcome.result().log))
          problem = *diff;
      }
    }
    if (problem.empty()) {
      ++passed;
      if (args.verbose) std::cout << "ok    " << t << "\n";
    } else {
      ++failed;
      std::cout << "FAIL  " << t << ": " << problem << "\n";
    }
  }
  if (args.coverage) print_coverage(hit, true);
  std::cout << "corpus (" << engine->name() << " engine): " << passed << " passed, " << failed
            << " failed\n";
  return failed == 0 ? kOk : kFailed;
}

}  // namespace lockstep::cli
