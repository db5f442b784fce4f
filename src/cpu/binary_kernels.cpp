// Binary elementwise kernels and select: one template per family, instantiated per dtype.
#include <atomic>
#include <cstring>
#include <utility>

#include "core/element_access.hpp"
#include "ops/elementwise_functors.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/half_runs.hpp"
#include "cpu/kernels.hpp"
#include "cpu/simd.hpp"

namespace tensora::cpu {

namespace {

template <BinaryOp Op, class T>
void binary_typed(const Tensor& out, const Tensor& a, const Tensor& b, Engine& engine) {
  using C = compute_t<T>;
  using R = decltype(fn::binary<Op>(C{}, C{}));
  using Out = std::conditional_t<std::is_same_v<R, bool>, bool, T>;
  auto inner = [](std::array<char*, 3> p, std::array<std::int64_t, 3> s, std::int64_t n, bool stream = false) {
    constexpr auto kT = static_cast<std::int64_t>(sizeof(T));
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // Short runs skip the dispatch: the SIMD ops here round exactly like the scalar loop.
      if (n >= 32 && s[0] == kT && (s[1] == 0 || s[1] == kT) && (s[2] == 0 || s[2] == kT)) {
        bool done;
        if constexpr (std::is_same_v<T, float>)
          done = simd::binary_f32(Op, reinterpret_cast<const float*>(p[1]), s[1] / kT,
                                  reinterpret_cast<const float*>(p[2]), s[2] / kT,
                                  reinterpret_cast<float*>(p[0]), n, stream);
        else
          done = simd::binary_f64(Op, reinterpret_cast<const double*>(p[1]), s[1] / kT,
                                  reinterpret_cast<const double*>(p[2]), s[2] / kT,
                                  reinterpret_cast<double*>(p[0]), n, stream);
        if (done) return;
      }
    }
    if constexpr (is_half_v<T> && std::is_same_v<Out, T>) {  // computed in F32, rounded once
      if (n >= 32 && s[0] == kT && (s[1] == 0 || s[1] == kT) && (s[2] == 0 || s[2] == kT) &&
          simd::half_binary_run(Op, reinterpret_cast<const T*>(p[1]), s[1] / kT, reinterpret_cast<const T*>(p[2]),
                                s[2] / kT, reinterpret_cast<T*>(p[0]), n))
        return;
    }
    (void)stream;
    if constexpr (!is_half_v<T>) {
      if (typed_contiguous_run<Out, T, T>(p, s, n, [](T x, T y) { return fn::binary<Op>(x, y); })) return;
    }
    for (std::int64_t i = 0; i < n; ++i)
      store_from_compute<Out>(p[0] + i * s[0], fn::binary<Op>(load_as_compute<T>(p[1] + i * s[1]),
                                                              load_as_compute<T>(p[2] + i * s[2])));
  };
  if constexpr (simd::kHasTileKernels<T> && std::is_same_v<Out, T>) {
    auto tile = [](const std::array<TilePart, 3>& p, std::int64_t rows, std::int64_t cols, bool stream) {
      return simd::binary_tile(Op, tile_operand<T>(p[1]), tile_operand<T>(p[2]), reinterpret_cast<T*>(p[0].p),
                               p[0].stride, rows, cols, stream);
    };
    run_elementwise<3>(engine, {&out, &a, &b}, inner, tile);
  } else {
    run_elementwise<3>(engine, {&out, &a, &b}, inner);
  }
}

template <BinaryOp Op>
void binary_op(const Tensor& out, const Tensor& a, const Tensor& b, Engine& engine) {
  visit_dtype(a.dtype(), [&]<class T>() {
    if constexpr ((info(Op).accepts & kind_bit(element_kind<T>())) != 0)
      binary_typed<Op, T>(out, a, b, engine);
  });
}

using BinaryFn = void (*)(const Tensor&, const Tensor&, const Tensor&, Engine&);

template <std::size_t... I>
constexpr std::array<BinaryFn, sizeof...(I)> binary_table(std::index_sequence<I...>) {
  return {&binary_op<static_cast<BinaryOp>(I)>...};
}
constexpr auto kBinaryKernels = binary_table(std::make_index_sequence<kNumBinaryOps>());

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Engine& engine) {
  kBinaryKernels[static_cast<std::size_t>(op)](out, a, b, engine);
}

void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b,
            Engine& engine) {
  visit_dtype(a.dtype(), [&]<class T>() {
    run_elementwise<4>(engine, {&out, &pred, &a, &b},
                       [](std::array<char*, 4> p, std::array<std::int64_t, 4> s, std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i) {
        bool take_a;
        std::memcpy(&take_a, p[1] + i * s[1], 1);
        std::memcpy(p[0] + i * s[0], take_a ? p[2] + i * s[2] : p[3] + i * s[3], sizeof(T));
      }
    });
  });
}

bool any_zero(const Tensor& t, Engine& engine) {
  bool found = false;
  visit_dtype(t.dtype(), [&]<class T>() {
    std::atomic<bool> zero{false};
    // The tensor is its own "output" here: the loop only reads.
    run_elementwise<1>(engine, {&t}, [&](std::array<char*, 1> p, std::array<std::int64_t, 1> s,
                                         std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i)
        if (!fn::truth(load_as_compute<T>(p[0] + i * s[0]))) zero.store(true, std::memory_order_relaxed);
    });
    found = zero.load();
  });
  return found;
}

}  // namespace tensora::cpu
