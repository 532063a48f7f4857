#!/usr/bin/env bash
# Mutation check of the property tests and the corpus: every NN-*.patch here is one deliberate bug
# in impl/, in spec-model/, or in both. Each is applied in turn to a scratch copy of the working
# tree, `lockstep_property_tests` is rebuilt there (incrementally) and run with the CI's
# RapidCheck parameters; a mutant the properties let through is then judged by the corpus
# (`lockstep corpus` on each engine, against the hand-derived logs). A mutant is killed when any
# property or corpus trace fails (or the run crashes or times out), survives when all pass. See
# README.md.
#
# usage: property-tests/mutants/run.sh [-o REPORT.md] [--only PATTERN] [--fresh]
#        property-tests/mutants/run.sh --apply PATCH   # leave one mutant applied, build the CLI
#
#   -o FILE         also write the markdown report to FILE (it always goes to stdout)
#   --only PATTERN  run only the patches whose file name contains PATTERN (repeatable)
#   --fresh         delete the scratch dir first (full rebuild)
#   --strict-baseline  stop when the pristine tree fails a property (by default such properties
#                   are left out of every mutant's run, and the report says so)
#   --apply PATCH   sync the scratch copy, apply PATCH (a path or a name here), build the CLI
#                   `lockstep` and the property tests, print where they are, and stop: for
#                   replaying a trace on a mutated engine (`.../lockstep run --engine impl|spec`)
#
# environment:
#   RC_PARAMS          RapidCheck parameters (default: LOCKSTEP_RC_PARAMS in ../CMakeLists.txt)
#   MUTANT_TIMEOUT     seconds allowed for one run of the property tests (default 600)
#   MUTANTS_DIR        scratch dir (default ${TMPDIR:-/tmp}/lockstep-mutants)
#   MUTANTS_JOBS       build parallelism (default 2)
#   MUTANTS_SOURCE     `worktree` (default: the working tree, uncommitted changes included) or
#                      `HEAD` (the last commit)
#
# exit status: 0 every mutant killed; 1 some mutant survived, did not apply or did not build;
# 2 the set-up failed (bad usage, configure or build of the pristine tree, or the pristine tree
# already fails the properties).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${MUTANTS_DIR:-${TMPDIR:-/tmp}/lockstep-mutants}"
jobs="${MUTANTS_JOBS:-2}"
timeout_s="${MUTANT_TIMEOUT:-600}"
source_kind="${MUTANTS_SOURCE:-worktree}"
report_file=""
only=()
fresh=0
strict_baseline=0
apply_one=""

die() {
  echo "run.sh: $*" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    -o | --output) report_file="${2:?-o needs a file}"; shift 2 ;;
    --only) only+=("${2:?--only needs a pattern}"); shift 2 ;;
    --fresh) fresh=1; shift ;;
    --strict-baseline) strict_baseline=1; shift ;;
    --apply) apply_one="${2:?--apply needs a patch}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ -n "$report_file" ]] && report_file="$(cd "$(dirname "$report_file")" && pwd)/$(basename "$report_file")"

if [[ -z "${RC_PARAMS:-}" ]]; then
  RC_PARAMS="$(sed -n 's/^ *set(LOCKSTEP_RC_PARAMS "\([^"]*\)".*/\1/p' "$root/property-tests/CMakeLists.txt" | head -n1)"
  [[ -n "$RC_PARAMS" ]] || die "no LOCKSTEP_RC_PARAMS in property-tests/CMakeLists.txt; set RC_PARAMS"
fi
export RC_PARAMS

patches=()
if [[ -n "$apply_one" ]]; then
  if [[ -f "$apply_one" ]]; then
    patches=("$(cd "$(dirname "$apply_one")" && pwd)/$(basename "$apply_one")")
  else
    for p in "$here"/*"$apply_one"*.patch; do [[ -f "$p" ]] && patches+=("$p"); done
    [[ ${#patches[@]} -eq 1 ]] || die "--apply $apply_one matches ${#patches[@]} patches"
  fi
else
  for p in "$here"/[0-9]*.patch; do
    [[ -f "$p" ]] || continue
    if [[ ${#only[@]} -gt 0 ]]; then
      keep=0
      for pat in "${only[@]}"; do [[ "$(basename "$p")" == *"$pat"* ]] && keep=1; done
      [[ $keep -eq 1 ]] || continue
    fi
    patches+=("$p")
  done
  [[ ${#patches[@]} -gt 0 ]] || die "no patches to run in $here"
fi

for tool in git cmake ninja tar timeout cmp; do
  command -v "$tool" > /dev/null || die "needs $tool"
done

[[ $fresh -eq 1 ]] && rm -rf "$scratch"
mkdir -p "$scratch/logs" || die "cannot make $scratch"
exec 9> "$scratch/.lock"
if command -v flock > /dev/null; then
  flock -n 9 || die "another run.sh is using $scratch"
fi

src="$scratch/src"
build="$scratch/build"
logs="$scratch/logs"
git_s() { git -C "$src" -c user.name=mutants -c user.email=mutants@localhost "$@"; }

# --- 1. One copy of the tree. A staging extraction is synced into src/ file by file: only files
# whose content differs are rewritten (with a fresh mtime), so the build dir stays incremental
# across runs and never keeps an object compiled from a mutant.
echo "== copying $root ($source_kind) to $src" >&2
stage="$scratch/stage"
rm -rf "$stage" && mkdir -p "$stage" "$src" || die "cannot make $stage"
case "$source_kind" in
  worktree)
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
      grep -zv -e '^build[^/]*/' -e '/node_modules/' -e '^node_modules/' |
      tar --null --ignore-failed-read -T - -cf - 2> /dev/null) | tar -xf - -C "$stage" ||
      die "copying the working tree failed" ;;
  HEAD) git -C "$root" archive HEAD | tar -xf - -C "$stage" || die "git archive HEAD failed" ;;
  *) die "MUTANTS_SOURCE must be worktree or HEAD" ;;
