// The 1-D plans the CPU backend's FFT runs: FFTW's when its library loads (cpu/fftw_provider),
// else tensora's own (cpu/fft_kernels). TENSORA_FFT=fftw|builtin forces the choice, read once
// per process. docs/fft.md, "Providers and licences".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cpu/fft_kernels.hpp"

namespace tensora::cpu::fft {

// The provider's plan for (n, kind), cached for the life of the process (the reference stays
// valid until exit). Thread-safe.
template <class T>
const Plan<T>& provider_plan(std::int64_t n, Kind kind);

// "FFTW 3.3.10" or "built-in".
std::string provider_name();

}  // namespace tensora::cpu::fft
