#include "render.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "commands.h"
#include "lockstep/render.h"
#include "lockstep/trace_io.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;
constexpr int kOk = 0, kBadInput = 2;

bool write_file(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) {
    std::error_code ignored;
    fs::create_directories(path.parent_path(), ignored);
  }
  std::ofstream out(path);
  out << text;
  if (out) return true;
  std::cerr << "lockstep: " << path.string() << ": cannot write the page\n";
  return false;
}

// Every corpus trace as a page beside its folder structure, then the index that links them.
int render_corpus(const RenderArgs& args) {
  const fs::path out = args.out.empty() ? fs::path("corpus-render") : fs::path(args.out);
  const std::vector<fs::path> traces = trace_files_under(args.input);
  if (traces.empty()) {
    std::cerr << "lockstep: " << args.input << ": no *.trace.json under this folder\n";
    return kBadInput;
  }
  std::vector<render::IndexEntry> entries;
  std::vector<Log> logs;
  logs.reserve(traces.size());  // entries point into it
  for (const fs::path& path : traces) {
    auto trace = read_trace_file(path.string());
    if (!trace) return bad_input(path.string(), trace.error());
    std::string relative = fs::relative(path, args.input).string();
    relative = relative.substr(0, relative.size() - std::string(".trace.json").size()) + ".html";
    render::IndexEntry entry{trace.value(), relative, nullptr};
    fs::path log_path = path;
    log_path.replace_filename(
        path.filename().string().substr(0, path.filename().string().size() - 11) + ".log.json");
    render::Options options;
    options.coverage = true;
    if (fs::exists(log_path)) {
      auto log = read_log_file(log_path.string());
      if (!log) return bad_input(log_path.string(), log.error());
      logs.push_back(std::move(log.value()));
      entry.expected = &logs.back();
      options.observed = entry.expected;
    }
    if (entry.trace.name.empty()) entry.trace.name = relative;
    auto page = render::render_page(entry.trace, options);
    if (!page) return bad_input(path.string(), page.error());
    if (!write_file(out / relative, page.value())) return kBadInput;
    entries.push_back(std::move(entry));
  }
  auto index = render::render_index(entries, "lockstep corpus: " + args.input);
  if (!index) return bad_input(args.input, index.error());
  if (!write_file(out / "index.html", index.value())) return kBadInput;
  std::cerr << "lockstep: wrote " << entries.size() << " pages and "
            << (out / "index.html").string() << "\n";
  return kOk;
}

}  // namespace

CLI::App* add_render_command(CLI::App& app, RenderArgs& args) {
  auto* cmd = app.add_subcommand(
      "render",
      "Draw a trace (and an observed log's verdict) as one self-contained HTML page; --corpus "
      "draws every corpus trace and an index");
  cmd->add_option("input", args.input, "The trace; with --corpus, the corpus folder");
  cmd->add_option("-o,--out", args.out,
                  "The page to write; with --corpus, the folder (default: corpus-render/)");
  cmd->add_option("--log", args.log,
                  "An observed log: checked, drawn beside the model's run, its first "
                  "divergence highlighted");
  cmd->add_flag("--coverage", args.coverage, "Add the spec steps the model's run exercised");
  cmd->add_flag("--corpus", args.corpus,
                "Every *.trace.json under the folder (default traces/corpus) as a page, each "
                "checked against its *.log.json, and index.html");
  cmd->add_option("--profile", args.profile, "check's profile for --log")
      ->check(CLI::IsMember({"normative", "intent"}))
      ->capture_default_str();
  cmd->add_option("--max-runs", args.max_runs, "check's budget for --log")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--ignore-steps", args.ignore_steps, "check compares events without step numbers");
  cmd->add_flag("--partial", args.partial,
                "check accepts terminated or unloaded agents' events stopping early");
  return cmd;
}

int render_command(const RenderArgs& given) {
  RenderArgs args = given;
  if (args.corpus) {
    if (args.input.empty()) args.input = "traces/corpus";
    if (!args.log.empty()) {
      std::cerr << "lockstep: render --corpus checks each trace's own *.log.json; --log is for "
                   "one trace\n";
      return kBadInput;
    }
    return render_corpus(args);
  }
  if (args.input.empty() || args.out.empty()) {
    std::cerr << "lockstep: render needs a trace and -o PAGE.html (or --corpus)\n";
    return kBadInput;
  }
  auto trace = read_trace_file(args.input);
  if (!trace) return bad_input(args.input, trace.error());
  render::Options options;
  options.title = trace->name.empty() ? args.input : trace->name;
  options.coverage = args.coverage;
  options.check.profile =
      args.profile == "intent" ? check::Profile::Intent : check::Profile::Normative;
  options.check.max_runs = args.max_runs;
  options.check.compare_steps = !args.ignore_steps;
  options.check.partial = args.partial;
  std::optional<Log> observed;
  if (!args.log.empty()) {
    auto log = read_log_file(args.log);
    if (!log) return bad_input(args.log, log.error());
    observed = std::move(log.value());
    options.observed = &*observed;
  }
  auto page = render::render_page(trace.value(), options);
  if (!page) {
    const bool about_log = page.error().pointer.rfind("/events/", 0) == 0;
    return bad_input(about_log ? args.log : args.input, page.error());
  }
  return write_file(args.out, page.value()) ? kOk : kBadInput;
}

}  // namespace lockstep::cli
