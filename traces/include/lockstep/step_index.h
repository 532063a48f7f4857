// The index of a spec's algorithm steps (spec-model/<spec>/steps.json): the ids the model marks
// with SPEC_STEP, with a few words each, used for coverage reports and the index tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lockstep/error.h"

namespace lockstep {

struct StepIndex {
  struct Step {
    std::string number;  // "3.4.1"
    std::string words;
    std::string unreached;  // why no trace reaches it, when that is known and accepted
  };
  struct Algorithm {
    std::string anchor;
    std::string title;
    std::string locate;  // text that finds the algorithm's block in the spec source
    bool prose = false;  // steps written as sentences, not a numbered list
    std::vector<Step> steps;
  };
  std::string spec;
  std::string url;
  std::string source;
  std::vector<Algorithm> algorithms;

  // "<anchor> <number>" for every step, in index order.
  std::vector<std::string> ids() const;
  const Step* find(const std::string& id) const;
};

Result<StepIndex> read_step_index(const std::string& json_text);

// A coverage report of `hit` against the index: totals and every step not reached, with its words.
struct CoverageReport {
  std::size_t total = 0;
  std::size_t covered = 0;
  std::vector<std::string> missed;   // "id: words (why)"
  std::vector<std::string> unknown;  // ids hit that the index lacks
  std::string summary() const;       // "web-locks: 110/112 steps (98.2%)"
  std::string spec;
};
CoverageReport coverage_report(const StepIndex& index,
                               const std::map<std::string, std::uint64_t>& hit);

}  // namespace lockstep
