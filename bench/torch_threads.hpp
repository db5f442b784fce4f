// LibTorch's thread count for one benchmark row. Its products run on the process's OpenBLAS,
// whose thread count at::set_num_threads does not reach, so both are set: a "1 thread" row
// with OpenBLAS on 2 threads is not a 1-thread row.
#pragma once

#if TENSORA_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>

#include "cpu/blas_provider.hpp"  // bench targets see src/

namespace bench {

inline void torch_threads(int n) {
  if (at::get_num_threads() != n) at::set_num_threads(n);
  if (auto* openblas = tensora::cpu::blas_by_name("openblas")) openblas->set_threads(n);
}

}  // namespace bench
#endif
