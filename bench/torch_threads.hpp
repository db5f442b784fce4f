// LibTorch's thread count for one benchmark row. Its products run on the process's OpenBLAS,
// whose thread count at::set_num_threads does not reach, so both are set: a "1 thread" row
// with OpenBLAS on 2 threads is not a 1-thread row.
#pragma once

#if TENSORA_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>

#include <dlfcn.h>

namespace bench {

// The process's OpenBLAS (LibTorch's and tensora's are one library), set directly, not through
// tensora's provider: tensora keeps its own count and puts it back at its next call.
inline void openblas_threads(int n) {
  static const auto set = [] {
    void* h = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    return h != nullptr ? reinterpret_cast<void (*)(int)>(::dlsym(h, "openblas_set_num_threads")) : nullptr;
  }();
  if (set != nullptr) set(n);
}

inline void torch_threads(int n) {
  if (at::get_num_threads() != n) at::set_num_threads(n);
  openblas_threads(n);
}

}  // namespace bench
#endif
