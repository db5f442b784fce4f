// Reductions with a fixed blocking: the result depends only on the shapes and strides, never
// on how many threads run the blocks.
#include "cpu/reduce_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "core/strided_loop.hpp"
#include "core/element_access.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/scratch.hpp"
#include "cpu/simd.hpp"

namespace tensora::cpu {

namespace {

constexpr std::int64_t kReduceBlock = 1 << 14;  // elements per partial of one output
constexpr std::int64_t kFoldEvery = 1024;        // outer reductions fold partials this often

Strides byte_strides(const Tensor& t, std::size_t begin, std::size_t end) {
  Strides s(t.strides().begin() + static_cast<std::ptrdiff_t>(begin), t.strides().begin() + static_cast<std::ptrdiff_t>(end));
  for (auto& v : s) v *= static_cast<std::int64_t>(size_of(t.dtype()));
  return s;
}

// Byte offset of the col-major flat index `i` over (shape, byte strides).
std::int64_t offset_of(std::int64_t i, const Shape& shape, const Strides& strides) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

// Adds a contiguous run to an accumulator, with SIMD where there is a fast path.
template <ReduceOp Op, class T, class Acc>
Acc accumulate_run(Acc acc, const char* p, std::int64_t stride, std::int64_t n) {
  using R = Reducer<Op, T>;
  if (stride == static_cast<std::int64_t>(sizeof(T))) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* x = reinterpret_cast<const T*>(p);
      if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean) {
        if constexpr (std::is_same_v<T, float>) return R::combine(acc, simd::sum_f32(x, n));
        else return R::combine(acc, simd::sum_f64(x, n));
      } else if constexpr (Op == ReduceOp::Max) {
        if constexpr (std::is_same_v<T, float>) return R::combine(acc, simd::max_f32(x, n));
        else return R::combine(acc, simd::max_f64(x, n));
      } else if constexpr (Op == ReduceOp::Min) {
        if constexpr (std::is_same_v<T, float>) return R::combine(acc, simd::min_f32(x, n));
        else return R::combine(acc, simd::min_f64(x, n));
      }
    }
  }
  for (std::int64_t i = 0; i < n; ++i) acc = R::step(acc, load_as_compute<T>(p + i * stride));
  return acc;
}

// A reduction's accumulators (bool included: std::vector<bool> has no data()). Large ones come
// from the caching allocator: a fresh new[] faulted every page in on every call once malloc
// had stopped using mmap for them, and on a virtual machine that cost 20x the arithmetic (a
// product over 3 of 100000 x 3 elements: 3.8 ms instead of 0.17 ms). Small ones stay on new[],
// which malloc serves from its per-thread cache faster than the caching allocator's lock.
template <class T>
class Accumulators {
 public:
  Accumulators(std::int64_t n, T value) {
    const auto count = static_cast<std::size_t>(n);
    if (count * sizeof(T) >= kCachedBytes) data_ = large_.emplace(count).data();
    else data_ = (small_ = std::unique_ptr<T[]>(new T[count])).get();
    std::fill_n(data_, n, value);
  }
  T* data() const { return data_; }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  static constexpr std::size_t kCachedBytes = std::size_t{32} << 10;
  std::unique_ptr<T[]> small_;
  std::optional<Scratch<T>> large_;
  T* data_ = nullptr;
};

