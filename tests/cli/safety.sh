#!/usr/bin/env bash
# What a trace's name holds never reaches a path outside `export -o`: export --wpt makes each name
# one plain file name inside -o and refuses two pages with one file. Every refusal is checked by
# its exact message. Usage: safety.sh LOCKSTEP SOURCE_DIR
set -u
lockstep=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # expected-code description command...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then echo "FAIL $what: exit $got, expected $want"; cat "$tmp/err"; fail=1; fi
}
said() {  # description exact-line: stderr has that line
  grep -qxF -- "$2" "$tmp/err" || { echo "FAIL $1: stderr lacks: $2"; cat "$tmp/err"; fail=1; }
}
files_outside() {  # every path under $tmp but the folder given (and check's out and err)
  (cd "$tmp" && find . \( -path "./$1" -o -path ./out -o -path ./err \) -prune -o -print | sort)
}
basic=$root/traces/corpus/web-locks/basic-exclusive.trace.json
named() {  # NAME FILE: basic-exclusive under another name
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); t["name"]=sys.argv[2]; json.dump(t, open(sys.argv[3], "w"))' \
    "$basic" "$1" "$2"
}

# export --wpt: names that are paths, or hold spaces and non-ASCII, give plain files inside -o.
mkdir -p "$tmp/export/in"
named "../x" "$tmp/export/in/1.trace.json"
named "/abs/x" "$tmp/export/in/2.trace.json"
named "$tmp/victim" "$tmp/export/in/3.trace.json"  # an absolute path that exists
named "a/b" "$tmp/export/in/4.trace.json"
named ".." "$tmp/export/in/5.trace.json"
named "two words, café ✓" "$tmp/export/in/6.trace.json"
before=$(files_outside export/out)
check 0 "export names that are paths" "$lockstep" export --wpt "$tmp/export/in" -o "$tmp/export/out"
[ "$(files_outside export/out)" = "$before" ] || { echo "FAIL export wrote outside -o:"; diff <(echo "$before") <(files_outside export/out); fail=1; }
victim_page=$(python3 -c 'import re,sys; print(re.sub(r"[^A-Za-z0-9._-]", "-", sys.argv[1]) + ".html")' "$tmp/victim")
want=$(printf '%s\n' -.-x.html -abs-x.html "$victim_page" a-b.html -..html two-words--caf---.html \
  REPORT.md common lockstep-driver.js resources | sort)
[ "$(ls -A "$tmp/export/out" | sort)" = "$want" ] || { echo "FAIL export pages:"; ls -A "$tmp/export/out"; fail=1; }
grep -qF '<title>lockstep: ../x</title>' "$tmp/export/out/-.-x.html" || { echo "FAIL the page of ../x lost its name"; fail=1; }
grep -qF '| two words, café ✓ | two-words--caf---.html |' "$tmp/export/out/REPORT.md" \
  || { echo "FAIL REPORT.md does not give the sanitized file"; fail=1; }

# Two names that give one file are refused (as is a name that differs only in case), naming the
# trace file, /name and the trace already given that file, and nothing is written.
mkdir -p "$tmp/clash/in" "$tmp/clash/nameless/a" "$tmp/clash/nameless/b"
named "a b" "$tmp/clash/in/1.trace.json"
named "a:b" "$tmp/clash/in/2.trace.json"
# Traces without a name are named after their files: two files of one name in two folders.
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); t.pop("name"); json.dump(t, open(sys.argv[2], "w"))' \
  "$basic" "$tmp/clash/nameless/a/t.trace.json"
cp "$tmp/clash/nameless/a/t.trace.json" "$tmp/clash/nameless/b/t.trace.json"
before=$(files_outside nothing)
check 2 "export two names, one file" "$lockstep" export --wpt "$tmp/clash/in" -o "$tmp/clash/out"
said "export two names, one file" "lockstep: $tmp/clash/in/2.trace.json: name (/name): the name \"a:b\" makes the page file a-b.html, already taken by the trace $tmp/clash/in/1.trace.json (a page's file is the trace's name with every character but A-Z a-z 0-9 . _ - made -; export/README.md): rename one"
named "Basic" "$tmp/clash/in/1.trace.json"
named "basic" "$tmp/clash/in/2.trace.json"
check 2 "export names that differ in case" "$lockstep" export --wpt "$tmp/clash/in" -o "$tmp/clash/out"
said "export names that differ in case" "lockstep: $tmp/clash/in/2.trace.json: name (/name): the name \"basic\" makes the page file basic.html, already taken by the trace $tmp/clash/in/1.trace.json (a page's file is the trace's name with every character but A-Z a-z 0-9 . _ - made -; export/README.md): rename one"
check 2 "export two nameless traces, one file" "$lockstep" export --wpt "$tmp/clash/nameless" -o "$tmp/clash/out"
said "export two nameless traces, one file" "lockstep: $tmp/clash/nameless/b/t.trace.json: name (/name): no name, and its file's name \"t\" makes the page file t.html, already taken by the trace $tmp/clash/nameless/a/t.trace.json (a page's file is the trace's name with every character but A-Z a-z 0-9 . _ - made -; export/README.md): rename one"
[ "$(files_outside nothing)" = "$before" ] || { echo "FAIL a refused export wrote files"; fail=1; }

# A page that cannot be written is an error, never reported exported.
mkdir -p "$tmp/unwritable/basic-exclusive.html"
check 2 "export a page it cannot write" "$lockstep" export --wpt "$basic" -o "$tmp/unwritable"
said "export a page it cannot write" "lockstep: $tmp/unwritable/basic-exclusive.html: cannot write: Is a directory"
grep -q '^exported' "$tmp/err" && { echo "FAIL export reports a page it could not write"; fail=1; }

echo "safety: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
