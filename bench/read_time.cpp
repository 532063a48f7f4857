// How fast lockstep reads a trace or a log, and how much memory a read takes, against the file's
// size (docs/performance.md, "Reading"). Each measurement runs in a process of its own, so that
// the peak resident set is the read's alone:
//
//   lockstep_read_time make-log EVENTS FILE     a log of EVENTS events, as the engines write them
//   lockstep_read_time make-trace STEPS FILE    a trace of STEPS steps over four agents
//   lockstep_read_time log|trace FILE [RUNS]    reads FILE RUNS times (default 5): MB/s of the
//                                               fastest, median and first runs (the first faults
//                                               its memory in), by the wall clock and
//                                               by the process's CPU time (which a loaded
//                                               machine does not slow), and the peak RSS the
//                                               first read added, as a multiple of the file
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "lockstep/trace_io.h"

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// A log whose events cycle through what a lock-heavy trace logs: a callback with its lock, a mark,
// the request's settling, a task and a prioritychange.
void make_log(std::size_t events, const std::string& file) {
  std::ofstream out(file);
  out << "{\"format\": \"lockstep-log\", \"version\": 1, \"events\": [";
  for (std::size_t i = 0; i < events; ++i) {
    const std::size_t step = i / 5;
    const std::string agent = std::string(1, static_cast<char>('A' + i % 4));
    const std::string id = "r" + std::to_string(step);
    out << (i ? ",\n  " : "\n  ") << "{\"step\": " << step << ", \"agent\": \"" << agent << "\", ";
    switch (i % 5) {
      case 0:
        out << "\"event\": \"callback\", \"request\": \"" << id
            << "\", \"lock\": {\"name\": \"res\", \"mode\": \"exclusive\"}}";
        break;
      case 1:
        out << "\"event\": \"mark\", \"label\": \"in-callback\"}";
        break;
      case 2:
        out << "\"event\": \"settled\", \"target\": \"" << id
            << "\", \"state\": \"fulfilled\", \"value\": " << step << "}";
        break;
      case 3:
        out << "\"event\": \"task\", \"task\": \"t" << step << "\"}";
        break;
      default:
        out << "\"event\": \"prioritychange\", \"signal\": \"c" << step
            << "\", \"previousPriority\": \"user-visible\", \"priority\": \"background\"}";
    }
  }
  out << "\n]}\n";
}

// A trace of requests, each with a callback that marks, four agents taking turns.
void make_trace(std::size_t steps, const std::string& file) {
  std::ofstream out(file);
  out << "{\"format\": \"lockstep-trace\", \"version\": 1, \"agents\": [";
  for (char a = 'A'; a < 'E'; ++a)
    out << (a > 'A' ? ", " : "") << "{\"id\": \"" << a
        << "\", \"kind\": \"window\", \"origin\": \"https://a.test\"}";
  out << "], \"steps\": [";
  for (std::size_t i = 0; i < steps; ++i)
    out << (i ? ",\n  " : "\n  ") << "{\"agent\": \"" << static_cast<char>('A' + i % 4)
        << "\", \"op\": \"request\", \"id\": \"r" << i
        << "\", \"name\": \"res\", \"callback\": {\"body\": [{\"op\": \"mark\", \"label\": "
           "\"m\"}]}}";
  out << "\n]}\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s make-log EVENTS FILE | make-trace STEPS FILE | log|trace FILE [RUNS]\n",
                 argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  if (what == "make-log" || what == "make-trace") {
    if (argc < 4) return 2;
    const std::size_t n = std::stoull(argv[2]);
    what == "make-log" ? make_log(n, argv[3]) : make_trace(n, argv[3]);
    return 0;
  }
  const std::string file = argv[2];
  const int runs = argc > 3 ? std::max(1, std::stoi(argv[3])) : 5;
  std::ifstream probe(file, std::ios::binary | std::ios::ate);
  const double bytes = static_cast<double>(probe.tellg());
  const long before = peak_rss_kib();
  long first_peak = 0;
  std::vector<double> mbps, cpu_mbps;
  std::size_t items = 0;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    // What was read lives until the clocks are read: freeing it is not reading.
    std::optional<lockstep::Result<lockstep::Log>> log;
    std::optional<lockstep::Result<lockstep::Trace>> trace;
    if (what == "log")
      log.emplace(lockstep::read_log_file(file));
    else
      trace.emplace(lockstep::read_trace_file(file));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = cpu_seconds() - cpu_start;
    const bool ok = log ? log->ok() : trace->ok();
    if (!ok)
      std::fprintf(stderr, "%s\n", (log ? log->error() : trace->error()).to_string().c_str());
    else
      items = log ? log->value().events.size() : trace->value().steps.size();
    if (!ok) return 1;
    if (r == 0) first_peak = peak_rss_kib();
    mbps.push_back(bytes / 1e6 / seconds);
    cpu_mbps.push_back(bytes / 1e6 / cpu);
  }
  const double first_mbps = mbps.front();  // the read that faults its memory in
  std::sort(mbps.begin(), mbps.end());
  std::sort(cpu_mbps.begin(), cpu_mbps.end());
  const double added = static_cast<double>(first_peak - before) * 1024.0;
  std::printf(
      "%s %s: %.1f MB, %zu %s; read at %.0f MB/s wall (fastest of %d; median %.0f; the first "
      "%.0f), %.0f MB/s of CPU time (median %.0f); peak RSS added %.1f MB = %.2fx the file\n",
      what.c_str(), file.c_str(), bytes / 1e6, items, what == "log" ? "events" : "steps",
      mbps.back(), runs, mbps[mbps.size() / 2], first_mbps, cpu_mbps.back(),
      cpu_mbps[cpu_mbps.size() / 2], added / 1e6, added / bytes);
  return 0;
}
