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
