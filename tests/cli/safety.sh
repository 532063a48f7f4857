#!/usr/bin/env bash
# What a trace's name or a folder's name holds never reaches a path outside `export -o` or a shell:
# export --wpt makes each name one plain file name inside -o and refuses two pages with one file;
# adapter commands are split into words once and started without a shell, placeholders filled
# within their words. Every refusal is checked by its exact message. Usage: safety.sh LOCKSTEP
# SOURCE_DIR
source "$(dirname "$0")/common.sh" "$@"
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

# Adapters: folders whose names hold a space, or `$(touch P)`, which a shell would run. {adapters}
# (fuzz --target), {trace} and {log} (TMPDIR's folder) each stay one argument.
mkdir -p "$tmp/work"
for name in 'with space' 'i$(touch P)j'; do
  dir=$tmp/$name
  mkdir -p "$dir"
  printf '#!/usr/bin/env bash\nexec "$1" run --engine impl "$2" -o "$3"\n' > "$dir/impl.sh"
  chmod +x "$dir/impl.sh"
  cp "$root/tests/toy-target/serve-impl.py" "$root/tests/toy-target/shared-granted-as-exclusive.sh" "$dir/"
  python3 - "$dir/targets.json" "$lockstep" <<'PY'
import json, shlex, sys
lockstep = shlex.quote(sys.argv[2])
json.dump({"targets": {
    "impl": {"profile": "locks", "command": "{adapters}/impl.sh " + lockstep + " {trace} {log}"},
    "served": {"profile": "locks", "command": "false {trace} {log}",
               "serve": "python3 {adapters}/serve-impl.py " + lockstep}}}, open(sys.argv[1], "w"))
PY
  (cd "$tmp/work" && TMPDIR=$dir "$lockstep" fuzz --target impl --targets "$dir/targets.json" --count 3 --out "$tmp/fuzz") >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["allowed"] != 3)' "$tmp/fuzz/summary.json" \
    || { echo "FAIL fuzz --target in '$name': not 3 traces allowed"; cat "$tmp/err"; fail=1; }
  (cd "$tmp/work" && TMPDIR=$dir "$lockstep" fuzz --target served --targets "$dir/targets.json" --count 3 --out "$tmp/fuzz") >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["allowed"] != 3)' "$tmp/fuzz/summary.json" \
    || { echo "FAIL fuzz --target (served) in '$name': not 3 traces allowed"; cat "$tmp/err"; fail=1; }
  quoted=$(python3 -c 'import shlex,sys; print(shlex.quote(sys.argv[1]))' "$dir/shared-granted-as-exclusive.sh")
  lockstep_quoted=$(python3 -c 'import shlex,sys; print(shlex.quote(sys.argv[1]))' "$lockstep")
  (cd "$tmp/work" && TMPDIR=$dir "$lockstep" shrink "$root/traces/corpus/web-locks/shared-together.trace.json" \
    --cmd "bash $quoted $lockstep_quoted {trace} {log}" -o "$tmp/min.trace.json") >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 0 ] && grep -q '^shrunk in' "$tmp/err" || { echo "FAIL shrink --cmd in '$name'"; cat "$tmp/err"; fail=1; }
done
[ -z "$(find "$tmp" -name P)" ] || { echo "FAIL a folder's name was run by a shell: $(find "$tmp" -name P)"; fail=1; }

# {lockstep}: lockstep's own adapters folder (the checkout's, above the binary), whichever folder
# the targets file is in; refused, naming the member, when the binary is in no checkout.
mkdir -p "$tmp/own"
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$4" > "%s"\nexec "$1" run --engine impl "$2" -o "$3"\n' "$tmp/lockstep-is" > "$tmp/own/impl.sh"
chmod +x "$tmp/own/impl.sh"
python3 - "$tmp/own/targets.json" "$lockstep" <<'PY'
import json, shlex, sys
json.dump({"targets": {"mine": {"profile": "locks", "command": "{adapters}/impl.sh " +
                                shlex.quote(sys.argv[2]) + " {trace} {log} {lockstep}"},
                       "served": {"profile": "locks", "command": "false {trace} {log}",
                                  "serve": "python3 {lockstep}/serve.py"}}},
          open(sys.argv[1], "w"))
PY
check 0 "fuzz with {lockstep}" "$lockstep" fuzz --target mine --targets "$tmp/own/targets.json" --count 1 --out "$tmp/own/out"
[ "$(cat "$tmp/lockstep-is" 2>/dev/null)" = "$(cd "$root/adapters" && pwd -P)" ] \
  || { echo "FAIL {lockstep} is '$(cat "$tmp/lockstep-is" 2>/dev/null)', not $root/adapters"; fail=1; }
mkdir -p "$tmp/nowhere"
cp "$lockstep" "$tmp/nowhere/lockstep"
expect 2 "lockstep: fuzz --targets $tmp/own/targets.json: targets.mine.command (/targets/mine/command): {lockstep} stands for lockstep's own adapters folder, and none was found above this binary" \
  "fuzz with {lockstep}, the binary in no checkout" "$tmp/nowhere/lockstep" fuzz --target mine --targets "$tmp/own/targets.json" --count 1 --out "$tmp/own/out2"
expect 2 "lockstep: fuzz --targets $tmp/own/targets.json: targets.served.serve (/targets/served/serve): {lockstep} stands for lockstep's own adapters folder, and none was found above this binary" \
  "fuzz with {lockstep} in serve, the binary in no checkout" "$tmp/nowhere/lockstep" fuzz --target served --targets "$tmp/own/targets.json" --count 1 --out "$tmp/own/out3"

