// lockstep export --wpt: web-platform-tests style testharness.js pages from traces. Each page
// embeds the trace and the spec model's logs under every schedule, and replays the trace with the
// browser's real APIs through export/wpt/lockstep-driver.js (an iframe per window, a dedicated
// worker per worker); it asserts each agent's events in order and nothing about the order
// between agents.
#include "export.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "commands.h"
#include "lockstep/choice_point.h"
#include "lockstep/spec_engine.h"
#include "lockstep/trace_io.h"
#include "page_file.h"

namespace lockstep {
const char* wpt_driver_js();
const char* wpt_testharness_js();
const char* wpt_testharnessreport_js();
const char* wpt_worker_js();
const char* wpt_frame_html();
const char* wpt_get_host_info_js();
}  // namespace lockstep

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

// The page's origin is the trace's first origin; a second one is get_host_info()'s remote origin.
std::string page_origin(const Trace& trace) {
  for (const Agent& a : trace.agents)
    if (a.origin != "opaque") return a.origin;
  return "";
}

// Why a trace cannot run as a page test; nothing when it can. A page has windows (iframes) of its
// own origin, of one remote origin and opaque ones (sandboxed), and dedicated workers of its own
// origin; it has no second user agent (partitions) and no virtual clock. Windows of the page's
// origin are driven directly; every other agent by messages, so what it makes stays in its realm.
std::optional<std::string> not_exportable(const Trace& trace) {
  std::set<std::string> origins, partitions;
  for (const Agent& a : trace.agents) {
    partitions.insert(a.partition);
    if (a.origin != "opaque") origins.insert(a.origin);
  }
  if (partitions.size() > 1)
    return "it uses more than one partition (another user agent's storage, which a page cannot "
           "open)";
  if (origins.size() > 2)
    return "it uses more than two origins (a page has its own and one remote)";
  const std::string own = page_origin(trace);
  std::set<std::string> messaged;  // agents driven by messages: not windows of the page's origin
  for (const Agent& a : trace.agents) {
    if (a.kind == AgentKind::Worker && a.origin != own)
      return "worker " + a.id + " is not of the page's origin";
    if (a.kind == AgentKind::Worker || a.origin != own) messaged.insert(a.id);
  }
  for (const Agent& a : trace.agents)
    for (const Agent& b : trace.agents)
      if (a.event_loop == b.event_loop && a.origin != b.origin)
        return "agents " + a.id + " and " + b.id + " share an event loop across origins";
  std::optional<std::string> reason;
  const auto refuse = [&](std::string why) {
    if (!reason) reason = std::move(why);
  };
  // After `terminate` an agent runs no script (the driver skips its steps); after `unload` it
  // does, which only a window the page drives directly can.
  std::set<std::string> unloaded;
  for (const Action& step : trace.steps) {
    if (unloaded.count(step.agent) && messaged.count(step.agent))
      refuse("agent " + step.agent + " runs script after its document unloads (only a window " +
             "of the page's origin can)");
    if (step.op == Op::Unload) unloaded.insert(step.agent);
  }
  // The reader lets an agent use an id another agent made only within one event loop, which only
  // windows share, and here only windows driven directly: by the page's own script, so a
  // reaction a window attaches to a promise is a function of the page's realm. The model gives
  // that reaction's job to the window (I-28) and drops it once the window is gone; the page would
  // still run it. So a window may not settle, await or `then` another agent's promise, as the
  // adapters refuse (cannotExpress in adapters/js/agent.mjs).
  std::map<std::string, std::string> maker;  // an id -> the agent whose action makes it
  for_each_action(trace.steps, [&](const Action& a) {
    if (!a.id.empty()) maker.emplace(a.id, a.agent);
    if (a.op != Op::Settle && a.op != Op::Await && a.op != Op::Then) return;
    const auto made = maker.find(a.target);
    if (made != maker.end() && made->second != a.agent)
      refuse("agent " + a.agent + " uses promise " + a.target + ", which agent " + made->second +
             " made (the page would attach " + a.agent + "'s reactions in its own realm, I-28)");
  });
  for_each_action(trace.steps, [&](const Action& a) {
    switch (a.op) {
      case Op::SetTimeout:
      case Op::AdvanceTime:
      case Op::TimeoutSignal:
        refuse(std::string("op ") + op_name(a.op) + " needs the virtual clock");
        return;
      case Op::PostTask:
        if (a.task_options->delay) refuse("a postTask delay needs the virtual clock");
        return;
      case Op::Request:
      case Op::Query:
      case Op::NewAbortController:
      case Op::Abort:
      case Op::Settle:
      case Op::NewPromise:
      case Op::Then:
      case Op::QueueMicrotask:
      case Op::Run:
      case Op::Await:
      case Op::Mark:
      case Op::Unload:
      case Op::Terminate:
      case Op::Yield:
      case Op::NewTaskController:
      case Op::SetPriority:
      case Op::TaskSignalAny:
      case Op::OnPriorityChange:
      case Op::RequestIdleCallback:
        return;
      default:
        refuse(std::string("op ") + op_name(a.op) + " is not supported by the driver");
    }
  });
  return reason;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// A log's text as the page compares it: each agent's events in order, without step numbers.
std::string per_agent(const Trace& trace, Log log) {
  std::vector<Event> events;
  for (const Agent& a : trace.agents)
    for (Event& e : log.events)
      if (e.agent == a.id) {
        e.step = 0;
        events.push_back(std::move(e));
      }
  log.events = std::move(events);
  return write_log(log);
}

// Every log the spec model allows for the trace, one per order of each agent's events: a
// depth-first walk over the model's choice points, each alternative pinned through the trace's
// `schedule` (the model refuses a pin that names nothing runnable there with an error at
// /schedule/N). The trace's own schedule is not kept: the page accepts what any schedule allows.
// The candidates are every unit a choice can name (the lock task queue; each event loop's task
// sources, scheduler and idle period), each also as an "early:" pin, and "step", when a step of the
// trace does not settle (I-26), "settled" and "idle" when the trace asks for idle callbacks (the
// idle periods put off or started, I-27: a browser may never run them), and any name a run took.
constexpr std::size_t kMaxReplays = 20000;

std::optional<Error> add_every_schedules_log(const Engine& engine, Trace& trace,
                                             std::vector<Log>& logs, std::set<std::string>& seen,
                                             std::size_t& replays) {
  std::set<std::string> units{"locks:" + trace.agents.front().partition};
  for (const Agent& a : trace.agents)
    for (const char* source : {"trace", "script", "timer", "web-locks", "scheduler", "idle"})
      units.insert("loop:" + a.event_loop + "/" + source);
  // I-26: after a step that does not settle, queued units may also run before the next step.
  const bool steps_may_wait = std::any_of(trace.steps.begin(), trace.steps.end(),
                                          [](const Action& a) { return !a.settle; });
  // "step" begins a step where a unit could go first, so that a later "early:" pin goes before
  // a later step.
  if (steps_may_wait) {
    for (const std::string& unit : std::set<std::string>(units))
      units.insert(std::string(pins::kEarly) + unit);
    units.insert(std::string(pins::kStep));
  }
  // I-27: where only idle periods could start, the settling may end with them put off.
  bool asks_for_idle_callbacks = false;
  for_each_action(trace.steps, [&](const Action& a) {
    asks_for_idle_callbacks |= a.op == Op::RequestIdleCallback;
  });
  // "idle" starts them where they could be put off, so that a later "settled" goes later.
  if (asks_for_idle_callbacks)
    units.insert({std::string(pins::kSettled), std::string(pins::kIdle)});
  std::vector<std::vector<std::string>> pending{{}};  // schedule prefixes still to replay
  while (!pending.empty()) {
    trace.schedule = std::move(pending.back());
    pending.pop_back();
    if (++replays > kMaxReplays)
      return Error{
          "", "more than " + std::to_string(kMaxReplays) + " replays to find every schedule's log"};
    RunOutcome outcome = engine.run(trace, {});
    if (!outcome.ok()) {
      const Error& e = outcome.failure().error;
      if (!trace.schedule.empty() &&
          e.pointer == "/schedule/" + std::to_string(trace.schedule.size() - 1))
        continue;  // that unit is not runnable there
      return Error{e.pointer, "under the schedule [" + join(trace.schedule) + "]: " + e.message};
    }
    const std::vector<std::string>& choices = outcome.result().choices;
    units.insert(choices.begin(), choices.end());
    if (seen.insert(per_agent(trace, outcome.result().log)).second)
      logs.push_back(std::move(outcome.result().log));
    for (std::size_t depth = trace.schedule.size(); depth < choices.size(); ++depth)
      for (const std::string& unit : units)
        if (unit != choices[depth]) {
          std::vector<std::string> prefix(choices.begin(), choices.begin() + depth);
          prefix.push_back(unit);
          pending.push_back(std::move(prefix));
        }
    // An early unit, or idle periods put off, may also follow the last choice taken: where a
    // canonical run begins a step at once or starts the only idle period, it records nothing, so
    // a trace whose run took no choice has those orders too.
    if (trace.schedule.size() <= choices.size())
      for (const std::string& unit : units)
        if ((steps_may_wait && (pins::is_early(unit) || unit == pins::kStep)) ||
            unit == pins::kSettled || unit == pins::kIdle) {
          std::vector<std::string> prefix = choices;
          prefix.push_back(unit);
          pending.push_back(std::move(prefix));
        }
  }
  return std::nullopt;
}

// Under every combination of readings (docs/interpretations.md I-24, I-25, I-29), as `check`
// searches.
Result<std::vector<Log>> allowed_logs(const Engine& engine, Trace trace) {
  std::vector<Log> logs;
  std::set<std::string> seen;  // the logs found, per agent
  std::size_t replays = 0;
  for (const Readings& reading : trace.readings_that_matter()) {
    trace.readings = reading;
    if (auto error = add_every_schedules_log(engine, trace, logs, seen, replays)) return *error;
  }
  return logs;
}

std::string script_safe(std::string json) {  // JSON inside <script>: no "</"
  for (std::size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3))
    json.replace(at, 2, "<\\/");
  return json;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '<' ? "&lt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// The page: the trace, every log the model allows for it, and one promise_test. Traces with a
// second origin load get_host_info() (WPT's, or the stand-in written beside the pages).
std::string page(const Trace& trace, const std::string& trace_json,
                 const std::vector<Log>& allowed) {
  const std::string title =
      trace.name + (trace.description.empty() ? "" : ": " + trace.description);
  std::set<std::string> origins;
  for (const Agent& a : trace.agents)
    if (a.origin != "opaque") origins.insert(a.origin);
  std::string logs;
  for (const Log& log : allowed) logs += (logs.empty() ? "" : ",\n") + write_log(log);
  const char* comment =
      R"(// Generated by `lockstep export --wpt` from the trace below. `expected` holds the events of
// the lockstep spec model's logs under every schedule the specs allow (one log when they agree);
// each agent's events must be those of one of them, in order. The order between agents, step
// numbers, the order of a query's lists across names and clientIds are not compared.
)";
  const char* test = R"(promise_test(async () => {
  const observed = await lockstep.replay(trace, document);
  const want = lockstep.closest(trace, expected, observed);
  const orders = expected.length > 1 ? ` (one of ${expected.length} allowed orders)` : '';
  for (const agent of Object.keys(want))
    assert_array_equals(observed[agent], want[agent], `events of agent ${agent}${orders}`);
}, )";
  return "<!doctype html>\n<meta charset=\"utf-8\">\n<title>lockstep: " + html_escape(trace.name) +
         "</title>\n<script src=\"/resources/testharness.js\"></script>\n"
         "<script src=\"/resources/testharnessreport.js\"></script>\n" +
         (origins.size() > 1 ? "<script src=\"/common/get-host-info.sub.js\"></script>\n" : "") +
         "<script src=\"lockstep-driver.js\"></script>\n<body>\n<script>\n" + comment +
         "const trace = " + script_safe(trace_json) + ";\nconst expected = [" + script_safe(logs) +
         "].map((log) => log.events);\n" + test + script_safe(write_value(Value::string(title))) +
         ");\n</script>\n";
}

