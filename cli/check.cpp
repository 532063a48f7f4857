#include "check.h"

#include <fstream>
#include <iostream>

#include "commands.h"
#include "lockstep/check.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

constexpr int kAllowed = 0, kNotAllowed = 1, kBadInput = 2, kUnknown = 3;

}  // namespace

int check_command(const CheckArgs& args) {
  auto trace = read_trace_file(args.trace);
  if (!trace) return bad_input(args.trace, trace.error());
  auto observed = read_log_file(args.observed);
  if (!observed) return bad_input(args.observed, observed.error());
  check::Options options;
  options.profile = args.profile == "intent" ? check::Profile::Intent : check::Profile::Normative;
  options.max_runs = args.max_runs;
  options.max_seconds = args.max_seconds;
  options.compare_steps = !args.ignore_steps;
  options.partial = args.partial;
  options.impl_first = !args.model_only;
  options.reduce_orders = !args.every_interleaving;
  options.split = args.split == "first"   ? check::Split::First
                  : args.split == "never" ? check::Split::Never
                                          : check::Split::WhenUnknown;
  auto report = check::check(trace.value(), observed.value(), options);
  if (!report) {
    // The observed log names what the trace lacks, or the trace cannot replay.
    const bool about_log = report.error().pointer.rfind("/events/", 0) == 0;
    return bad_input(about_log ? args.observed : args.trace, report.error());
  }
  const std::string name = trace->name.empty() ? args.trace : trace->name;
  std::cout << (args.format == "json" ? check::to_json(report.value(), name)
                                      : check::to_text(report.value(), name));
  if (!args.junit.empty()) {
    std::ofstream junit(args.junit);
    junit << check::to_junit(report.value(), name);
    if (!junit) {
      std::cerr << "lockstep: " << args.junit << ": cannot write the JUnit report\n";
      return kBadInput;
    }
  }
  switch (report->verdict) {
    case check::Verdict::Allowed:
      return kAllowed;
    case check::Verdict::NotAllowed:
      return kNotAllowed;
    case check::Verdict::Unknown:
      return kUnknown;
  }
  return kUnknown;
}

}  // namespace lockstep::cli
