#!/usr/bin/env bash
# Builds each fuzz target's seed folder from the repository's own files, so that git holds no copy:
#   OUT/trace_reader  every trace: traces/corpus, traces/divergences, tests/check, tests/cli/bad
#   OUT/log_reader    every log of those folders
#   OUT/check         each trace with its log, as the check target reads them (trace, a line
#                     "----", log): corpus scenarios with their expected logs (allowed), divergences
#                     with each engine's log (not allowed), tests/check's fixtures
#   OUT/replay        the traces of the corpus, the divergences and tests/check
# and every file of fuzz/regressions/<target>/ (inputs that once made a finding) in its target's.
# Usage: make_seed_corpus.sh OUT [--zip]; --zip also writes OUT/<target>_seed_corpus.zip (OSS-Fuzz).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUT [--zip]" >&2; exit 2; }
out=$1
zip=${2:-}
src="$(cd "$(dirname "$0")/.." && pwd)"
targets=(trace_reader log_reader check replay)

rm -rf "${targets[@]/#/$out/}"
for t in "${targets[@]}"; do mkdir -p "$out/$t"; done

# A seed's name is its path under the repository with / as -, so that names say where they came from.
seed_name() {
  local rel=${1#"$src"/}
  echo "${rel//\//-}"
}

# Files under the folders given whose names end in $1, sorted.
files_ending() {
  local suffix=$1
  shift
  find "$@" -type f -name "*$suffix" | LC_ALL=C sort
}

valid=("$src/traces/corpus" "$src/traces/divergences" "$src/tests/check")
while read -r f; do
  cp "$f" "$out/trace_reader/$(seed_name "$f")"
  cp "$f" "$out/replay/$(seed_name "$f")"
done < <(files_ending .trace.json "${valid[@]}")
while read -r f; do cp "$f" "$out/trace_reader/$(seed_name "$f")"; done \
  < <(files_ending .trace.json "$src/tests/cli/bad")
while read -r f; do cp "$f" "$out/log_reader/$(seed_name "$f")"; done \
  < <(files_ending .log.json "${valid[@]}")

# The check target's pairs: X.trace.json with X.log.json (corpus, tests/check) and with every
# X.<engine>.log.json (divergences).
pair() {
  { cat "$1"; printf '\n----\n'; cat "$2"; } > "$out/check/$(seed_name "${2%.log.json}").pair"
}
while read -r trace; do
  base=${trace%.trace.json}
  for log in "$base".log.json "$base".*.log.json; do
    [ -f "$log" ] && pair "$trace" "$log"
  done
done < <(files_ending .trace.json "${valid[@]}")

for t in "${targets[@]}"; do
  dir="$src/fuzz/regressions/$t"
  [ -d "$dir" ] || continue
  while read -r f; do cp "$f" "$out/$t/regression-$(basename "$f")"; done \
    < <(find "$dir" -type f ! -name '.*' | LC_ALL=C sort)
done

for t in "${targets[@]}"; do
  if [ "$zip" = --zip ]; then
    rm -f "$out/${t}_seed_corpus.zip"
    (cd "$out/$t" && zip -q -r "../${t}_seed_corpus.zip" .)
  fi
  echo "$t: $(find "$out/$t" -type f | wc -l) seeds"
done
