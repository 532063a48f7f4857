#!/usr/bin/env bash
# A `fuzz --target` campaign split into shards, or run with --jobs, is the campaign run at once:
# the same summary.json (but for its seconds and folder), the same kept traces, the same shrunk
# failures. Shards are run as a Kubernetes Indexed Job runs them (each process told its index by
# JOB_COMPLETION_INDEX), side by side, then merged; a --jobs campaign stopped by SIGTERM resumes.
# `fuzz merge` refuses folders that are not the N shards of one campaign.
# Usage: shards.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
campaign_targets "$tmp/targets.json"
base=(fuzz --targets "$tmp/targets.json" --target fast --steps 25 --shrink 2 --count 15)
campaign=("${base[@]}" --seed 100)
check 1 "the campaign at once" "$lockstep" "${campaign[@]}" --out "$tmp/whole"
summary "$tmp/whole" "s['notAllowed'] >= 3 and sum('minimal' in f for f in s['failures']) == 2" \
  || { echo "FAIL the reference campaign has too few failures to tell shards apart"; fail=1; }

# --jobs 3 and 4 split it (the shards' first failures are shrunk; the merge keeps the first two).
for jobs in 3 4; do
  check 1 "--jobs $jobs" "$lockstep" "${campaign[@]}" --jobs "$jobs" --out "$tmp/jobs$jobs"
  same_as "$tmp/whole" "$tmp/jobs$jobs" "--jobs $jobs"
  [ -z "$(find "$tmp/jobs$jobs/shards" -name '*trace.json')" ] \
    || { echo "FAIL --jobs $jobs: kept traces left in the shards' folders"; fail=1; }
done

# Without --jobs: one trace at a time for a target that does not say how many it takes (no
# shards folder), and jobsPerCore times the cores (at most --count) for one that does.
[ ! -e "$tmp/whole/shards" ] || { echo "FAIL a target without jobsPerCore ran in shards"; fail=1; }
python3 - "$tmp/targets.json" "$tmp/per-core.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["targets"]["fast"]["jobsPerCore"] = 2
json.dump(t, open(sys.argv[2], "w"))
PY
cores=$(nproc)
per_core=(fuzz --targets "$tmp/per-core.json" --target fast --steps 25 --shrink 2 --seed 100)
check 1 "jobsPerCore 2" "$lockstep" "${per_core[@]}" --count 15 --out "$tmp/per-core"
same_as "$tmp/whole" "$tmp/per-core" "jobsPerCore 2"
want=$((2 * cores < 15 ? 2 * cores : 15))
[ -d "$tmp/per-core/shards/0-of-$want" ] && [ "$(ls "$tmp/per-core/shards" | wc -l)" -eq "$want" ] \
  || { echo "FAIL jobsPerCore 2 on $cores cores: shards $(ls "$tmp/per-core/shards" 2>&1), expected $want"; fail=1; }
check 0 "jobsPerCore 2, --count 3 (its three traces are allowed)" "$lockstep" "${per_core[@]}" --count 3 --out "$tmp/per-core-3"
[ "$(ls "$tmp/per-core-3/shards" | wc -l)" -eq $((2 * cores < 3 ? 2 * cores : 3)) ] \
  || { echo "FAIL jobsPerCore 2, --count 3: $(ls "$tmp/per-core-3/shards" | wc -l) shards"; fail=1; }

# Three shards side by side, each picking its shard from the Indexed Job's variable, then merged.
for i in 0 1 2; do
  JOB_COMPLETION_INDEX=$i bash -c '"$@" --shard "$JOB_COMPLETION_INDEX/3" --out "$0/shard-$JOB_COMPLETION_INDEX"' \
    "$tmp" "$lockstep" "${campaign[@]}" > /dev/null 2>&1 &
done
wait
check 1 "fuzz merge" "$lockstep" fuzz merge --out "$tmp/merged" "$tmp/shard-2" "$tmp/shard-0" "$tmp/shard-1"
same_as "$tmp/whole" "$tmp/merged" "three shards merged"

