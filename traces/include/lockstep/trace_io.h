// Reading and writing traces and logs as JSON. Every read error names the JSON pointer where the
// problem is; nothing is defaulted silently and nothing throws past these functions. Files are
// parsed as they are read, within the limits (traces/README.md, "Limits"); the path "-" reads
// standard input. An Error does not repeat the file's name: the caller knows it.
#pragma once

#include <string>

#include "lockstep/error.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep {

// Limits that keep absurd inputs from exhausting the machine (traces/README.md, "Limits").
struct ReadLimits {
  std::size_t max_document_bytes = 512u << 20;
  std::size_t max_string_bytes = 64u << 10;  // names, labels, origins
  std::size_t max_id_bytes = 256;
  std::size_t max_agents = 1024;
  std::size_t max_actions = 4'000'000;
  std::size_t max_depth = 64;  // nesting of bodies and of values
};

Result<Trace> read_trace(const std::string& json_text, const ReadLimits& limits = {});
Result<Trace> read_trace_file(const std::string& path, const ReadLimits& limits = {});
std::string write_trace(const Trace& trace);

Result<Log> read_log(const std::string& json_text, const ReadLimits& limits = {});
Result<Log> read_log_file(const std::string& path, const ReadLimits& limits = {});
std::string write_log(const Log& log);  // one event a line

// JSON text of a value, as traces and logs write it.
std::string write_value(const Value& value);

}  // namespace lockstep
