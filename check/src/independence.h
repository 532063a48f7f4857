// Which units of the model commute, for the search's partial-order reduction (sleep sets, as in
// stateless model checkers): if two units are independent, running them in either order leaves
// the same state and each agent's events in the same order, so once the search has tried every
// schedule that runs one of them first, it need not try those that run the other first and the
// first right after. check/README.md ("Partial-order reduction") gives the argument.
#pragma once

#include <map>
#include <set>
#include <string>

#include "lockstep/trace.h"

namespace lockstep::check {

class Independence {
 public:
  explicit Independence(const Trace& trace);

  // The unit a choice names ("locks:<partition>" or "loop:<loop>/<source>", an "early:" pin's
  // unit included); empty for a choice that runs no unit or begins a step ("step", "idle",
  // "settled"), which the search takes as dependent on everything.
  static std::string unit_of(const std::string& choice);

  // Whether two units (unit_of) may fail to commute; true when unsure.
  bool dependent(const std::string& a, const std::string& b) const;

 private:
  std::map<std::string, std::set<std::string>> loop_partitions_;  // event loop -> partitions
};

}  // namespace lockstep::check
