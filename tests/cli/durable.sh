#!/usr/bin/env bash
# A `fuzz --target` campaign stopped by SIGTERM, SIGINT or SIGKILL and then resumed ends as the
# same campaign run without a stop: the same summary.json (but for its seconds and folder) and the
# same kept failures. A stop by SIGINT or SIGTERM writes summary.json, exits 128 + the signal's
# number, and leaves no adapter process (nor anything it started) and no temporary folder behind.
# Usage: durable.sh LOCKSTEP SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
export TMPDIR=$tmp/tmpdir  # where the adapters' temporary folders go
mkdir -p "$TMPDIR"
campaign_targets "$tmp/targets.json"
campaign=(fuzz --targets "$tmp/targets.json" --seed 100 --steps 25 --shrink 1)
no_leftovers() {  # description
  sleep 0.5
  if pgrep -f "sleep $marker" > /dev/null || pgrep -f "delay 0.4$$" > /dev/null; then
    echo "FAIL $1: adapter processes left running:"; pgrep -af "sleep $marker|delay 0.4$$"; fail=1
    pkill -f "sleep $marker"; pkill -f "delay 0.4$$"
  fi
  if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL $1: temporary folders left: $(ls "$TMPDIR")"; fail=1; fi
}

check 1 "the uninterrupted campaign" "$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/whole"
summary "$tmp/whole" "s['notAllowed'] >= 2 and s['stoppedBy'] is None and 'minimal' in s['failures'][0]" \
  || { echo "FAIL the reference campaign keeps no shrunk failure"; fail=1; }

# SIGTERM: summary.json says what was done, and then --resume finishes the campaign.
"$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/term" > /dev/null 2>"$tmp/term.err" &
stop_after 4 TERM $! "$tmp/term"
wait $!
code=$?
[ $code -eq 143 ] || { echo "FAIL SIGTERM: exit $code, expected 143"; cat "$tmp/term.err"; fail=1; }
summary "$tmp/term" "s['stoppedBy'] == 'SIGTERM' and 4 <= s['traces'] < 14" \
  || { echo "FAIL SIGTERM: summary.json does not say what was done"; fail=1; }
grep -qxF "lockstep: fuzz stopped by SIGTERM after $(($(wc -l < "$tmp/term/progress.jsonl") - 1)) traces; --resume --out $tmp/term with the same options finishes the campaign" "$tmp/term.err" \
  || { echo "FAIL SIGTERM: the journal and the message disagree"; cat "$tmp/term.err"; fail=1; }
no_leftovers "SIGTERM"
check 1 "resumed after SIGTERM" "$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/term" --resume
same_as "$tmp/whole" "$tmp/term" "resumed after SIGTERM"

# SIGINT, as Ctrl-C sends it, twice over: the campaign resumes from a resumed run too.
"$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/int" > /dev/null 2>&1 &
stop_after 2 INT $! "$tmp/int"
wait $!
code=$?
[ $code -eq 130 ] || { echo "FAIL SIGINT: exit $code, expected 130"; fail=1; }
no_leftovers "SIGINT"
"$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/int" --resume > /dev/null 2>&1 &
stop_after 7 INT $! "$tmp/int"
wait $!
check 1 "resumed twice after SIGINT" "$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/int" --resume
same_as "$tmp/whole" "$tmp/int" "resumed twice after SIGINT"

# SIGKILL: nothing is written at the stop; the journal has every trace that finished, the last
# line may be cut short, and --resume goes on from there.
# (In a subshell whose stderr goes nowhere: bash reports a child that a SIGKILL ended.)
("$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/kill" > /dev/null 2>&1; true) 2>/dev/null &
subshell=$!
for _ in $(seq 100); do
  pid=$(pgrep -f -- "--out $tmp/kill") && break
  sleep 0.1
done
stop_after 5 KILL "$pid" "$tmp/kill"
wait $subshell
printf '{"trace": 99, "seed"' >> "$tmp/kill/progress.jsonl"  # a line a SIGKILL cut short
pkill -f "sleep $marker"
rm -rf "${TMPDIR:?}"/*
check 1 "resumed after SIGKILL" "$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/kill" --resume
same_as "$tmp/whole" "$tmp/kill" "resumed after SIGKILL"

# A served adapter: SIGTERM ends the server and what it started.
"$lockstep" fuzz --targets "$tmp/targets.json" --target served --count 20 --out "$tmp/served" > /dev/null 2>&1 &
stop_after 2 TERM $! "$tmp/served"
wait $!
code=$?
[ $code -eq 143 ] || { echo "FAIL SIGTERM, served: exit $code, expected 143"; fail=1; }
no_leftovers "SIGTERM, served"

# --resume is refused for another campaign, or none.
expect 2 "lockstep: fuzz --resume: $tmp/term/progress.jsonl: campaign.count (/campaign/count): the stopped campaign's count was 14, this one's is 15" \
  "--resume with another count" "$lockstep" "${campaign[@]}" --target slow --count 15 --out "$tmp/term" --resume
expect 2 "lockstep: fuzz --resume: $tmp/none/progress.jsonl: no journal to resume (No such file or directory)" \
  "--resume of nothing" "$lockstep" "${campaign[@]}" --target slow --count 14 --out "$tmp/none" --resume
[ ! -e "$tmp/none" ] || { echo "FAIL --resume of nothing made its folder"; fail=1; }
echo "durable: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
