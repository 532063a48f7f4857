#!/usr/bin/env bash
# lockstep shrink against a buggy toy target (tests/toy-target): every generated trace on which the
# target fails `check` shrinks to a trace of at most six calls over at most two agents that still
# fails. Usage: shrink.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
toy="bash $root/tests/toy-target/shared-granted-as-exclusive.sh $lockstep {trace} {log}"
"$lockstep" gen --profile locks --seed 100 --count 40 --steps 25 --out "$tmp/gen" || exit 1
failing=0
for trace in "$tmp"/gen/*.trace.json; do
  bash "$root/tests/toy-target/shared-granted-as-exclusive.sh" "$lockstep" "$trace" "$tmp/toy.log.json" || continue
  "$lockstep" check "$trace" "$tmp/toy.log.json" > /dev/null 2>&1
  [ $? -eq 1 ] || continue   # the toy's bug did not show on this trace
  failing=$((failing + 1))
  [ $failing -le 6 ] || continue
  "$lockstep" shrink "$trace" --cmd "$toy" -o "$tmp/min.trace.json" 2> "$tmp/shrink.err"
  rc=$?
  stats=$(grep '^shrunk in' "$tmp/shrink.err")
  calls=$(echo "$stats" | sed -E 's/.*calls [0-9]+ -> ([0-9]+).*/\1/')
  agents=$(echo "$stats" | sed -E 's/.*agents [0-9]+ -> ([0-9]+).*/\1/')
  echo "$(basename "$trace"): $stats"
  if [ $rc -ne 0 ] || [ -z "$calls" ] || [ "$calls" -gt 6 ] || [ "$agents" -gt 2 ]; then
    echo "FAIL $(basename "$trace"): exit $rc"; cat "$tmp/shrink.err"; fail=1; continue
  fi
  # The minimal trace still fails on the target.
  bash "$root/tests/toy-target/shared-granted-as-exclusive.sh" "$lockstep" "$tmp/min.trace.json" "$tmp/min.log.json"
  "$lockstep" check "$tmp/min.trace.json" "$tmp/min.log.json" > /dev/null 2>&1
  [ $? -eq 1 ] || { echo "FAIL $(basename "$trace"): the shrunk trace no longer fails"; fail=1; }
done
[ $failing -ge 3 ] || { echo "FAIL only $failing generated traces show the toy's bug"; fail=1; }
# A trace the target gets right is bad input for shrink.
"$lockstep" shrink "$root/traces/corpus/web-locks/basic-exclusive.trace.json" --cmd "$toy" > /dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL shrink of a passing trace does not exit 2"; fail=1; }
# --partial reaches every candidate's check: a target that only loses an ended agent's last event
# fails plain `check` (so there is something to shrink) and passes `check --partial` (nothing).
lossy="bash $root/tests/toy-target/loses-an-ended-agents-last-event.sh $lockstep {trace} {log}"
election="$root/traces/corpus/web-locks/example-primary-tab-election.trace.json"
"$lockstep" shrink "$election" --cmd "$lossy" -o "$tmp/lossy.trace.json" 2> "$tmp/lossy.err"
[ $? -eq 0 ] || { echo "FAIL shrink without --partial: the lost event is not a failure"; cat "$tmp/lossy.err"; fail=1; }
"$lockstep" shrink "$election" --cmd "$lossy" --partial > /dev/null 2> "$tmp/lossy.err"
[ $? -eq 2 ] && grep -q 'allowed, so there is no failure' "$tmp/lossy.err" \
  || { echo "FAIL shrink --partial still judges the lost event a failure"; cat "$tmp/lossy.err"; fail=1; }
echo "shrink: $failing failing traces; $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
