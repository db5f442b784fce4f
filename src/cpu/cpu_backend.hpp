// The CPU backend: the backend interface over the CPU kernels (thread pool, SIMD, BLAS).
#pragma once

#include "backend/backend.hpp"

namespace tensora::cpu {

// The one CPU backend; stateless (threads come from the engine each call is given).
backend::Backend& cpu_backend();

// The CPU executor of fused programs (cpu/fused_executor.cpp).
void run_fused(const backend::Backend& self, const backend::FusedProgram& program, std::span<const Tensor> inputs,
               const Tensor& out, Engine& engine);

}  // namespace tensora::cpu
