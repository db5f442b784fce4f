#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) in the clang ASan + UBSan build (build-san,
# shared with scripts/sanitize.sh) and runs each for SECONDS (default 60), starting from the
# committed seeds in fuzz/corpus/<target>/. New inputs go to build-san/corpus/<target>/,
# crashes to build-san/crashes/; the committed corpus is not touched. Prints libFuzzer's final
# stats (executions, coverage) per target. Targets run JOBS (default 2) at a time, one per core.
#
#   scripts/fuzz.sh 60                     # one minute per target
#   FUZZ_TARGETS="fuzz_ops" scripts/fuzz.sh 900
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-san
targets=(${FUZZ_TARGETS:-$(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')})

source scripts/sanitizer-build.sh
configure_sanitizer_build "$build" -DTENSORA_SANITIZE=ON -DTENSORA_BUILD_FUZZ=ON
cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"

mkdir -p "$build/crashes"
# One target per core at a time (JOBS, default 2); each prints its stats when it ends.
run_target() {
  local t=$1
  mkdir -p "$build/corpus/$t"
  # -rss_limit_mb: a loader that allocates from an unchecked header fails here.
  if ASAN_OPTIONS=allocator_may_return_null=1 "$build/fuzz/$t" -max_total_time="$seconds" -max_len=4096 \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
      "$build/corpus/$t" "fuzz/corpus/$t" 2>"$build/$t.log"; then
    echo "::: $t, ${seconds}s: no reports"
  else
    echo "::: $t FAILED; see $build/$t.log and $build/crashes/"
    grep -E "fuzz_|ERROR|SUMMARY" "$build/$t.log" | head -5
  fi
  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$build/$t.log" | tail -3
  grep -q "DONE" "$build/$t.log"
}
status=0
pids=()
for t in "${targets[@]}"; do
  if ((${#pids[@]} >= ${JOBS:-2})); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
  run_target "$t" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
