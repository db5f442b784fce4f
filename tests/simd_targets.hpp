// Tests that run vector kernels on each SIMD target Highway built and this CPU supports.
#pragma once

#include <cstdint>
#include <vector>

#include <hwy/targets.h>

namespace tensora_test {

// Highway's dispatch limited to `target` while it lives; the CPU's own targets come back even
// when the test throws.
struct TargetMock {
  explicit TargetMock(std::int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~TargetMock() { hwy::SetSupportedTargetsForTest(0); }
  TargetMock(const TargetMock&) = delete;
  TargetMock& operator=(const TargetMock&) = delete;
};

// The x86 targets the kernels are compiled for (AVX-512, AVX2, SSE4) that this CPU runs.
inline std::vector<std::int64_t> x86_targets() {
  std::vector<std::int64_t> out;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets())
    if ((target & (HWY_AVX3 | HWY_AVX2 | HWY_SSE4)) != 0) out.push_back(target);
  return out;
}

// The targets for tests over tens of MiB: all of x86_targets() in optimized builds, the best
// one alone in Debug builds (the sanitizer stages), where Highway's unoptimized vector code
// made each extra target minutes of CI; the optimized builds still cover every target.
inline std::vector<std::int64_t> x86_targets_for_large_tests() {
  std::vector<std::int64_t> out = x86_targets();
#ifndef NDEBUG
  if (out.size() > 1) out.resize(1);
#endif
  return out;
}

}  // namespace tensora_test
