// What a `fuzz --target` campaign counts and reports: the tally of its traces' outcomes, its
// progress line, and summary.json, made from the journal's records (campaign_journal.h) alone, so
// that a campaign run at once, resumed, or merged from shards reports alike.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "campaign_journal.h"

namespace lockstep::cli {

// A campaign's exits (fuzz_target.h; a stop by a signal exits 128 + its number).
constexpr int kCampaignClean = 0, kCampaignFailures = 1, kCampaignBadInput = 2;
// Bad input to `fuzz`: "lockstep: fuzz WHAT" on stderr, and kCampaignBadInput.
int fuzz_bad_input(const std::string& what);

// What a fuzz run counts, and how it shows them on one line.
struct Tally {
  std::uint64_t traces = 0, allowed = 0, not_allowed = 0, failed = 0, cannot = 0, unknown = 0,
                flaky = 0;
  void count(const TraceRecord& r) {
    ++traces;
    if (r.outcome == "allowed") ++allowed;
    if (r.outcome == "not allowed") ++not_allowed;
    if (r.outcome == "unknown") ++unknown;
    if (r.outcome == "adapter failed") ++failed;
    if (r.outcome == "cannot express") ++cannot;
    if (r.outcome == "flaky") ++flaky;
  }
  // `rate`: traces a second in this run; with `count` known, the time left at that rate.
  std::string line(double seconds, std::uint64_t count, double rate) const;
};

// Which failures a campaign shrinks: the first of each divergence signature
// (lockstep/signature.h), for the first `limit` signatures met in trace order. A campaign run at
// once, resumed (its records met again first) and merged from shards shrinks the same ones: a
// shard meets a signature no later than the whole campaign does, so it shrinks every failure
// the whole campaign would, and the merge meets them again to drop the rest.
class ShrinkChoice {
 public:
  explicit ShrinkChoice(std::uint64_t limit) : limit_(limit) {}
  // A "not allowed" failure of `signature`, in trace order: whether it is one to shrink.
  bool meet(const std::string& signature) {
    return seen_.insert(signature).second && seen_.size() <= limit_;
  }

 private:
  std::set<std::string> seen_;
  std::uint64_t limit_;
};

// What a shrunk failure keeps beside its trace: summary.json's member for each, and its file.
struct MinimalFile {
  const char* member;
  const char* file;
};
inline constexpr MinimalFile kMinimalFiles[] = {{"minimal", "minimal.trace.json"},
                                                {"minimalLog", "minimal.log.json"},
                                                {"minimalCheck", "minimal.check.txt"},
                                                {"minimalPage", "minimal.html"}};

// A failure entry as if it had not been shrunk: its minimal files removed, and their members.
void forget_shrink(TraceRecord& record);

// summary.json of the campaign whose records are `done` (by trace index): the counts, the
// entries of what was kept in index order, and the failures grouped by signature (most failures
// first), each group with its first seeds and one example, shrunk where the campaign shrank one.
// `stopped_by`: the signal that stopped it, or 0.
Json summary_of(const Json& campaign, const std::map<std::uint64_t, TraceRecord>& done,
                double seconds, int stopped_by);

// --junit FILE and --json once a campaign has ended: the error says what could not be written.
std::optional<std::string> write_reports(const std::string& junit_file, bool json,
                                         const Json& summary, const Json& campaign,
                                         const std::map<std::uint64_t, TraceRecord>& done);

// The campaign as a JUnit report: a test case per trace ("seed S"), a failure for each one kept
// under failures/ (check's explanation, or what the adapter said), skipped for what the target
// cannot express and what check left unknown, a note for a flaky one.
std::string junit_of(const Json& campaign, const std::map<std::uint64_t, TraceRecord>& done,
                     double seconds);

}  // namespace lockstep::cli
