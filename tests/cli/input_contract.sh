#!/usr/bin/env bash
# What every command that reads a trace or a log does with input it cannot use: exit 2 and one
# line "lockstep: FILE: [path (pointer): ]why", never an internal error, never the file's name twice,
# never a JSON library's exception id; "-" reads standard input; a size limit holds while reading.
source "$(dirname "$0")/common.sh" "$@"
trace=$root/traces/corpus/web-locks/basic-exclusive.trace.json
log=$root/traces/corpus/web-locks/basic-exclusive.log.json

# The log reader behind check, run --expect and render --log: the same refusal from each.
printf '{"format": [], "version": 1, "events": []}' > "$tmp/bad.log.json"
msg="lockstep: $tmp/bad.log.json: format (/format): expected \"lockstep-log\", got []"
expect 2 "$msg" "check, bad format" "$lockstep" check "$trace" "$tmp/bad.log.json"
expect 2 "$msg" "run --expect, bad format" "$lockstep" run "$trace" -o "$tmp/o.json" --expect "$tmp/bad.log.json"
expect 2 "$msg" "render --log, bad format" "$lockstep" render "$trace" --log "$tmp/bad.log.json" -o "$tmp/p.html"

# The arguments swapped: each file named for what it is.
expect 2 "lockstep: $log: format (/format): expected \"lockstep-trace\": this is an event log (\"lockstep-log\"), not a trace" \
  "check with the log first" "$lockstep" check "$log" "$trace"

# Files that cannot be read.
expect 2 "lockstep: $tmp/none.json: cannot open the file: No such file or directory" "missing file" \
  "$lockstep" validate "$tmp/none.json"
expect 2 "lockstep: $tmp: is a folder, not a file" "a folder" "$lockstep" validate "$tmp"
expect 2 "lockstep: /dev/zero: malformed JSON at line 1, column 1: a NUL byte, which JSON text never has" \
  "/dev/zero" "$lockstep" validate /dev/zero

# Standard input as "-".
"$lockstep" validate - < "$trace" > "$tmp/out" 2>&1 \
  && grep -qxF -- "-: valid lockstep-trace (1 agents, 1 steps)" "$tmp/out" \
  || { echo "FAIL validate - does not read standard input"; cat "$tmp/out"; fail=1; }
"$lockstep" check "$trace" - < "$log" > "$tmp/out" 2>&1 \
  || { echo "FAIL check TRACE - does not read the log from standard input"; cat "$tmp/out"; fail=1; }

# The limit holds while reading: 600 MB of blanks on a pipe are refused at 512 MiB, and the read
# never holds them (its peak resident set stays far below what it read).
python3 - "$lockstep" <<'PY' || fail=1
import resource, subprocess, sys
blank = subprocess.Popen(["head", "-c", str(600 << 20), "/dev/zero"], stdout=subprocess.PIPE)
spaces = subprocess.Popen(["tr", "\\0", " "], stdin=blank.stdout, stdout=subprocess.PIPE)
run = subprocess.run([sys.argv[1], "validate", "-"], stdin=spaces.stdout, capture_output=True, text=True)
spaces.stdout.close(); blank.stdout.close(); spaces.wait(); blank.wait()
want = "lockstep: -: document exceeds the limit of 536870912 bytes"
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if run.returncode != 2 or run.stderr.strip() != want:
    print("FAIL 600 MB on stdin: exit %d, %r" % (run.returncode, run.stderr)); sys.exit(1)
if peak_mb > 200:
    print("FAIL 600 MB on stdin: peak RSS %.0f MB, the read held what it read" % peak_mb); sys.exit(1)
PY

# One bad log in a corpus is that trace's failure; the others still run.
mkdir -p "$tmp/corpus"
cp "$trace" "$tmp/corpus/a.trace.json"; cp "$log" "$tmp/corpus/a.log.json"
cp "$trace" "$tmp/corpus/b.trace.json"; printf '{"format": 1}' > "$tmp/corpus/b.log.json"
"$lockstep" corpus "$tmp/corpus" > "$tmp/out" 2>&1
code=$?
grep -qxF "corpus (spec engine): 1 passed, 1 failed" "$tmp/out" && [ "$code" -eq 1 ] \
  && grep -qxF "FAIL  $tmp/corpus/b.trace.json: $tmp/corpus/b.log.json: format (/format): expected \"lockstep-log\", got 1" "$tmp/out" \
  || { echo "FAIL corpus with one bad log (exit $code):"; cat "$tmp/out"; fail=1; }

[ "$fail" -eq 0 ] && echo "input contract: all refusals as expected"
exit "$fail"
