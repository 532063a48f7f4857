// `lockstep gen`: the property tests' world generator (property-tests/world_generator.cpp) as a
// command, so that users fuzz their implementations with the same traces. Trace i of a run uses
// seed `seed + i`, so a campaign split into shards makes exactly the traces one process would.
#include "gen.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "generators.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

int bad(const std::string& where, const std::string& what) {
  std::cerr << "lockstep: gen " << where << ": " << what << "\n";
  return 2;
}

bool parse_int(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// The generated trace on one line (JSON lines): the writer's layout without its line breaks
// (strings in a trace never hold a raw line break: the writer escapes them).
std::string one_line(const std::string& json) {
  std::string out;
  bool in_string = false, escaped = false;
  for (char c : json) {
    if (in_string) {
      out += c;
      escaped = !escaped && c == '\\';
      if (c == '"' && !escaped) in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '\n') continue;
    if (c == ' ' && !out.empty() && (out.back() == ' ' || out.back() == '[' || out.back() == '{'))
      continue;
    out += c;
  }
  return out;
}

}  // namespace

int gen_command(const GenArgs& args) {
  gen::Profile profile;
  if (args.profile == "locks") {
    profile.scheduling = false;
  } else if (args.profile == "scheduling") {
    profile.locks = false;
  } else if (args.profile == "single-agent") {
    profile.max_agents = 1;
  } else if (args.profile != "mixed") {
    return bad("--profile",
               "expected locks, scheduling, mixed or single-agent, got \"" + args.profile + "\"");
  }
  std::stringstream without(args.without);
  for (std::string item; std::getline(without, item, ',');) {
    if (item == "workers")
      profile.workers = false;
    else if (item == "partitions")
      profile.partitions = false;
    else if (item == "opaque")
      profile.opaque = false;
    else if (item == "timers")
      profile.timers = false;
    else if (!item.empty())
      return bad("--without",
                 "unknown capability \"" + item + "\" (workers, partitions, opaque, timers)");
  }
  int shard = 0, shards = 1;
  const auto slash = args.shard.find('/');
  if (slash == std::string::npos || !parse_int(args.shard.substr(0, slash), shard) ||
      !parse_int(args.shard.substr(slash + 1), shards) || shards < 1 || shard < 0 ||
      shard >= shards)
    return bad("--shard", "expected I/N with 0 <= I < N, got \"" + args.shard + "\"");
  if (args.count < 0) return bad("--count", "must not be negative");
  if (args.steps < 1) return bad("--steps", "must be at least 1");
  if (!args.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec) return bad("--out", "cannot make " + args.out + ": " + ec.message());
  }
  // The generator draws up to 3 + size steps (world_generator.cpp).
  const int size = std::max(0, args.steps - 3);
  const auto generator = gen::world_trace(profile);
  for (int i = shard; i < args.count; i += shards) {
    const std::uint64_t seed = args.seed + static_cast<std::uint64_t>(i);
    Trace trace = generator(rc::Random(seed), size).value();
    trace.name = "gen-" + std::to_string(seed);
    const std::string json = write_trace(trace);
    if (auto valid = read_trace(json); !valid.ok())  // a generator defect, not the user's
      throw std::runtime_error("generated trace " + trace.name +
                               " is not valid: " + valid.error().to_string());
    if (args.out.empty()) {
      std::cout << one_line(json) << "\n";
    } else {
      std::ofstream(std::filesystem::path(args.out) / (trace.name + ".trace.json")) << json;
    }
  }
  return 0;
}

}  // namespace lockstep::cli
