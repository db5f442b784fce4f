// Reference reductions and scans: one sequential pass per output element, in column-major
// order, with the catalog's reducers (accumulator types and NaN rules as ops/reducers.hpp).
#include <cstring>

#include "core/element_access.hpp"
#include "ops/reducers.hpp"
#include "reference/reference_backend.hpp"
#include "reference/walk.hpp"

namespace tensora::reference {

namespace {

std::vector<std::int64_t> axes_range(std::size_t lo, std::size_t hi) {
  std::vector<std::int64_t> axes;
  for (std::size_t d = lo; d < hi; ++d) axes.push_back(static_cast<std::int64_t>(d));
  return axes;
}

template <ReduceOp Op>
void reduce_op(const Tensor& out, const Tensor& x, std::size_t kept) {
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr ((reduce_accepts<Op>() & kind_bit(element_kind<T>())) != 0) {
      using R = Reducer<Op, T>;
      const Shape kept_shape(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(kept));
      const Shape reduced_shape(x.shape().begin() + static_cast<std::ptrdiff_t>(kept), x.shape().end());
      const auto kept_axes = axes_range(0, kept), reduced_axes = axes_range(kept, x.shape().size());
      const std::int64_t n_out = numel(kept_shape), n_red = numel(reduced_shape);
      for (std::int64_t o = 0; o < n_out; ++o) {
        const char* line = base_of(x) + byte_offset(x, kept_axes, unravel(o, kept_shape));
        typename R::Acc acc = R::init();
        for (std::int64_t r = 0; r < n_red; ++r)
          acc = R::step(acc, load_as_compute<T>(line + byte_offset(x, reduced_axes, unravel(r, reduced_shape))));
        const typename R::Out value = R::finish(acc, n_red);
        std::memcpy(base_of(out) + o * static_cast<std::int64_t>(sizeof(value)), &value, sizeof(value));
      }
    }
  });
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept) {
  const auto k = static_cast<std::size_t>(kept);
  switch (op) {
    case ReduceOp::Sum: return reduce_op<ReduceOp::Sum>(out, x, k);
    case ReduceOp::Prod: return reduce_op<ReduceOp::Prod>(out, x, k);
    case ReduceOp::Mean: return reduce_op<ReduceOp::Mean>(out, x, k);
    case ReduceOp::Max: return reduce_op<ReduceOp::Max>(out, x, k);
    case ReduceOp::Min: return reduce_op<ReduceOp::Min>(out, x, k);
    case ReduceOp::All: return reduce_op<ReduceOp::All>(out, x, k);
    case ReduceOp::Any: return reduce_op<ReduceOp::Any>(out, x, k);
  }
}

void arg_extreme(bool max, const Tensor& out, const Tensor& x) {
  const std::size_t axis = x.shape().size() - 1;
  const Shape outer(x.shape().begin(), x.shape().end() - 1);
  const auto outer_axes = axes_range(0, axis);
  const std::int64_t n = x.shape()[axis];
  const std::int64_t step = x.strides()[axis] * static_cast<std::int64_t>(size_of(x.dtype()));
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr ((kBool | kReal) & kind_bit(element_kind<T>())) {
      for (std::int64_t o = 0; o < numel(outer); ++o) {
        const char* p = base_of(x) + byte_offset(x, outer_axes, unravel(o, outer));
        std::int64_t at = 0;
        for (std::int64_t i = 1; i < n; ++i) {
          const auto best = load_as_compute<T>(p + at * step), v = load_as_compute<T>(p + i * step);
          if (fn::is_nan(best)) break;  // the first NaN is the extreme
          if (fn::is_nan(v) || (max ? best < v : v < best)) at = i;
        }
        out.data<std::int64_t>()[o] = at;
      }
    }
  });
}

void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis) {
  const auto a = static_cast<std::size_t>(axis);
  Shape outer = x.shape();
  outer.erase(outer.begin() + static_cast<std::ptrdiff_t>(a));
  std::vector<std::int64_t> outer_axes;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (d != a) outer_axes.push_back(static_cast<std::int64_t>(d));
  const std::int64_t n = x.shape()[a];
  const std::int64_t x_step = x.strides()[a] * static_cast<std::int64_t>(size_of(x.dtype()));
  const std::int64_t out_step = out.strides()[a] * static_cast<std::int64_t>(size_of(out.dtype()));
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (kNumeric & kind_bit(element_kind<T>())) {
      using S = Reducer<ReduceOp::Sum, T>;
      using P = Reducer<ReduceOp::Prod, T>;
      for (std::int64_t o = 0; o < numel(outer); ++o) {
        const auto index = unravel(o, outer);
        const char* p = base_of(x) + byte_offset(x, outer_axes, index);
        char* q = base_of(out) + byte_offset(out, outer_axes, index);
        typename S::Acc acc = product ? P::init() : S::init();
        for (std::int64_t i = 0; i < n; ++i) {
          const auto v = load_as_compute<T>(p + i * x_step);
          acc = product ? P::step(acc, v) : S::step(acc, v);
          const T r = cast_value<T>(acc);  // rounded from the accumulator at every step
          std::memcpy(q + i * out_step, &r, sizeof(T));
        }
      }
    }
  });
}

}  // namespace tensora::reference
