// A target of a targets file (adapters/targets.json) made ready to run: its commands split into
// words (command_words.h), {adapters} and {lockstep} known, checked once for `fuzz --target` and
// `shrink --target` alike, so both refuse a bad entry with the same words.
#pragma once

#include <filesystem>
#include <string>
#include <variant>

#include "adapter.h"
#include "lockstep/targets.h"

namespace lockstep::cli {

// The registry: the path given, else adapters/targets.json here, else lockstep's own.
std::filesystem::path find_targets(const std::string& given);

// lockstep's own adapters folder: the checkout's adapters/ above this binary, found by its
// targets.json; empty when the binary is not in a checkout.
std::filesystem::path own_adapters();

struct ResolvedTarget {
  std::filesystem::path targets_file;
  TargetEntry entry;
  CommandWords command;  // {trace} and {log} still to fill
  CommandWords serve;    // empty: the target has no serve command
  // {adapters}: the targets file's folder; {lockstep}: own_adapters(); {bin}: this binary's folder
  Placeholders fixed;
  // The commands as given with {adapters} and {lockstep} filled in, for a reader.
  std::string shown(const std::string& words) const;
};

// The target `name` of the registry `targets` (find_targets), or what is wrong, as a message
// that names the file and the member's JSON pointer: "--targets FILE: /targets/NAME/serve: why".
std::variant<ResolvedTarget, std::string> resolve_target(const std::string& name,
                                                         const std::string& targets);

}  // namespace lockstep::cli
