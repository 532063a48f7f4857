// A counterexample of a property about `lockstep check` is kept as files that the CLI takes back:
// the trace and, beside it, the observed log it judged.
#include "counterexamples.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "lockstep/trace_io.h"

namespace lockstep {
namespace {

TEST(Counterexamples, ACheckPropertyKeepsTheObservedLogBesideTheTrace) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("lockstep-counterexamples-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ::setenv("LOCKSTEP_COUNTEREXAMPLES", dir.c_str(), 1);
  auto trace = read_trace_file(std::string(LOCKSTEP_SOURCE_DIR) +
                               "/traces/corpus/web-locks/basic-exclusive.trace.json");
  auto log = read_log_file(std::string(LOCKSTEP_SOURCE_DIR) +
                           "/traces/corpus/web-locks/basic-exclusive.log.json");
  ASSERT_TRUE(trace.ok() && log.ok());
  const std::string message = counterexample("check-example", trace.value(), log.value(), "why");
  ::unsetenv("LOCKSTEP_COUNTEREXAMPLES");

  const auto kept_trace = read_trace_file((dir / "check-example.trace.json").string());
  const auto kept_log = read_log_file((dir / "check-example.log.json").string());
  ASSERT_TRUE(kept_trace.ok()) << kept_trace.error().to_string();
  ASSERT_TRUE(kept_log.ok()) << kept_log.error().to_string();
  EXPECT_EQ(write_trace(kept_trace.value()), write_trace(trace.value()));
  EXPECT_EQ(write_log(kept_log.value()), write_log(log.value()));
  EXPECT_EQ(message.rfind("why\n", 0), 0u);
  EXPECT_NE(message.find("check: lockstep check " + (dir / "check-example.trace.json").string() +
                         " " + (dir / "check-example.log.json").string()),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lockstep