// acc[i] = step(acc[i], x[i]) for a contiguous run, with SIMD where there is a fast path
// (the same arithmetic per element as the scalar step, so results do not change).
template <ReduceOp Op, class T, class Acc>
bool simd_sweep(Acc* acc, const T* x, std::int64_t n) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Acc, double> &&
                (Op == ReduceOp::Sum || Op == ReduceOp::Mean)) {
    simd::accumulate_sum_f32(acc, x, n);
    return true;
  } else if constexpr (std::is_same_v<T, double> && (Op == ReduceOp::Sum || Op == ReduceOp::Mean)) {
    simd::accumulate_sum_f64(acc, x, n);
    return true;
  } else if constexpr (std::is_same_v<T, float> && (Op == ReduceOp::Max || Op == ReduceOp::Min)) {
    simd::accumulate_extreme_f32(Op == ReduceOp::Max, acc, x, n);
    return true;
  } else if constexpr (std::is_same_v<T, double> && (Op == ReduceOp::Max || Op == ReduceOp::Min)) {
    simd::accumulate_extreme_f64(Op == ReduceOp::Max, acc, x, n);
    return true;
  } else {
    return false;
  }
}

// Combines partials pairwise in a fixed tree.
template <class R, class Acc>
Acc combine_tree(Acc* parts, std::int64_t n) {
  for (std::int64_t width = 1; width < n; width *= 2)
    for (std::int64_t i = 0; i + width < n; i += 2 * width) parts[i] = R::combine(parts[i], parts[i + width]);
  return parts[0];
}

