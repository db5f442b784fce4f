#!/usr/bin/env bash
# The whole test suite in a Debug build with AddressSanitizer + UndefinedBehaviorSanitizer.
# Slow (kernel files are -O3 and instrumented): about half an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTENSORA_SANITIZE=ON -DTENSORA_BUILD_EXAMPLES=OFF
cmake --build build-asan -j"${JOBS:-2}" --target tensora_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -j"${JOBS:-2}" --output-on-failure -E "^(compile_fail|cmake_consumer)"
