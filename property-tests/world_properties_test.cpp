// The world properties (world_properties.cpp) under GoogleTest, with CI's fixed seed and budget.
#include "world_properties.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep::properties {
namespace {

RC_GTEST_PROP(Worlds, GeneratedTracesAreValidAndReplayOnBothEngines, ()) {
  generated_traces_are_valid_and_replay_on_both_engines();
}
RC_GTEST_PROP(Worlds, EnginesAgreeUnderRandomSchedules, ()) {
  engines_agree_under_random_schedules();
}
RC_GTEST_PROP(Worlds, DeletingOnePartitionOrOriginLeavesTheOthersUnchanged, ()) {
  deleting_one_partition_or_origin_leaves_the_others_unchanged();
}
RC_GTEST_PROP(Worlds, RenamingAgentsAndNamesRenamesTheLog, ()) {
  renaming_agents_and_names_renames_the_log();
}
RC_GTEST_PROP(Worlds, SnapshotsNeverShowConflictingHolders, ()) {
  snapshots_never_show_conflicting_holders();
}
RC_GTEST_PROP(Worlds, EveryRequestEndsAtMostOnceAfterItsCallback, ()) {
  every_request_ends_at_most_once_after_its_callback();
}
RC_GTEST_PROP(Worlds, TheModelKeepsItsInvariantsAtEveryUnit, ()) {
  the_model_keeps_its_invariants_at_every_unit();
}

RC_GTEST_PROP(Worlds, CheckAllowsEveryLogTheModelProduces, ()) {
  check_allows_every_log_the_model_produces();
}

RC_GTEST_PROP(Worlds, CheckNeverRejectsALogTheModelProduces, ()) {
  check_never_rejects_a_log_the_model_produces();
}

RC_GTEST_PROP(Worlds, CheckNeverRejectsModelLogsWithEarlyUnits, ()) {
  check_never_rejects_model_logs_with_early_units();
}

RC_GTEST_PROP(Worlds, EnginesOfferTheSameChoicePointsWhenSteered, ()) {
  engines_offer_the_same_choice_points_when_steered();
}

RC_GTEST_PROP(Worlds, CheckSearchesTheSameOnBothEngines, ()) {
  check_searches_the_same_on_both_engines();
}

RC_GTEST_PROP(Worlds, ReusedProbesChangeOnlyTheReplays, ()) {
  reused_probes_change_only_the_replays();
}

RC_GTEST_PROP(Worlds, CachedStatesChangeOnlyTheReplays, ()) {
  cached_states_change_only_the_replays();
}

RC_GTEST_PROP(Worlds, UnitsTakenAsIndependentCommute, ()) {
  units_taken_as_independent_commute();
}

RC_GTEST_PROP(Worlds, ATimeBudgetOnlyTurnsVerdictsUnknown, ()) {
  a_time_budget_only_turns_verdicts_unknown();
}

RC_GTEST_PROP(Worlds, SplittingDecidesAsTheWholeSearch, ()) {
  splitting_decides_as_the_whole_search();
}

}  // namespace
}  // namespace lockstep::properties