// Writes `text` to `path`; why not, when it could not (a failed open, write or close is never
// taken for a page written).
std::optional<std::string> write_file(const fs::path& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (out) return std::nullopt;
  return path.string() + ": cannot write" +
         (errno != 0 ? std::string(": ") + std::strerror(errno) : "");
}

// What export writes besides the pages, by path under -o.
std::vector<std::pair<std::string, const char*>> harness_files() {
  return {{"lockstep-driver.js", wpt_driver_js()},
          {"resources/testharness.js", wpt_testharness_js()},
          {"resources/testharnessreport.js", wpt_testharnessreport_js()},
          {"resources/lockstep-worker.js", wpt_worker_js()},
          {"resources/lockstep-frame.html", wpt_frame_html()},
          {"common/get-host-info.sub.js", wpt_get_host_info_js()}};  // WPT has its own
}

// The names at the top of -o that only export's own files may have. Compared without ASCII case,
// so that no two files overwrite each other on a file system that ignores case.
std::string folded(std::string name) {
  for (char& c : name)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return name;
}

struct Page {
  std::string file;  // under -o
  std::string html;
};

// A trace's name as a cell of REPORT.md's table: a `|` or a line break would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? "\\|" : c == '\n' || c == '\r' ? " " : std::string(1, c);
  return out;
}

}  // namespace

