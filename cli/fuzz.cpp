// `lockstep fuzz`: the property suite (property-tests/world_properties.h) for as long as asked, a
// new seed each round, every counterexample shrunk by RapidCheck and kept as a replayable trace.
#include "fuzz.h"

#include <rapidcheck.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "world_properties.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

// Moves the counterexample a property left in `scratch` to `stem`.trace.json, with the observed log
// of a property about check to `stem`.log.json (property-tests/counterexamples.h), and empties
// `scratch`. While RapidCheck shrinks, a property may fail in more than one way, each leaving
// files under its own name: the last written is the shrunk failure reported. Returns each file's
// old and new path.
std::vector<std::pair<std::string, std::string>> keep_counterexample(const fs::path& scratch,
                                                                     const fs::path& stem) {
  std::vector<std::pair<std::string, std::string>> moved;
  std::error_code ec;
  fs::path newest;
  fs::file_time_type newest_time{};
  for (const auto& entry : fs::directory_iterator(scratch, ec)) {
    const std::string name = entry.path().filename().string();
    const bool trace = name.size() > 11 && name.compare(name.size() - 11, 11, ".trace.json") == 0;
    const fs::file_time_type time = entry.last_write_time(ec);
    if (trace && (newest.empty() || time > newest_time)) newest = entry.path(), newest_time = time;
  }
  if (!newest.empty()) {
    const std::string name = newest.filename().string();
    const fs::path log = scratch / (name.substr(0, name.size() - 11) + ".log.json");
    // Absolute, as the properties name them in their messages.
    const auto absolute = [&](const fs::path& p) { return fs::absolute(p, ec).string(); };
    moved.emplace_back(absolute(newest), absolute(stem.string() + ".trace.json"));
    if (fs::exists(log, ec))
      moved.emplace_back(absolute(log), absolute(stem.string() + ".log.json"));
    for (const auto& [from, to] : moved) fs::rename(from, to, ec);
  }
  for (const auto& entry : fs::directory_iterator(scratch, ec)) fs::remove(entry.path(), ec);
  return moved;
}

// `text` with every `from` of `moved` replaced by its `to`.
std::string with_paths_moved(std::string text,
                             const std::vector<std::pair<std::string, std::string>>& moved) {
  for (const auto& [from, to] : moved)
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

// Runs one property with explicit parameters (RapidCheck's own check reads them from RC_PARAMS
// once per process); returns the failure's description, or nothing when it held.
std::optional<std::string> check_once(const properties::Property& property, std::uint64_t seed,
                                      int cases, int max_size) {
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  params.maxSize = max_size;
  rc::detail::TestMetadata metadata;
  metadata.id = property.name;
  metadata.description = property.name;
  const auto result = rc::detail::checkTestable(property.body, metadata, params);
  if (result.template is<rc::detail::SuccessResult>()) return std::nullopt;
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  return message.str();
}

}  // namespace

int fuzz_command(const FuzzArgs& args) {
  const auto& all = properties::world_properties();
  std::vector<const properties::Property*> chosen;
  for (const auto& p : all)
    if (args.property.empty() || args.property == p.name) chosen.push_back(&p);
  if (chosen.empty()) {
    std::cerr << "lockstep: fuzz --property: no property named \"" << args.property
              << "\"; they are:";
    for (const auto& p : all) std::cerr << " " << p.name;
    std::cerr << "\n";
    return 2;
  }
  std::error_code ec;
  fs::create_directories(args.out, ec);
  if (ec) {
    std::cerr << "lockstep: fuzz --out: cannot make " << args.out << ": " << ec.message() << "\n";
    return 2;
  }
  // The properties write their shrunk counterexample here (property-tests/counterexamples.h).
  const fs::path scratch = fs::path(args.out) / ".current";
  fs::create_directories(scratch, ec);
  ::setenv("LOCKSTEP_COUNTEREXAMPLES", scratch.c_str(), 1);

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(args.minutes * 60.0);
  std::uint64_t seed = args.seed;
  long rounds = 0, cases = 0, found = 0;
  do {
    for (const properties::Property* p : chosen) {
      auto failure = check_once(*p, seed, args.cases, args.max_size);
      ++rounds;
      cases += args.cases;
      if (!failure) continue;
      ++found;
      // Keep every counterexample under a name of its own: property and seed.
      const std::string stem = std::string(p->name) + "-seed" + std::to_string(seed);
      const auto moved = keep_counterexample(scratch, fs::path(args.out) / stem);
      std::ofstream(fs::path(args.out) / (stem + ".txt"))
          << with_paths_moved(*failure, moved) << "\nreproduce: RC_PARAMS=\"seed=" << seed
          << " max_success=" << args.cases << " max_size=" << args.max_size
          << "\" build/property-tests/lockstep_property_tests --gtest_filter='Worlds." << p->name
          << "'\n";
      std::cerr << "counterexample: " << (fs::path(args.out) / (stem + ".trace.json")).string()
                << "\n";
    }
    ++seed;
    std::cerr << "\rfuzz: " << rounds << " property runs, up to " << cases << " cases, " << found
              << " counterexamples" << std::flush;
  } while (std::chrono::steady_clock::now() < deadline);
  std::cerr << "\n";
  fs::remove_all(scratch, ec);
  std::cout << "fuzz: " << rounds << " property runs (seeds " << args.seed << ".." << seed - 1
            << "), " << found << " counterexamples in " << args.out << "\n";
  return found == 0 ? 0 : 1;
}

}  // namespace lockstep::cli
