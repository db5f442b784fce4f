// Elementwise ops into a fresh column-major output whose inputs all share one dense layout that
// is not column-major (e.g. all transposed): read in the output's order, the kernel would cross
// a cache line per element. It then runs panel by panel (slices along the inputs' slowest
// axis) in the inputs' layout into an L2-sized scratch, and a cache-blocked transpose copies
// each panel into column-major order while it is still in cache. Panels run in parallel, each
// on one thread; elementwise results do not depend on the split.
#pragma once

#include <initializer_list>
#include <vector>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

// A kernel over (dst, inputs, engine): `inputs` empty means "the original inputs, whole".
using PanelKernel = void (*)(const void* context, const Tensor& dst, const std::vector<Tensor>& inputs,
                             Engine& engine);

// Runs `kernel` once over the whole of `out`, or panel by panel as above when that pays.
// `inputs` have out's shape (already broadcast).
void run_fresh(const Tensor& out, std::initializer_list<const Tensor*> inputs, Engine& engine, PanelKernel kernel,
               const void* context);

}  // namespace tensora::cpu
