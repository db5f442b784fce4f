// Timing for the stand-alone drivers (bench/*_driver.cpp): the best of `reps` calls, in ms.
// The best, not the mean: these VMs are shared, and a call can only be slowed by the others.
#pragma once

#include <algorithm>
#include <chrono>

namespace bench {

template <class F>
double best_ms(int reps, F&& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace bench
