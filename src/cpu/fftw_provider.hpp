// FFTW 3 as a provider of 1-D plans (cpu/fft_kernels.hpp's Plan), loaded at run time with
// dlopen (libfftw3.so.3, libfftw3f.so.3) the way the BLAS is: FFTW is GPL, tensora is MIT and
// links nothing of it, and works without it (the built-in plans). docs/fft.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cpu/fft_kernels.hpp"

namespace tensora::cpu::fft {

// FFTW's plan for (n, kind), or nullptr when the library (of T's precision) is not loadable or
// n does not fit its int. Plans are made under one lock (FFTW's planner is not thread-safe),
// with FFTW_ESTIMATE unless TENSORA_FFTW_PLANNER=measure|patient, and executed concurrently.
template <class T>
std::shared_ptr<const Plan<T>> fftw_plan(std::int64_t n, Kind kind);

// "FFTW 3.3.10" when the double-precision library loads, else "".
std::string fftw_version();

}  // namespace tensora::cpu::fft
