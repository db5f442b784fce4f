#!/usr/bin/env bash
# The whole test suite in a Debug build with AddressSanitizer + UndefinedBehaviorSanitizer
# (leak checking on), compiled with Debian's clang 14. The same build (build-san) holds the
# libFuzzer targets (scripts/fuzz.sh), so CI instruments the library once for both.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer-build.sh
configure_sanitizer_build build-san -DTENSORA_SANITIZE=ON -DTENSORA_BUILD_FUZZ=ON
cmake --build build-san -j"${JOBS:-2}" --target tensora_tests tensora_fuzzers
# allocator_may_return_null: the out-of-memory tests ask for more than exists and expect
# tensora's OutOfMemory error, not ASan's report.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite_sharded build-san/tests/tensora_tests