esac
(cd "$stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
  if ! cmp -s "$stage/$f" "$src/$f"; then
    mkdir -p "$(dirname "$src/$f")" && rm -f "$src/$f" && cp "$stage/$f" "$src/$f"
  fi
done
(cd "$src" && find . -path ./.git -prune -o -type f -print0) | while IFS= read -r -d '' f; do
  [[ -e "$stage/$f" ]] || rm -f "$src/$f"
done
rm -rf "$stage"
if [[ ! -d "$src/.git" ]]; then
  git_s init -q || die "git init in $src failed"
fi
git_s add -A && git_s commit -q --allow-empty -m "pristine snapshot of $root" ||
  die "snapshot commit in $src failed"

restore_engines() {  # the engines' folders as the pristine snapshot has them
  git_s checkout -q -- impl spec-model && git_s clean -fdq -- impl spec-model
}

# --- 2. One release build.
echo "== configuring $build" >&2
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOCKSTEP_BUILD_BENCH=OFF \
  -DLOCKSTEP_BUILD_EXAMPLES=OFF > "$logs/configure.log" 2>&1 ||
  die "configure failed, see $logs/configure.log"
tests_bin="$build/property-tests/lockstep_property_tests"

build_tests() {  # build_tests LOG [TARGET...]
  local log="$1"
  shift
  cmake --build "$build" -j "$jobs" --target "${@:-lockstep_property_tests}" > "$log" 2>&1
}

gtest_args=(--gtest_color=no)
run_tests() {  # run_tests LOG [GTEST_FLAG...]: exit status of the property tests under the timeout
  # Run inside the scratch dir: whatever the tests leave behind (counterexample traces) stays
  # there, next to the log, and never lands in the tree under test.
  local log="$1" out="${1%.test.log}.counterexamples"
  shift
  rm -rf "$out" && mkdir -p "$out" &&
    (cd "$out" && LOCKSTEP_COUNTEREXAMPLES="$out" timeout --kill-after=10 "$timeout_s" \
      "$tests_bin" "${gtest_args[@]}" "$@" > "$log" 2>&1)
}

corpus_fails() {  # corpus_fails LOG: whether the corpus fails on either engine
  local engine
  : > "$1"
  for engine in spec impl; do
    (cd "$src" && timeout --kill-after=10 "$timeout_s" "$build/lockstep" corpus --engine "$engine" \
      traces/corpus >> "$1" 2>&1) || return 0
  done
  return 1
}

failing_tests() {  # failing_tests LOG: the failed tests' names, one a line
  grep -E '^\[  FAILED  \] [A-Za-z_0-9]+\.[A-Za-z_0-9/]+' "$1" |
    sed -E 's/^\[  FAILED  \] ([A-Za-z_0-9.\/]+).*/\1/' | sort -u
}

if [[ -n "$apply_one" ]]; then
  name="$(basename "${patches[0]}" .patch)"
  git_s apply --whitespace=nowarn "${patches[0]}" || die "$name does not apply"
  echo "== building lockstep and lockstep_property_tests with $name" >&2
  build_tests "$logs/$name.apply.log" lockstep lockstep_property_tests ||
    die "$name does not build, see $logs/$name.apply.log"
  echo "$name applied in $src"
  echo "CLI:            $build/lockstep run --engine impl|spec TRACE.json"
  echo "property tests: RC_PARAMS='$RC_PARAMS' $tests_bin"
  echo "(the next run.sh restores impl/ and spec-model/)"
  exit 0
fi

# --- 3. The pristine tree must pass, or a kill would mean nothing.
restore_engines || die "cannot restore impl/ and spec-model/ in $src"
echo "== baseline: building and running the pristine property tests (RC_PARAMS=$RC_PARAMS) and corpus" >&2
build_tests "$logs/baseline.build.log" lockstep lockstep_property_tests ||
  die "the pristine tree does not build, see $logs/baseline.build.log"
! corpus_fails "$logs/baseline.corpus.log" ||
  die "the pristine tree fails the corpus, see $logs/baseline.corpus.log"
excluded=""
if ! run_tests "$logs/baseline.test.log"; then
  excluded="$(failing_tests "$logs/baseline.test.log" | paste -sd: -)"
  [[ -n "$excluded" && $strict_baseline -eq 0 ]] ||
    die "the pristine tree fails the property tests, see $logs/baseline.test.log"
  echo "run.sh: warning: the pristine tree fails ${excluded//:/, }; left out of every run" >&2
  gtest_args+=("--gtest_filter=-$excluded")
  run_tests "$logs/baseline-rerun.test.log" ||
    die "the pristine tree still fails without ${excluded//:/, }, see $logs/baseline-rerun.test.log"
fi

# --- 4. Each mutant.
names=() results=() details=() times=() summaries=()
survived=0 broken=0 killed=0
for patch in "${patches[@]}"; do
  name="$(basename "$patch" .patch)"
  summary="$(sed -n 's/^# Mutant [0-9]*: *//p' "$patch" | head -n1 | sed 's/\.$//')"
  [[ -n "$summary" ]] || summary="$(sed -n '1s/^# *//p' "$patch")"
  echo "== $name: $summary" >&2
  start=$SECONDS
  result="" detail=""
  restore_engines || die "cannot restore impl/ and spec-model/ in $src"
  if ! git_s apply --whitespace=nowarn "$patch" 2> "$logs/$name.apply.log"; then
    result="does-not-apply" detail="$(head -n1 "$logs/$name.apply.log")"
  elif ! build_tests "$logs/$name.build.log"; then
    result="build-broken"
    detail="$(grep -m1 -E 'error' "$logs/$name.build.log" | sed "s|$src/||")"
  else
    # The first failing property kills the mutant: the rest, which a mutated engine can make
    # slow (check searching a log that engine cannot explain), need not run.
    run_tests "$logs/$name.test.log" --gtest_fail_fast
    rc=$?
    failed="$(failing_tests "$logs/$name.test.log" | paste -sd, - | sed 's/,/, /g')"
    if [[ $rc -eq 0 ]]; then
      # The properties compare the engines; a bug in both is the corpus's to see.
      if ! build_tests "$logs/$name.cli.log" lockstep; then
        result="build-broken" detail="$(grep -m1 -E 'error' "$logs/$name.cli.log" | sed "s|$src/||")"
      elif corpus_fails "$logs/$name.corpus.log"; then
        result="killed" detail="corpus: $(grep -m1 -E '^FAIL|failed' "$logs/$name.corpus.log")"
      else
        result="survived"
      fi
    elif [[ $rc -eq 124 || $rc -eq 137 ]]; then
      result="killed" detail="timeout after ${timeout_s}s${failed:+; failed: $failed}"
    elif [[ -n "$failed" ]]; then
      result="killed" detail="$failed"
    else
      result="killed" detail="crashed (exit $rc)"
    fi
  fi
  case "$result" in
    killed) killed=$((killed + 1)) ;;
    survived) survived=$((survived + 1)) ;;
    *) broken=$((broken + 1)) ;;
  esac
  names+=("$name") results+=("$result") details+=("$detail") summaries+=("$summary")
  times+=("$((SECONDS - start))s")
  echo "   $result${detail:+ ($detail)}" >&2
