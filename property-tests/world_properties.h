// The properties over generated worlds, as plain functions: each draws its inputs with
// RapidCheck's `*gen` and fails with RC_ASSERT / RC_FAIL, so it runs inside a RapidCheck check,
// under GoogleTest (world_properties_test.cpp) or `lockstep fuzz`.
#pragma once

#include <vector>

#include "lockstep/trace.h"

namespace lockstep {

// The generated trace as the reader sees it (pointers filled in); fails the property if the
// reader refuses it: every generated trace must pass `lockstep validate`.
Trace validated(const Trace& generated);

// Any readings (docs/interpretations.md I-24, I-25, I-29); the generators leave traces at the
// defaults, so the properties draw them themselves.
Readings any_readings();

}  // namespace lockstep

namespace lockstep::properties {

struct Property {
  const char* name;
  void (*body)();
};

void generated_traces_are_valid_and_replay_on_both_engines();
void engines_agree_under_random_schedules();
void deleting_one_partition_or_origin_leaves_the_others_unchanged();
void renaming_agents_and_names_renames_the_log();
void snapshots_never_show_conflicting_holders();
void every_request_ends_at_most_once_after_its_callback();
void the_model_keeps_its_invariants_at_every_unit();
void check_allows_every_log_the_model_produces();
void check_never_rejects_a_log_the_model_produces();
void check_never_rejects_model_logs_with_early_units();
void check_searches_the_same_on_both_engines();
void reused_probes_change_only_the_replays();
void engines_offer_the_same_choice_points_when_steered();
void units_taken_as_independent_commute();  // reduction_property.cpp
void cached_states_change_only_the_replays();
void a_time_budget_only_turns_verdicts_unknown();
void splitting_decides_as_the_whole_search();

// Every property above, by name.
const std::vector<Property>& world_properties();

}  // namespace lockstep::properties
