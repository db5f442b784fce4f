// The CPU backend's FFT entry: a multi-axis transform as one pass of 1-D transforms per axis,
// each pass a set of independent lines split over the engine's threads. Every line runs the
// same cached plan (cpu/fft_provider.hpp) whatever the thread count, so serial and parallel
// engines give the same bits.
#pragma once

#include "ops/fft_spec.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

void run_fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine& engine);

}  // namespace tensora::cpu