template <ReduceOp Op, class T>
void reduce_typed(const Tensor& out, const Tensor& x, std::size_t kept, Engine& engine) {
  using R = Reducer<Op, T>;
  using Acc = typename R::Acc;
  using Out = typename R::Out;
  const Shape kept_shape(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(kept));
  const Shape red_shape(x.shape().begin() + static_cast<std::ptrdiff_t>(kept), x.shape().end());
  const Strides kept_strides = byte_strides(x, 0, kept);
  const Strides red_strides = byte_strides(x, kept, x.shape().size());
  const std::int64_t n_out = numel(kept_shape), n_red = numel(red_shape);
  char* const base = static_cast<char*>(const_cast<void*>(x.element_ptr()));
  Out* const dst = out.data<Out>();
  if (n_out == 0) return;

  // Inner case: the fastest-moving axis of x is reduced (or nothing is kept): each output
  // reduces runs of memory; long reductions are cut into fixed blocks combined pairwise.
  std::int64_t fastest_stride = INT64_MAX;
  bool fastest_is_reduced = kept == 0;
  for (std::size_t d = 0; d < x.shape().size(); ++d) {
    const std::int64_t s = std::abs(x.strides()[d]);
    if (x.shape()[d] > 1 && s < fastest_stride) {
      fastest_stride = s;
      fastest_is_reduced = d >= kept;
    }
  }
  if (fastest_is_reduced || n_red == 0) {
    const auto red_loop = make_strided_loop<1>(red_shape, {base}, {red_strides});
    const std::int64_t blocks = std::max<std::int64_t>(1, (n_red + kReduceBlock - 1) / kReduceBlock);
    auto block_partial = [&](std::int64_t o, std::int64_t b) {
      StridedLoop<1> loop = red_loop;
      loop.base[0] = base + offset_of(o, kept_shape, kept_strides);
      Acc acc = R::init();
      run_strided_range(loop, [&](std::array<char*, 1> p, std::array<std::int64_t, 1> s, std::int64_t n) {
        acc = accumulate_run<Op, T>(acc, p[0], s[0], n);
      }, b * kReduceBlock, std::min(n_red, (b + 1) * kReduceBlock));
      return acc;
    };
    const std::int64_t per_task = std::max<std::int64_t>(1, std::min(n_red, kReduceBlock));
    const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / per_task);
    if (blocks == 1) {
      auto outputs = [&](std::int64_t o0, std::int64_t o1) {
        for (std::int64_t o = o0; o < o1; ++o) dst[o] = R::finish(block_partial(o, 0), n_red);
      };
      if (n_out <= grain) outputs(0, n_out);
      else engine.parallel_for(n_out, grain, outputs);
      return;
    }
    auto partials = Accumulators<Acc>(n_out * blocks, R::init());
    engine.parallel_for(n_out * blocks, grain, [&](std::int64_t t0, std::int64_t t1) {
      for (std::int64_t t = t0; t < t1; ++t)
        partials[static_cast<std::size_t>(t)] = block_partial(t / blocks, t % blocks);
    });
    for (std::int64_t o = 0; o < n_out; ++o)
      dst[o] = R::finish(combine_tree<R>(partials.data() + o * blocks, blocks), n_red);
    return;
  }

  // Outer case: the fastest axis is kept, so for each reduced index sweep all outputs at once
  // (vectorizable, sequential memory). Each output accumulates in the same order whatever the
  // split of outputs over threads.
  const Strides acc_strides = [&] {
    Strides s = col_major_strides(kept_shape);
    for (auto& v : s) v *= static_cast<std::int64_t>(sizeof(Acc));
    return s;
  }();
  auto total = Accumulators<Acc>(n_out, R::init());
  auto block = Accumulators<Acc>(n_out, R::init());
  const auto kept_loop = make_strided_loop<2>(kept_shape, {base, reinterpret_cast<char*>(block.data())},
                                              {kept_strides, acc_strides});
  // Wide output chunks: every reduced index walks the chunk's slice of its row, so narrow
  // chunks read each row in short pieces, a new page each (4096-wide: 2.4x faster than 256).
  const std::int64_t grain = std::max<std::int64_t>(2048, kElementGrain / std::max<std::int64_t>(1, n_red));
  auto sweep = [&](std::int64_t o0, std::int64_t o1) {
    std::array<char*, 2> at = kept_loop.base;
    for (std::int64_t r = 0; r < n_red; ++r) {
      at[0] = base + offset_of(r, red_shape, red_strides);
      run_strided_range_at(kept_loop, at, [](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
        if (s[0] == static_cast<std::int64_t>(sizeof(T)) && s[1] == static_cast<std::int64_t>(sizeof(Acc))) {
          if (simd_sweep<Op, T>(reinterpret_cast<Acc*>(p[1]), reinterpret_cast<const T*>(p[0]), n)) return;
          auto* a = reinterpret_cast<Acc*>(p[1]);
          const auto* x = reinterpret_cast<const T*>(p[0]);
          for (std::int64_t i = 0; i < n; ++i) a[i] = R::step(a[i], static_cast<compute_t<T>>(x[i]));
          return;
        }
        for (std::int64_t i = 0; i < n; ++i) {
          Acc* a = reinterpret_cast<Acc*>(p[1] + i * s[1]);
          *a = R::step(*a, load_as_compute<T>(p[0] + i * s[0]));
        }
      }, o0, o1);
      if ((r + 1) % kFoldEvery == 0 || r + 1 == n_red) {
        // Fold the block into the total; positions map through the same loop order.
        run_strided_range_at(kept_loop, at, [&](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
          for (std::int64_t i = 0; i < n; ++i) {
            Acc* a = reinterpret_cast<Acc*>(p[1] + i * s[1]);
            Acc& t = total[a - block.data()];
            t = R::combine(t, *a);
            *a = R::init();
          }
        }, o0, o1);
      }
    }
  };
  if (n_out <= grain) sweep(0, n_out);
  else engine.parallel_for(n_out, grain, sweep);
  for (std::int64_t o = 0; o < n_out; ++o) dst[o] = R::finish(total[o], n_red);
}

template <ReduceOp Op>
void reduce_op(const Tensor& out, const Tensor& x, std::size_t kept, Engine& engine) {
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr ((reduce_accepts<Op>() & kind_bit(element_kind<T>())) != 0) reduce_typed<Op, T>(out, x, kept, engine);
  });
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept, Engine& engine) {
  const auto k = static_cast<std::size_t>(kept);
  switch (op) {
    case ReduceOp::Sum: return reduce_op<ReduceOp::Sum>(out, x, k, engine);
    case ReduceOp::Prod: return reduce_op<ReduceOp::Prod>(out, x, k, engine);
    case ReduceOp::Mean: return reduce_op<ReduceOp::Mean>(out, x, k, engine);
    case ReduceOp::Max: return reduce_op<ReduceOp::Max>(out, x, k, engine);
    case ReduceOp::Min: return reduce_op<ReduceOp::Min>(out, x, k, engine);
    case ReduceOp::All: return reduce_op<ReduceOp::All>(out, x, k, engine);
    case ReduceOp::Any: return reduce_op<ReduceOp::Any>(out, x, k, engine);
  }
}

