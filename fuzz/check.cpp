// Fuzz target check: a trace and an observed log in one input. The trace is every byte before the
// first line that is exactly "----" (ended by "\n" or by the input's end), the log every byte after
// that line; an input with no such line is all trace. When the trace reads:
//  - the model's own log of it (a spec engine replay) must be judged allowed, or unknown when the
//    small budget runs out, never not allowed, and must compare equal to itself
//    (same_observations);
//  - when the log reads too, check must return a report or an Error, and the report must write as
//    text, JSON and JUnit;
//  - an allowed verdict's schedule, pinned with its readings, must replay on the model to the log
//    checked (what check/README.md promises: `lockstep run` reproduces it).
// Exceptions, sanitizer reports and internal failures are findings.
#include "lockstep/check.h"

#include <optional>
#include <string_view>

#include "fuzz_support.h"
#include "lockstep/shrink.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"

namespace {

using namespace lockstep;

// A check replays the trace up to max_runs times per reading and engine (and again per part of
// the world); these keep one execution around a few milliseconds.
constexpr std::size_t kMaxActions = 64;
constexpr std::uint64_t kMaxRuns = 32;

struct Input {
  std::string trace;
  std::optional<std::string> log;
};

Input split_input(std::string_view text) {
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = text.find('\n', begin);
    const std::string_view line = text.substr(begin, end == text.npos ? text.npos : end - begin);
    if (line == "----")
      return {std::string(text.substr(0, begin)),
              std::string(end == text.npos ? std::string_view() : text.substr(end + 1))};
    if (end == text.npos) break;
    begin = end + 1;
  }
  return {std::string(text), std::nullopt};
}

check::Options small_budget() {
  check::Options options;
  options.max_runs = kMaxRuns;
  return options;
}

void require_the_schedule_replays(const Trace& trace, const Log& observed,
                                  const check::Report& report) {
  if (report.verdict != check::Verdict::Allowed) return;
  Trace pinned = trace;
  pinned.schedule = report.schedule;
  pinned.readings = report.readings;
  const RunOutcome replayed = make_spec_engine()->run(pinned, {});
  fuzz::require_no_internal_failure("check", "spec", replayed);
  if (!replayed.ok())
    fuzz::finding("check", "the allowed verdict's schedule does not replay: " +
                               replayed.failure().error.to_string() + "\n" +
                               check::to_text(report, trace.name));
  if (!check::same_observations(pinned, replayed.result().log, observed))
    fuzz::finding("check", "the allowed verdict's schedule replays another log:\n" +
                               check::to_text(report, trace.name) + "\nreplayed:\n" +
                               write_log(replayed.result().log) + "observed:\n" +
                               write_log(observed));
}

void check_the_models_own_log(const Trace& trace) {
  const RunOutcome model = make_spec_engine()->run(trace, {});
  fuzz::require_no_internal_failure("check", "spec", model);
  if (!model.ok()) return;  // the trace's own fault (a pin that names nothing, say)
  const Log& log = model.result().log;
  if (!check::same_observations(trace, log, log))
    fuzz::finding("check",
                  "same_observations says the model's log differs from itself:\n" + write_log(log));
  const Result<check::Report> report = check::check(trace, log, small_budget());
  if (!report)
    fuzz::finding("check", "check refused the model's own log: " + report.error().to_string() +
                               "\n" + write_log(log));
  if (report->verdict == check::Verdict::NotAllowed)
    fuzz::finding("check", "the model's own log was judged not allowed:\n" +
                               check::to_text(report.value(), trace.name) + "\n" + write_log(log));
  require_the_schedule_replays(trace, log, report.value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Input input = split_input(std::string_view(reinterpret_cast<const char*>(data), size));
  const Result<Trace> trace = read_trace(input.trace);
  if (!trace || check::count_calls(trace.value()) > kMaxActions) return 0;
  check_the_models_own_log(trace.value());
  if (!input.log) return 0;
  const Result<Log> observed = read_log(*input.log);
  if (!observed) return 0;
  const Result<check::Report> report =
      check::check(trace.value(), observed.value(), small_budget());
  if (!report) return 0;  // bad input: an agent the trace lacks, a trace the model rejects
  require_the_schedule_replays(trace.value(), observed.value(), report.value());
  // The writers must take whatever the report holds (observed strings, divergences, schedules).
  (void)check::to_text(report.value(), trace->name);
  (void)check::to_json(report.value(), trace->name);
  (void)check::to_junit(report.value(), trace->name);
  return 0;
}
