// `lockstep render`: a trace, and optionally an observed log and its verdict, as one
// self-contained HTML page (no network): a timeline of each resource name's holders and queue,
// one lane of events per agent, scheduler tasks by effective priority; with an observed log,
// expected and observed events side by side and the first divergence highlighted, its spec steps
// linked to the spec's anchors; optionally the spec steps the run exercised.
#pragma once

#include <string>
#include <vector>

#include "lockstep/check.h"
#include "lockstep/error.h"
#include "lockstep/log.h"
#include "lockstep/trace.h"

namespace lockstep::render {

struct Options {
  std::string title;              // default: the trace's name
  const Log* observed = nullptr;  // --log: checked, then drawn beside the model's run
  check::Options check;           // how it is checked
  bool coverage = false;          // --coverage: the spec steps the model's run exercised
};

// The page. Drawn from the model's run: as the trace pins it; with an observed log, the run of
// the schedule check found (allowed) or of the first run that got furthest (not allowed,
// unknown). Bad input (a trace the model rejects, a log naming agents the trace lacks) is an
// Error.
Result<std::string> render_page(const Trace& trace, const Options& options);

// One scenario of a corpus index: its trace, the page that shows it, and (when the corpus has
// one) its expected log, which the index checks.
struct IndexEntry {
  Trace trace;
  std::string href;
  const Log* expected = nullptr;
};
// The index page: a card with a small picture of the model's run per scenario.
Result<std::string> render_index(const std::vector<IndexEntry>& entries, const std::string& title);

}  // namespace lockstep::render
