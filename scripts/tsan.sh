#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer: it covers every test that uses several threads
# (the thread pool and parallel engines, concurrent configure and the device registry,
# concurrent runs of one compiled program, eager sessions on several threads, the allocator).
# Debug build with Debian's clang 14 (build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer-build.sh
configure_sanitizer_build build-tsan -DTENSORA_TSAN=ON
cmake --build build-tsan -j"${JOBS:-2}" --target tensora_tests
# allocator_may_return_null: as for ASan (scripts/sanitize.sh), for the out-of-memory tests.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1 run_suite_sharded build-tsan/tests/tensora_tests