int export_command(const ExportArgs& args) {
  if (!args.wpt) {
    std::cerr << "lockstep: export: say which format: --wpt\n";
    return 2;
  }
  std::vector<fs::path> traces;
  for (const std::string& input : args.inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      for (const fs::path& path : trace_files_under(input)) traces.push_back(path);
    } else if (fs::is_regular_file(input, ec)) {
      traces.push_back(input);
    } else {
      std::cerr << "lockstep: " << input << ": no such trace file or folder\n";
      return 2;
    }
  }
  std::sort(traces.begin(), traces.end());
  // A top-level name under -o -> who writes it: the harness, or a trace file's page.
  std::map<std::string, std::string> taken;
  for (const auto& [file, _] : harness_files())
    taken.emplace(folded(file.substr(0, file.find('/'))), "export's own files");
  taken.emplace(folded("REPORT.md"), "export's own files");
  std::string report =
      "# lockstep export --wpt\n\nA page replays a trace with windows of its own origin, of one "
      "remote origin and opaque ones, and dedicated workers of its own origin; it cannot open "
      "another partition or drive the virtual clock. Where schedules give an agent different "
      "orders, any of them passes.\n\n| trace | test | note |\n|---|---|---|\n";
  // Every page is made before any file is written, so that a refused run writes nothing.
  std::vector<Page> pages;
  int skipped = 0;
  const auto engine = make_spec_engine();
  for (const fs::path& path : traces) {
    auto trace = read_trace_file(path.string());
    if (!trace) return bad_input(path.string(), trace.error());
    const bool named = !trace->name.empty();
    if (!named) trace->name = path.stem().stem().string();
    if (auto why = not_exportable(trace.value())) {
      report += "| " + cell(trace->name) + " | | not exported: " + *why + " |\n";
      ++skipped;
      continue;
    }
    RunOutcome outcome = engine->run(trace.value(), {});
    if (!outcome.ok()) return bad_input(path.string(), outcome.failure().error);
    Result<std::vector<Log>> allowed = allowed_logs(*engine, trace.value());
    if (!allowed) {
      report +=
          "| " + cell(trace->name) + " | | not exported: " + allowed.error().to_string() + " |\n";
      ++skipped;
      continue;
    }
    // The page's file: the name made a plain file name (page_file.h), which must be the page's
    // alone. page_file_name never makes a path or a hidden file; the check keeps that so here,
    // where it matters, whatever page_file_name becomes.
    const std::string file = page_file_name(trace->name);
    const std::string name = named ? "the name \"" + trace->name + "\""
                                   : "no name, and its file's name \"" + trace->name + "\"";
    if (file.find('/') != std::string::npos || file.front() == '.')
      return bad_input(path.string(),
                       Error{"/name", name + " would make a page outside " + args.out});
    if (auto [at, fresh] = taken.emplace(folded(file), "the trace " + path.string()); !fresh)
      return bad_input(
          path.string(),
          Error{"/name", name + " makes the page file " + file + ", already taken by " +
                             at->second +
                             " (a page's file is the trace's name with every character but A-Z "
                             "a-z 0-9 . _ - made -; export/README.md): rename one"});
    pages.push_back({file, page(trace.value(), write_trace(trace.value()), allowed.value())});
    const std::size_t n = allowed->size();
    report += "| " + cell(trace->name) + " | " + file + " | " +
              (n > 1 ? std::to_string(n) + " orders allowed (the schedule decides)" : "") + " |\n";
  }
  std::error_code ec;
  for (const char* folder : {"resources", "common"}) {
    fs::create_directories(fs::path(args.out) / folder, ec);
    if (ec) {
      std::cerr << "lockstep: " << args.out << ": " << ec.message() << "\n";
      return 2;
    }
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [file, text] : harness_files()) files.emplace_back(file, text);
  for (Page& p : pages) files.emplace_back(p.file, std::move(p.html));
  files.emplace_back("REPORT.md", std::move(report));
  for (const auto& [file, text] : files)
    if (auto error = write_file(fs::path(args.out) / file, text)) {
      std::cerr << "lockstep: " << *error << "\n";
      return 2;
    }
  std::cerr << "exported " << pages.size() << " tests to " << args.out << ", " << skipped
            << " traces not exported (why: " << args.out << "/REPORT.md)\n";
  return 0;
}

}  // namespace lockstep::cli
