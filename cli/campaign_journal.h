// The journal of a `fuzz --target` campaign, OUT/progress.jsonl: a first line that says what the
// campaign is (what must be the same to resume it), then a line for each trace as it finishes,
// flushed at once, so that a stop, even by SIGKILL, loses at most the traces in flight and
// `fuzz --target ... --resume` finishes the campaign with the result of an uninterrupted one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lockstep/error.h"

namespace lockstep::cli {

using Json = nlohmann::ordered_json;

// What became of trace `index` (seed first seed + index).
struct TraceRecord {
  std::uint64_t index = 0;
  std::uint64_t seed = 0;
  // "allowed", "not allowed", "unknown", "adapter failed", "cannot express", or "flaky": a
  // failure that a run again with longer settling did not repeat (fuzz_target.h, --reruns)
  std::string outcome;
  // "cannot express": why, as the adapter said it less the trace's own ids (reason_of)
  std::string reason;
  bool shrunk = false;  // its failure was shrunk (the campaign shrinks the first --shrink)
  double at = 0;        // the campaign's seconds when it finished, over every run of it
  Json failure;         // summary.json's entry when it was kept under failures/, else null
  Json unknown;         // the same under unknown/
  Json flaky;           // the same under flaky/
};

// The reason a "cannot express: REASON (DETAILS)" message gives, the same for every trace it
// stops (adapters/README.md, "Adapter commands"); "no reason given" for an empty one.
std::string reason_of(const std::string& message);

class CampaignJournal {
 public:
  // A new journal for `campaign`, replacing any at `file`.
  static Result<CampaignJournal> start(const std::filesystem::path& file, const Json& campaign);
  // The journal at `file` to go on with, and the traces it records. Refused when the file is
  // missing, is not a journal, or records another campaign (the first member that differs).
  // A last line cut short (a stop while it was written) is dropped.
  static Result<CampaignJournal> resume(const std::filesystem::path& file, const Json& campaign,
                                        std::vector<TraceRecord>& records);

  // What the journal at `file` holds: the campaign of its first line, and the traces it records
  // (a last line cut short dropped); `kept` is how many of its bytes that is.
  static Result<Json> read(const std::filesystem::path& file, std::vector<TraceRecord>& records,
                           std::size_t* kept = nullptr);

  CampaignJournal(CampaignJournal&& other) noexcept;
  CampaignJournal& operator=(CampaignJournal&&) = delete;
  ~CampaignJournal();

  // Written and flushed; the error says why it could not be.
  std::optional<Error> append(const TraceRecord& record);
  const std::filesystem::path& file() const { return file_; }

 private:
  CampaignJournal(std::filesystem::path file, std::FILE* out) : file_(std::move(file)), out_(out) {}
  std::filesystem::path file_;
  std::FILE* out_ = nullptr;
};

}  // namespace lockstep::cli
