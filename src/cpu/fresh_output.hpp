// Elementwise ops into a fresh column-major output whose inputs all share one dense layout that
// is not column-major (e.g. all transposed): read in the output's order, the kernel would cross
// a cache line per element. It then runs panel by panel (slices along the inputs' slowest
// axis) in the inputs' layout into an L2-sized scratch, and a cache-blocked transpose copies
// each panel into column-major order while it is still in cache. Panels run in parallel, each
// on one thread; elementwise results do not depend on the split.
#pragma once

#include <initializer_list>
#include <vector>

#include "cpu/elementwise_loop.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

// A kernel over (dst, inputs, engine), one panel at a time.
using PanelKernel = void (*)(const void* context, const Tensor& dst, const std::vector<Tensor>& inputs,
                             Engine& engine);

// True when the inputs share one dense layout that is not column-major (`inputs` have out's
// shape, already broadcast).
bool share_transposed_layout(const Tensor& out, std::initializer_list<const Tensor*> inputs);

// True when the panelled path pays for `out`: large, and a shared transposed layout. Inline,
// so that a small op pays one comparison.
inline bool panels_pay(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  return out.numel() >= kElementGrain && share_transposed_layout(out, inputs);
}

// Runs `kernel` panel by panel as above; call it when panels_pay.
void run_panelled(const Tensor& out, std::initializer_list<const Tensor*> inputs, Engine& engine,
                  PanelKernel kernel, const void* context);

}  // namespace tensora::cpu
