#include "campaign_journal.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

namespace lockstep::cli {
namespace {

const char* const kOutcomes[] = {"allowed",        "not allowed",    "unknown",
                                 "adapter failed", "cannot express", "flaky"};

Json to_json(const TraceRecord& r) {
  Json line{{"trace", r.index}, {"seed", r.seed}, {"outcome", r.outcome}, {"at", r.at}};
  if (!r.reason.empty()) line["reason"] = r.reason;
  if (r.shrunk) line["shrunk"] = true;
  if (!r.failure.is_null()) line["failure"] = r.failure;
  if (!r.unknown.is_null()) line["unknown"] = r.unknown;
  if (!r.flaky.is_null()) line["flaky"] = r.flaky;
  return line;
}

// The record a line holds, or why it holds none.
Result<TraceRecord> record_of(const Json& line) {
  TraceRecord r;
  if (!line.is_object()) return Error{"", "expected an object"};
  for (const char* key : {"trace", "seed"})
    if (!line.contains(key) || !line[key].is_number_unsigned())
      return Error{std::string("/") + key, "expected a whole number"};
  r.index = line["trace"].get<std::uint64_t>();
  r.seed = line["seed"].get<std::uint64_t>();
  if (!line.contains("outcome") || !line["outcome"].is_string())
    return Error{"/outcome", "expected a string"};
  r.outcome = line["outcome"].get<std::string>();
  bool known = false;
  for (const char* o : kOutcomes) known = known || r.outcome == o;
  if (!known) return Error{"/outcome", "unknown outcome \"" + r.outcome + "\""};
  if (!line.contains("at") || !line["at"].is_number()) return Error{"/at", "expected seconds"};
  r.at = line["at"].get<double>();
  if (line.contains("reason")) {
    if (!line["reason"].is_string()) return Error{"/reason", "expected a string"};
    r.reason = line["reason"].get<std::string>();
  }
  if (line.contains("shrunk")) {
    if (!line["shrunk"].is_boolean()) return Error{"/shrunk", "expected true or false"};
    r.shrunk = line["shrunk"].get<bool>();
  }
  for (const auto& [key, slot] : {std::pair{"failure", &r.failure},
                                  std::pair{"unknown", &r.unknown}, std::pair{"flaky", &r.flaky}})
    if (line.contains(key)) {
      if (!line[key].is_object()) return Error{std::string("/") + key, "expected an object"};
      *slot = line[key];
    }
  return r;
}

std::string shown(const Json& value) {
  return value.is_null() ? "none" : value.dump();
}

}  // namespace

std::string reason_of(const std::string& message) {
  std::string reason = message;
  const std::string prefix = "cannot express: ";
  if (reason.rfind(prefix, 0) == 0) reason = reason.substr(prefix.size());
  reason = reason.substr(0, reason.find(" ("));
  while (!reason.empty() && std::isspace(static_cast<unsigned char>(reason.back())))
    reason.pop_back();
  return reason.empty() ? "no reason given" : reason.substr(0, 200);
}

Result<CampaignJournal> CampaignJournal::start(const std::filesystem::path& file,
                                               const Json& campaign) {
  std::FILE* out = std::fopen(file.c_str(), "w");
  if (!out) return Error{"", std::string("cannot write it: ") + std::strerror(errno)};
  CampaignJournal journal(file, out);
  const std::string first = Json{{"campaign", campaign}}.dump() + "\n";
  if (std::fputs(first.c_str(), out) < 0 || std::fflush(out) != 0)
    return Error{"", std::string("cannot write it: ") + std::strerror(errno)};
  return journal;
}

Result<Json> CampaignJournal::read(const std::filesystem::path& file,
                                   std::vector<TraceRecord>& records, std::size_t* kept_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{"", "no journal (" + std::string(std::strerror(errno)) + ")"};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // What a stop cut short: a last line without its newline.
  std::size_t kept = text.size();
  if (!text.empty() && text.back() != '\n') kept = text.rfind('\n') + 1;  // npos + 1 = 0
  if (kept_bytes) *kept_bytes = kept;
  Json campaign;
  std::set<std::uint64_t> seen;
  std::size_t line_number = 0;
  for (std::size_t at = 0; at < kept;) {
    const std::size_t end = text.find('\n', at);
    ++line_number;
    const Json line = Json::parse(text.begin() + static_cast<std::ptrdiff_t>(at),
                                  text.begin() + static_cast<std::ptrdiff_t>(end), nullptr,
                                  /*allow_exceptions=*/false);
    const std::string where = "line " + std::to_string(line_number);
    at = end + 1;
    if (line.is_discarded()) return Error{"", where + ": not JSON"};
    if (line_number == 1) {
      if (!line.is_object() || !line.contains("campaign") || !line["campaign"].is_object())
        return Error{"", "line 1: not a campaign's journal (no \"campaign\")"};
      campaign = line["campaign"];
      continue;
    }
    auto record = record_of(line);
    if (!record) return Error{record.error().pointer, where + ": " + record.error().message};
    if (!seen.insert(record.value().index).second)
      return Error{"/trace", where + ": trace " + std::to_string(record.value().index) + " twice"};
    records.push_back(std::move(record.value()));
  }
  if (line_number == 0) return Error{"", "empty: not a campaign's journal"};
  return campaign;
}

Result<CampaignJournal> CampaignJournal::resume(const std::filesystem::path& file,
                                                const Json& campaign,
                                                std::vector<TraceRecord>& records) {
  std::size_t kept = 0;
  auto was = read(file, records, &kept);
  if (!was) {
    if (was.error().message.rfind("no journal", 0) == 0)
      return Error{"", "no journal to resume" + was.error().message.substr(10)};
    return was.error();
  }
  for (const auto& [key, value] : campaign.items()) {
    const Json before = was.value().contains(key) ? was.value()[key] : Json();
    if (before != value)
      return Error{"/campaign/" + key, "the stopped campaign's " + key + " was " + shown(before) +
                                           ", this one's is " + shown(value)};
  }
  if (truncate(file.c_str(), static_cast<off_t>(kept)) != 0)
    return Error{"", std::string("cannot write it: ") + std::strerror(errno)};
  std::FILE* out = std::fopen(file.c_str(), "a");
  if (!out) return Error{"", std::string("cannot write it: ") + std::strerror(errno)};
  return CampaignJournal(file, out);
}

CampaignJournal::CampaignJournal(CampaignJournal&& other) noexcept
    : file_(std::move(other.file_)), out_(other.out_) {
  other.out_ = nullptr;
}

CampaignJournal::~CampaignJournal() {
  if (out_) std::fclose(out_);
}

std::optional<Error> CampaignJournal::append(const TraceRecord& record) {
  const std::string line = to_json(record).dump() + "\n";
  if (std::fputs(line.c_str(), out_) < 0 || std::fflush(out_) != 0)
    return Error{"", std::string("cannot write it: ") + std::strerror(errno)};
  return std::nullopt;
}

}  // namespace lockstep::cli
