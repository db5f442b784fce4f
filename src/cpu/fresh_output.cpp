#include "cpu/fresh_output.hpp"

#include <algorithm>
#include <numeric>

#include "core/storage.hpp"
#include "core/tensor_internals.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/transpose_copy.hpp"

namespace tensora::cpu {

namespace {

// True when `t` covers a dense block of memory in some axis order with positive strides.
bool dense_positive(const Tensor& t) {
  std::vector<std::size_t> order(t.shape().size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return t.strides()[a] < t.strides()[b]; });
  std::int64_t expected = 1;
  for (auto d : order) {
    if (t.shape()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.shape()[d];
  }
  return true;
}

// Dense strides for `shape` with the axes in the memory order of `like` (fastest first).
Strides dense_strides_like(const Shape& shape, const Tensor& like) {
  std::vector<std::size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return like.strides()[a] < like.strides()[b]; });
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (auto d : order) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

// Bytes per panel of the transposing path: the panel's scratch stays in L2 (2 MiB here)
// next to the inputs' panels streaming through it.
constexpr std::int64_t kPanelBytes = std::int64_t{512} << 10;

}  // namespace

bool share_transposed_layout(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  const Tensor& first = **inputs.begin();
  if (first.shape() != out.shape() || first.is_contiguous() || !dense_positive(first)) return false;
  for (const Tensor* t : inputs)
    if (t->shape() != first.shape() || t->strides() != first.strides()) return false;
  return true;
}

void run_panelled(const Tensor& out, std::initializer_list<const Tensor*> inputs, Engine& engine,
                  PanelKernel kernel, const void* context) {
  const Tensor& first = **inputs.begin();
  std::size_t axis = 0;  // the inputs' slowest axis
  for (std::size_t d = 1; d < first.shape().size(); ++d)
    if (first.strides()[d] > first.strides()[axis]) axis = d;
  const auto ax = static_cast<std::int64_t>(axis);
  const std::int64_t extent = out.shape()[axis], per_index = out.numel() / extent;
  const std::int64_t panel_elements = kPanelBytes / static_cast<std::int64_t>(size_of(out.dtype()));
  const std::int64_t height = std::max<std::int64_t>(1, panel_elements / per_index);
  const std::int64_t panels = (extent + height - 1) / height;
  engine.parallel_for(panels, 1, [&](std::int64_t p0, std::int64_t p1) {
    CpuEngine one = CpuEngine::serial(out.device());
    Shape panel_shape = out.shape();
    panel_shape[axis] = std::min(height, extent);
    const auto scratch_storage =
        Storage::allocate(static_cast<std::size_t>(panel_shape[axis] * per_index) * size_of(out.dtype()), out.device());
    for (std::int64_t p = p0; p < p1; ++p) {
      const std::int64_t lo = p * height, hi = std::min(extent, lo + height);
      panel_shape[axis] = hi - lo;
      const Tensor scratch = TensorInternals::view(scratch_storage, panel_shape, dense_strides_like(panel_shape, first),
                                                   0, out.dtype(), out.device());
      std::vector<Tensor> pieces;
      for (const Tensor* t : inputs) pieces.push_back(t->slice(ax, lo, hi));
      kernel(context, scratch, pieces, one);
      transpose_copy(out.slice(ax, lo, hi), scratch, one);
    }
  });
}

}  // namespace tensora::cpu
