# What the CLI tests share, sourced first with the test's own arguments (LOCKSTEP SOURCE_DIR):
#   source "$(dirname "$0")/common.sh" "$@"
# sets $lockstep, $root, a scratch folder $tmp removed on exit and $fail (the test's exit status),
# and defines the checks below; each failed check prints FAIL with what it saw and sets fail=1.
set -u
lockstep=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {  # expected-code description command...: the command exits with that code
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then echo "FAIL $what: exit $got, expected $want"; cat "$tmp/err"; fail=1; fi
}

expect() {  # expected-code exact-stderr description command...: that code and, unless the
            # expected stderr is empty, exactly that stderr; stdin is empty
  local want=$1 line=$2 what=$3
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $what: exit $got, expected $want"; cat "$tmp/err"; fail=1
  elif [ -n "$line" ] && [ "$(cat "$tmp/err")" != "$line" ]; then
    echo "FAIL $what: stderr is"; cat "$tmp/err"; echo "  expected: $line"; fail=1
  fi
}

said() {  # description exact-line: the last check's stderr has that line
  grep -qxF -- "$2" "$tmp/err" || { echo "FAIL $1: stderr lacks: $2"; cat "$tmp/err"; fail=1; }
}

summary() {  # folder python-expression-over-s: a fuzz run's summary.json, as s, makes it true
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]+'/summary.json')); sys.exit(0 if ($2) else 1)" "$1"
}

# For fuzz --target campaigns (durable.sh, shards.sh):
# Waits until the journals under DIR record at least N traces, then sends the signal.
stop_after() {  # N SIGNAL PID DIR
  for _ in $(seq 600); do
    [ "$(find "$4" -name progress.jsonl -exec cat {} + 2>/dev/null | grep -c '"trace"')" -ge "$1" ] && break
    sleep 0.1
  done
  kill "-$2" "$3"
}
same_as() {  # REFERENCE DIR description: summary.json alike but for seconds and the folder
  python3 - "$1" "$2" <<'PY' || { echo "FAIL $3: the summary differs from the uninterrupted one's"; fail=1; }
import json, sys
def load(d):
    s = json.load(open(d + "/summary.json"))
    s.pop("seconds")
    return json.loads(json.dumps(s).replace(d, "OUT"))
a, b = load(sys.argv[1]), load(sys.argv[2])
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print("  %s: %r, resumed %r" % (k, a.get(k), b.get(k)))
sys.exit(a != b)
PY
}
# FILE: three targets. "slow" is buggy (shared locks granted as exclusive: failures to keep and
# shrink) and slowed, so that a stop finds a trace in flight; its `sleep $marker`, killed by the
# adapter itself once the slow part is over, outlives the adapter only if nobody ends the adapter's
# process group; "fast" is the same without the sleeps. "served" replays through one server that sleeps before each trace. $marker is
# this test's own (30 s and its process id), so that tests running side by side never see each
# other's adapters.
marker=30.$$
campaign_targets() {
  local toy=$root/tests/toy-target
  cat > "$1" <<JSON
{"targets": {
  "slow": {"profile": "locks",
    "command": "sh -c 'sleep $marker & sleep 0.3; kill \$!; exec bash \"\$0\" \"\$1\" \"\$2\" \"\$3\"' $toy/shared-granted-as-exclusive.sh $lockstep {trace} {log}"},
  "fast": {"profile": "locks",
    "command": "bash $toy/shared-granted-as-exclusive.sh $lockstep {trace} {log}"},
  "served": {"profile": "locks", "command": "false {trace} {log}",
    "serve": "python3 $toy/serve-impl.py $lockstep --delay 0.4$$"}}}
JSON
}
# A campaign started in the background, stopped by SIGTERM once AFTER traces are in, then
# resumed: exit 143 with a summary that says so, and the resumed summary the REFERENCE's.
stopped_and_resumed() {  # REFERENCE OUT AFTER COUNT description campaign-args...
  local reference=$1 out=$2 after=$3 count=$4 what=$5
  shift 5
  "$lockstep" "$@" --out "$out" > /dev/null 2>&1 &
  stop_after "$after" TERM $! "$out"
  wait $!
  local code=$?
  [ $code -eq 143 ] || { echo "FAIL $what stopped by SIGTERM: exit $code, expected 143"; fail=1; }
  summary "$out" "s['stoppedBy'] == 'SIGTERM' and s['traces'] < $count" \
    || { echo "FAIL $what stopped by SIGTERM: summary.json does not say so"; fail=1; }
  check 1 "$what --resume" "$lockstep" "$@" --out "$out" --resume
  same_as "$reference" "$out" "$what stopped and resumed"
}