void arg_extreme(bool max, const Tensor& out, const Tensor& x, Engine& engine) {
  const std::size_t axis = x.shape().size() - 1;
  const std::int64_t n = x.shape()[axis];
  const Shape outer(x.shape().begin(), x.shape().end() - 1);
  const Strides outer_strides = byte_strides(x, 0, axis);
  const std::int64_t step = x.strides()[axis] * static_cast<std::int64_t>(size_of(x.dtype()));
  const char* base = static_cast<const char*>(x.element_ptr());
  std::int64_t* dst = out.data<std::int64_t>();
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr ((kBool | kReal) & kind_bit(element_kind<T>())) {
      auto lines = [&](std::int64_t o0, std::int64_t o1) {
        for (std::int64_t o = o0; o < o1; ++o) {
          const char* p = base + offset_of(o, outer, outer_strides);
          auto best = load_as_compute<T>(p);
          std::int64_t at = 0;
          for (std::int64_t i = 1; i < n && !fn::is_nan(best); ++i) {
            const auto v = load_as_compute<T>(p + i * step);
            if (fn::is_nan(v) || (max ? best < v : v < best)) {
              best = v;
              at = i;
            }
          }
          dst[o] = at;
        }
      };
      const std::int64_t count = numel(outer);
      const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / std::max<std::int64_t>(1, n));
      if (count <= grain) lines(0, count);
      else engine.parallel_for(count, grain, lines);
    }
  });
}

void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis, Engine& engine) {
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t n = x.shape()[a];
  Shape outer = x.shape();
  outer.erase(outer.begin() + static_cast<std::ptrdiff_t>(a));
  auto strides_without_axis = [&](const Tensor& t) {
    Strides s = t.strides();
    s.erase(s.begin() + static_cast<std::ptrdiff_t>(a));
    for (auto& v : s) v *= static_cast<std::int64_t>(size_of(t.dtype()));
    return s;
  };
  const Strides xs = strides_without_axis(x), os = strides_without_axis(out);
  const std::int64_t xstep = x.strides()[a] * static_cast<std::int64_t>(size_of(x.dtype()));
  const std::int64_t ostep = out.strides()[a] * static_cast<std::int64_t>(size_of(out.dtype()));
  const char* xb = static_cast<const char*>(x.element_ptr());
  char* ob = static_cast<char*>(const_cast<void*>(out.element_ptr()));
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (kNumeric & kind_bit(element_kind<T>())) {
      using R = Reducer<ReduceOp::Sum, T>;
      using P = Reducer<ReduceOp::Prod, T>;
      auto lines = [&](std::int64_t o0, std::int64_t o1) {
        for (std::int64_t o = o0; o < o1; ++o) {
          const char* p = xb + offset_of(o, outer, xs);
          char* q = ob + offset_of(o, outer, os);
          typename R::Acc acc = product ? P::init() : R::init();
          for (std::int64_t i = 0; i < n; ++i) {
            const auto v = load_as_compute<T>(p + i * xstep);
            acc = product ? P::step(acc, v) : R::step(acc, v);
            const T r = cast_value<T>(acc);  // rounds once from the accumulator
            std::memcpy(q + i * ostep, &r, sizeof(T));
          }
        }
      };
      const std::int64_t count = numel(outer);
      const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / std::max<std::int64_t>(1, n));
      if (count <= grain) lines(0, count);
      else engine.parallel_for(count, grain, lines);
    }
  });
}

}  // namespace tensora::cpu
