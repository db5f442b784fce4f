# Sourced by scripts/sanitize.sh, tsan.sh and fuzz.sh.

# Configures a Debug build with Debian's clang 14 and the given options (no examples).
configure_sanitizer_build() {
  local dir=$1
  shift
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CXX=${SANITIZER_CXX:-clang++-14} cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DTENSORA_BUILD_EXAMPLES=OFF "${launcher[@]}" "$@" >/dev/null
}

# Runs the GoogleTest binary $1 as JOBS shards (default 2), each one process running its share
# of the suite (the suite passes in one process: docs/testing.md). One process per shard, not
# one per test as under CTest: a sanitizer runtime's start-up cost is paid twice, not 1300
# times. Extra arguments go to every shard (e.g. --gtest_filter=...). Prints each shard's
# summary, and its whole log when it fails.
# Whether a shard's log is LeakSanitizer's tracer crashing after a clean run: every test
# passed, the tracer caught a signal, and no leak was reported.
lsan_tracer_crash() {
  local log=$1
  grep -q '^\[  PASSED  \] [0-9]* tests\?\.$' "$log" && ! grep -q '^\[  FAILED  \]' "$log" &&
    grep -q 'Tracer caught signal' "$log" && grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
    ! grep -q 'LeakSanitizer: detected memory leaks' "$log"
}

run_suite_sharded() {
  local bin=$1
  shift
  local n=${JOBS:-2} status=0 pids=() i
  for ((i = 0; i < n; ++i)); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i "$bin" --gtest_brief=1 "$@" >"$bin.shard$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < n; ++i)); do
    if wait "${pids[$i]}"; then
      tail -n 3 "$bin.shard$i.log"
    elif lsan_tracer_crash "$bin.shard$i.log"; then
      # Every test passed and LeakSanitizer's own stop-the-world tracer crashed at exit, before
      # it could look for leaks: a fault of the sanitizer runtime, not a leak report. Its known
      # cause here is switched off (tests/support/asan_options.cpp); for any other, the shard
      # runs once more, and a second crash, or a leak, fails.
      echo "shard $i of $n: LeakSanitizer's tracer crashed after every test passed; running the shard again"
      if GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i "$bin" --gtest_brief=1 "$@" >"$bin.shard$i.log" 2>&1; then
        tail -n 3 "$bin.shard$i.log"
      else
        status=1
        echo "shard $i of $n FAILED on its second run:"
        cat "$bin.shard$i.log"
      fi
    else
      status=1
      echo "shard $i of $n FAILED:"
      cat "$bin.shard$i.log"
    fi
  done
  return $status
}
