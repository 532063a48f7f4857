#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script (fuzz/README.md): builds the libraries and the fuzz
# targets with the builder's $CXX and $CXXFLAGS (its sanitizer and -fsanitize=fuzzer-no-link),
# links each target with $LIB_FUZZING_ENGINE, and writes into $OUT the targets and, for each,
# <target>_seed_corpus.zip, <target>.dict and <target>.options. Intermediate files go to $WORK.
# The sources are this script's repository, or $SRC/lockstep when the builder copied the script
# elsewhere (OSS-Fuzz's Dockerfiles copy build.sh to $SRC).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$here/fuzz/CMakeLists.txt" ]; then src=$here; else src=$SRC/lockstep; fi
build=${WORK:-/tmp}/lockstep-fuzz-build
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

# No CMAKE_BUILD_TYPE: the builder's flags choose the optimization. The tool, the tests and their
# packages (CLI11, RapidCheck, GoogleTest) are left out; the targets need nlohmann_json only.
cmake -S "$src" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DLOCKSTEP_BUILD_FUZZERS=ON \
  -DLOCKSTEP_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DLOCKSTEP_BUILD_CLI=OFF \
  -DLOCKSTEP_BUILD_TESTS=OFF \
  -DLOCKSTEP_BUILD_BENCH=OFF \
  -DLOCKSTEP_BUILD_EXAMPLES=OFF
cmake --build "$build" --target fuzzers -j "$(nproc)"

bash "$src/fuzz/make_seed_corpus.sh" "$build/seeds" --zip
for target in trace_reader log_reader check replay; do
  cp "$build/fuzz/$target" "$OUT/"
  cp "$build/seeds/${target}_seed_corpus.zip" "$OUT/"
  cp "$src/fuzz/json.dict" "$OUT/$target.dict"
  cp "$src/fuzz/$target.options" "$OUT/"
done