# --cmd words: `$(touch P)` quoted is one literal argument, unquoted two; nothing is run.
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$@" > "%s"\nexit 3\n' "$tmp/args" > "$tmp/args.sh"
(cd "$tmp/work" && "$lockstep" shrink "$basic" --cmd "bash $tmp/args.sh '\$(touch P)' \$(touch P) \"a b\" {trace}x {log}") >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || { echo "FAIL shrink with an adapter that fails: not exit 2"; fail=1; }
said "shrink with an adapter that fails" "lockstep: $basic: the adapter failed on it, so there is no check failure to shrink: exit 3"
[ "$(sed -n 1,4p "$tmp/args")" = "$(printf '%s\n' '$(touch P)' '$(touch' 'P)' 'a b')" ] \
  || { echo "FAIL --cmd words:"; cat "$tmp/args"; fail=1; }
case "$(sed -n 5p "$tmp/args")" in */candidate.trace.jsonx) ;; *) echo "FAIL {trace} not filled within its word"; fail=1 ;; esac
[ -z "$(find "$tmp" -name P)" ] || { echo "FAIL a --cmd word was run by a shell"; fail=1; }

# Commands that cannot be split, or whose program cannot start.
check 2 "shrink --cmd unbalanced quote" "$lockstep" shrink "$basic" --cmd "bash 'x {trace} {log}"
said "shrink --cmd unbalanced quote" "lockstep: --cmd: the ' quote at character 6 is never closed"
check 2 "shrink --cmd empty" "$lockstep" shrink "$basic" --cmd " "
said "shrink --cmd empty" "lockstep: --cmd: the command is empty (no program to run)"
check 2 "shrink --cmd missing program" "$lockstep" shrink "$basic" --cmd "lockstep-no-such-program {trace} {log}"
said "shrink --cmd missing program" "lockstep: $basic: the adapter failed on it, so there is no check failure to shrink: could not start lockstep-no-such-program: No such file or directory"
printf 'not a program\n' > "$tmp/not-executable"
check 2 "shrink --cmd program not executable" "$lockstep" shrink "$basic" --cmd "$tmp/not-executable {trace} {log}"
said "shrink --cmd program not executable" "lockstep: $basic: the adapter failed on it, so there is no check failure to shrink: could not start $tmp/not-executable: Permission denied"
cat > "$tmp/bad.json" <<JSON
{"targets": {
  "quote": {"profile": "locks", "command": "node \"run.mjs {trace} {log}"},
  "empty": {"profile": "locks", "command": ""},
  "serve-quote": {"profile": "locks", "command": "false {trace} {log}", "serve": "python3 'x"},
  "missing": {"profile": "locks", "command": "$tmp/none/adapter {trace} {log}"},
  "missing-server": {"profile": "locks", "command": "false {trace} {log}", "serve": "$tmp/none/server"},
  "killed": {"profile": "locks", "command": "sh -c 'kill -9 \$\$' sh {trace} {log}"}}}
JSON
check 2 "fuzz --target unbalanced quote" "$lockstep" fuzz --targets "$tmp/bad.json" --target quote --count 1 --out "$tmp/bad"
said "fuzz --target unbalanced quote" "lockstep: fuzz --targets $tmp/bad.json: targets.quote.command (/targets/quote/command): the \" quote at character 6 is never closed"
check 2 "fuzz --target empty command" "$lockstep" fuzz --targets "$tmp/bad.json" --target empty --count 1 --out "$tmp/bad"
said "fuzz --target empty command" "lockstep: fuzz --targets $tmp/bad.json: targets.empty.command (/targets/empty/command): the command is empty (no program to run)"
check 2 "fuzz --target serve unbalanced quote" "$lockstep" fuzz --targets "$tmp/bad.json" --target serve-quote --count 1 --out "$tmp/bad"
said "fuzz --target serve unbalanced quote" "lockstep: fuzz --targets $tmp/bad.json: targets.serve-quote.serve (/targets/serve-quote/serve): the ' quote at character 9 is never closed"
check 1 "fuzz --target missing program" "$lockstep" fuzz --targets "$tmp/bad.json" --target missing --count 2 --out "$tmp/missing"
summary "$tmp/missing" "s['adapterFailures'] == 2 and all(f['message'] == 'could not start $tmp/none/adapter: No such file or directory' for f in s['failures'])" \
  || { echo "FAIL fuzz --target: a missing program is not reported as not started"; cat "$tmp/missing/summary.json"; fail=1; }
check 1 "fuzz --target missing server" "$lockstep" fuzz --targets "$tmp/bad.json" --target missing-server --count 2 --out "$tmp/missing-server"
summary "$tmp/missing-server" "s['adapterFailures'] == 2 and all(f['message'] == 'could not start $tmp/none/server: No such file or directory' for f in s['failures'])" \
  || { echo "FAIL fuzz --target: a missing server is not reported as not started"; cat "$tmp/missing-server/summary.json"; fail=1; }
# A child killed by a signal exits 128 + its number, as a shell said.
check 1 "fuzz --target killed" "$lockstep" fuzz --targets "$tmp/bad.json" --target killed --count 1 --out "$tmp/killed"
summary "$tmp/killed" "s['failures'][0]['exit'] == 137" \
  || { echo "FAIL fuzz --target: a killed adapter's exit is not 128 + 9"; cat "$tmp/killed/summary.json"; fail=1; }
echo "safety: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