done
restore_engines

# --- 5. The report.
report() {
  echo "# Mutation check of the property tests"
  echo
  echo "- tree: \`$root\` ($source_kind, $(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo '?')$([[ "$source_kind" == worktree && -n "$(git -C "$root" status --porcelain 2> /dev/null)" ]] && echo ' + uncommitted changes'))"
  echo "- RC_PARAMS: \`$RC_PARAMS\`, timeout ${timeout_s}s per mutant"
  [[ -z "$excluded" ]] ||
    echo "- **left out** (the pristine tree already fails them): \`${excluded//:/\`, \`}\`"
  echo "- killed $killed, survived $survived, did not apply/build $broken, of ${#names[@]}"
  echo
  echo "| mutant | bug | result | killed by / why | time |"
  echo "|---|---|---|---|---|"
  local i
  for i in "${!names[@]}"; do
    local r="${results[$i]}"
    [[ "$r" == killed ]] || r="**$r**"
    echo "| ${names[$i]} | ${summaries[$i]//|/\\|} | $r | ${details[$i]//|/\\|} | ${times[$i]} |"
  done
  echo
  echo "Logs: \`$logs/<mutant>.{build,test}.log\`; the shrunk counterexamples the properties wrote:"
  echo "\`$logs/<mutant>.counterexamples/\` (replay one on the mutant with \`run.sh --apply <mutant>\`)."
}
report
[[ -n "$report_file" ]] && report > "$report_file"

[[ $survived -eq 0 && $broken -eq 0 ]]
