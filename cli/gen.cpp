// `lockstep gen`: the property tests' world generator (property-tests/world_generator.cpp) as a
// command, so that users fuzz their implementations with the same traces. Trace i of a run uses
// seed `seed + i`, so a campaign split into shards makes exactly the traces one process would.
#include "gen.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "exhaustive.h"
#include "generators.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "misspelt.h"

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

// One trace out: a JSON line on stdout, or a file in --out.
void write_generated(const GenArgs& args, const std::string& name, const std::string& json) {
  if (args.out.empty())
    std::cout << one_line(json) << "\n";
  else
    std::ofstream(std::filesystem::path(args.out) / (name + ".trace.json")) << json;
}

// --exhaustive: every candidate of the bound that replays on the model, with its coverage.
int gen_exhaustive(const GenArgs& args, int shard, int shards) {
  const bool scheduling = args.profile == "scheduling";
  if (args.profile != "locks" && args.profile != "mixed" && !scheduling)
    return bad("--profile",
               "--exhaustive enumerates Web Locks or scheduling traces: use --profile locks or "
               "--profile scheduling");
  if (args.agents < 1 || args.agents > 6) return bad("--agents", "must be 1 to 6");
  if (args.names < 1 || args.names > 6) return bad("--names", "must be 1 to 6");
  if (args.ops < 1 || args.ops > 8) return bad("--ops", "must be 1 to 8");
  const auto engine = make_spec_engine();
  RunOptions options;
  options.coverage = true;
  std::map<std::string, std::uint64_t> covered;
  std::uint64_t written = 0, not_replayable = 0;
  const auto enumerate = scheduling ? gen::enumerate_scheduling_traces : gen::enumerate_lock_traces;
  const std::uint64_t candidates = enumerate(
      gen::ExhaustiveBound{args.agents, args.names, args.ops},
      [&](std::uint64_t index, const std::string& json) {
        if (index % static_cast<std::uint64_t>(shards) != static_cast<std::uint64_t>(shard))
          return true;
        auto trace = read_trace(json);
        if (!trace)  // an enumerator defect, not the user's
          throw std::runtime_error("enumerated trace " + std::to_string(index) +
                                   " is not valid: " + trace.error().to_string());
        RunOutcome outcome = engine->run(trace.value(), options);
        if (!outcome.ok()) {  // e.g. a settle of a lock whose callback has not run yet (locks)
          ++not_replayable;
          return true;
        }
        for (const auto& [step, n] : outcome.result().steps_hit) covered[step] += n;
        if (args.with_coverage)
          for (const auto& [step, n] : outcome.result().steps_hit) trace->exercises.push_back(step);
        write_generated(args, trace->name, write_trace(trace.value()));
        ++written;
        return true;
      });
  std::cerr << "exhaustive: " << candidates << " candidates within " << args.agents << " agents, "
            << args.names << (scheduling ? " signals, " : " names, ") << args.ops << " ops; "
            << written << " traces written by shard " << shard << "/" << shards << ", "
            << not_replayable << " left out (they do not replay"
            << (scheduling ? ")" : ": a settle before its lock was granted)") << "\n";
  print_coverage(covered, true, scheduling ? "scheduling-apis" : "web-locks");
  return 0;
}

// What --without may name, and the profile's switch for it: the world's features, then the Web
// Locks API's that an implementation may lack.
struct CapabilityFlag {
  const char* name;
  bool gen::Profile::*flag;
};
constexpr CapabilityFlag kCapabilityFlags[] = {
    {"workers", &gen::Profile::workers},
    {"partitions", &gen::Profile::partitions},
    {"opaque", &gen::Profile::opaque},
    {"timers", &gen::Profile::timers},
    {"origins", &gen::Profile::origins},
    {"unload", &gen::Profile::unload},
    {"shared-loops", &gen::Profile::shared_loops},
    {"shared", &gen::Profile::shared},
    {"steal", &gen::Profile::steal},
    {"ifAvailable", &gen::Profile::if_available},
    {"signal", &gen::Profile::lock_signal},
    {"query", &gen::Profile::query},
    {"invalid-arguments", &gen::Profile::invalid_arguments},
};

}  // namespace

std::string capabilities() {
  std::string list;
  for (const CapabilityFlag& c : kCapabilityFlags)
    list += (list.empty() ? "" : ", ") + std::string(c.name);
  return list;
}

std::optional<std::string> read_gen_profile(const std::string& name, const std::string& without,
                                            gen::Profile& profile) {
  if (name == "locks") {
    profile.scheduling = false;
  } else if (name == "scheduling") {
    profile.locks = false;
  } else if (name == "single-agent") {
    profile.max_agents = 1;
  } else if (name != "mixed") {
    return "--profile: expected locks, scheduling, mixed or single-agent, got \"" + name + "\"";
  }
  std::stringstream items(without);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty()) continue;
    const auto named = std::find_if(std::begin(kCapabilityFlags), std::end(kCapabilityFlags),
                                    [&](const CapabilityFlag& c) { return item == c.name; });
    if (named != std::end(kCapabilityFlags)) {
      profile.*named->flag = false;
      continue;
    }
    std::vector<std::string> known;
    for (const CapabilityFlag& c : kCapabilityFlags) known.push_back(c.name);
    const auto near = nearest(item, known);
    return "--without: unknown capability \"" + item + "\"" +
           (near ? " (did you mean \"" + *near + "\"?)" : " (" + capabilities() + ")");
  }
  return std::nullopt;
}

Trace generate_trace(const gen::Profile& profile, std::uint64_t seed, int steps) {
  // The generator draws up to 3 + size steps (world_generator.cpp).
  const int size = std::max(0, steps - 3);
  Trace trace = gen::world_trace(profile)(rc::Random(seed), size).value();
  trace.name = "gen-" + std::to_string(seed);
  return trace;
}

int gen_command(const GenArgs& args) {
  gen::Profile profile;
  if (auto error = read_gen_profile(args.profile, args.without, profile)) {
    std::cerr << "lockstep: gen " << *error << "\n";
    return 2;
  }
  int shard = 0, shards = 1;
  const auto slash = args.shard.find('/');
  if (slash == std::string::npos || !parse_int(args.shard.substr(0, slash), shard) ||
      !parse_int(args.shard.substr(slash + 1), shards) || shards < 1 || shard < 0 ||
      shard >= shards)
    return bad("--shard", "expected I/N with 0 <= I < N, got \"" + args.shard + "\"");
  if (!args.exhaustive) {  // --exhaustive has its own bound
    if (args.count < 0) return bad("--count", "must not be negative");
    if (args.steps < 1) return bad("--steps", "must be at least 1");
  }
  if (!args.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec) return bad("--out", "cannot make " + args.out + ": " + ec.message());
  }
  // The enumeration is of every request kind within its bound: it leaves nothing out.
  if (args.exhaustive && !args.without.empty())
    return bad("--without", "applies to random traces; --exhaustive enumerates every kind");
  if (args.exhaustive) return gen_exhaustive(args, shard, shards);
  for (int i = shard; i < args.count; i += shards) {
    const Trace trace =
        generate_trace(profile, args.seed + static_cast<std::uint64_t>(i), args.steps);
    const std::string json = write_trace(trace);
    if (auto valid = read_trace(json); !valid.ok())  // a generator defect, not the user's
      throw std::runtime_error("generated trace " + trace.name +
                               " is not valid: " + valid.error().to_string());
    write_generated(args, trace.name, json);
  }
  return 0;
}

}  // namespace lockstep::cli
