#!/usr/bin/env bash
# Builds the libFuzzer targets of the file loaders with clang and runs each for SECONDS
# (default 60), starting from the committed seeds in fuzz/corpus/<target>/. New inputs go to
# build-fuzz/corpus/<target>/, crashes to build-fuzz/crashes/; the committed corpus is not
# touched. Prints libFuzzer's final stats (executions, coverage) per target.
#
#   scripts/fuzz.sh 60          # one minute per target
#   FUZZ_JOBS=2 scripts/fuzz.sh 900
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
cxx=${FUZZ_CXX:-clang++-14}
targets=(fuzz_npy fuzz_npz fuzz_safetensors)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
CXX=$cxx cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENSORA_BUILD_FUZZ=ON \
  -DTENSORA_BUILD_TESTS=OFF -DTENSORA_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}"

mkdir -p "$build/crashes"
status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  echo "::: $t for ${seconds}s"
  # -rss_limit_mb: a loader that allocates from an unchecked header fails here.
  if ! "$build/fuzz/$t" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=1024 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
      "$build/corpus/$t" "fuzz/corpus/$t" 2>"$build/$t.log"; then
    status=1
    echo "$t FAILED; see $build/$t.log and $build/crashes/"
  fi
  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$build/$t.log" | tail -3
done
exit $status