# --jobs stopped by SIGTERM, then resumed with --jobs.
slow=(fuzz --targets "$tmp/targets.json" --target slow --steps 25 --shrink 0 --count 15 --seed 100)
check 1 "the slow campaign at once" "$lockstep" "${slow[@]}" --out "$tmp/slow"
stopped_and_resumed "$tmp/slow" "$tmp/stopped" 5 15 "--jobs 3" "${slow[@]}" --jobs 3

# A campaign that ran in its default shards resumes in those shards, whatever the default is now
# (another machine, another registry): slow with jobsPerCore 2, resumed with jobsPerCore 1.
python3 - "$tmp/targets.json" "$tmp/slow-2.json" "$tmp/slow-1.json" <<'PY'
import json, sys
for per_core, out in ((2, sys.argv[2]), (1, sys.argv[3])):
    t = json.load(open(sys.argv[1]))
    t["targets"]["slow"]["jobsPerCore"] = per_core
    json.dump(t, open(out, "w"))
PY
slow_default=(fuzz --target slow --steps 25 --shrink 0 --count 15 --seed 100)
"$lockstep" "${slow_default[@]}" --targets "$tmp/slow-2.json" --out "$tmp/stopped-default" > /dev/null 2>&1 &
stop_after 5 TERM $! "$tmp/stopped-default"
wait $!
shards_before=$(ls "$tmp/stopped-default/shards")
check 1 "resumed in its default shards" "$lockstep" "${slow_default[@]}" --targets "$tmp/slow-1.json" --out "$tmp/stopped-default" --resume
[ "$(ls "$tmp/stopped-default/shards")" = "$shards_before" ] \
  || { echo "FAIL --resume made other shards: $(ls "$tmp/stopped-default/shards" | tr '\n' ' '), before: $shards_before"; fail=1; }
same_as "$tmp/slow" "$tmp/stopped-default" "default shards stopped and resumed"

# What fuzz merge refuses.
expect 2 "lockstep: fuzz merge: shards missing: 1/3" "merge without shard 1" \
  "$lockstep" fuzz merge --out "$tmp/m2" "$tmp/shard-0" "$tmp/shard-2"
expect 2 "lockstep: fuzz merge: $tmp/shard-1 and $tmp/shard-1 are both shard 1/3" "merge of a shard twice" \
  "$lockstep" fuzz merge --out "$tmp/m3" "$tmp/shard-0" "$tmp/shard-1" "$tmp/shard-1" "$tmp/shard-2"
expect 2 "lockstep: fuzz merge: $tmp/whole/progress.jsonl: not a shard's journal (no \"shard\": \"I/N\")" \
  "merge of an unsharded campaign" "$lockstep" fuzz merge --out "$tmp/m4" "$tmp/whole"
"$lockstep" "${base[@]}" --seed 101 --shard 1/3 --out "$tmp/other-1" > /dev/null 2>&1
expect 2 "lockstep: fuzz merge: $tmp/other-1 is a shard of another campaign: its firstSeed is 101, not 100" \
  "merge of another campaign's shard" "$lockstep" fuzz merge --out "$tmp/m5" "$tmp/shard-0" "$tmp/other-1" "$tmp/shard-2"
expect 2 "lockstep: fuzz --shard: --jobs 2 would need 2 processes, and a shard is one: give --jobs at most what the target's server takes at once (serveAtOnce in its targets file)" "--jobs with --shard" \
  "$lockstep" "${campaign[@]}" --jobs 2 --shard 0/2 --out "$tmp/both"
expect 2 "lockstep: fuzz --shard: expected I/N with 0 <= I < N, got \"3/3\"" "--shard 3/3" \
  "$lockstep" "${campaign[@]}" --shard 3/3 --out "$tmp/bad"
echo "shards: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
