// Unary elementwise kernels, conversions and copies.
#include <cstring>
#include <utility>

#include "core/value_cast.hpp"
#include "core/element_access.hpp"
#include "ops/elementwise_functors.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/half_runs.hpp"
#include "cpu/kernels.hpp"
#include "cpu/simd.hpp"

namespace tensora::cpu {

namespace {

template <UnaryOp Op, class T>
void unary_typed(const Tensor& out, const Tensor& in, Engine& engine) {
  using C = compute_t<T>;
  using R = decltype(fn::unary<Op>(C{}));
  // bool for predicates, the real type for abs/real/imag of complex, else the input's type.
  using Out = std::conditional_t<std::is_same_v<R, bool>, bool, std::conditional_t<std::is_same_v<R, C>, T, R>>;
  auto inner = [](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n, bool stream = false) {
    constexpr auto kT = static_cast<std::int64_t>(sizeof(T));
    if constexpr (std::is_same_v<T, float> && std::is_same_v<Out, float>) {
      if (s[0] == kT && s[1] == kT &&
          simd::unary_f32(Op, reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), n, stream))
        return;
    }
    if constexpr (std::is_same_v<T, double> && std::is_same_v<Out, double>) {
      if (s[0] == kT && s[1] == kT &&
          simd::unary_f64(Op, reinterpret_cast<const double*>(p[1]), reinterpret_cast<double*>(p[0]), n, stream))
        return;
    }
    (void)stream;
    if constexpr (is_half_v<T> && std::is_same_v<Out, T>) {
      if (s[0] == kT && s[1] == kT &&
          simd::half_unary_run(Op, reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n))
        return;
    }
    if constexpr (!is_half_v<T>) {
      if (typed_contiguous_run<Out, T>(p, s, n, [](T x) { return fn::unary<Op>(x); })) return;
    }
    for (std::int64_t i = 0; i < n; ++i)
      store_from_compute<Out>(p[0] + i * s[0], fn::unary<Op>(load_as_compute<T>(p[1] + i * s[1])));
  };
  if constexpr (simd::kHasTileKernels<T> && std::is_same_v<Out, T>) {
    auto tile = [](const std::array<TilePart, 2>& p, std::int64_t rows, std::int64_t cols, bool stream) {
      return simd::unary_tile(Op, tile_operand<T>(p[1]), reinterpret_cast<T*>(p[0].p), p[0].stride, rows, cols,
                              stream);
    };
    run_elementwise<2>(engine, {&out, &in}, inner, tile);
  } else {
    run_elementwise<2>(engine, {&out, &in}, inner);
  }
}

template <UnaryOp Op>
void unary_op(const Tensor& out, const Tensor& in, Engine& engine) {
  visit_dtype(in.dtype(), [&]<class T>() {
    if constexpr ((info(Op).accepts & kind_bit(element_kind<T>())) != 0)
      unary_typed<Op, T>(out, in, engine);
  });
}

using UnaryFn = void (*)(const Tensor&, const Tensor&, Engine&);

template <std::size_t... I>
constexpr std::array<UnaryFn, sizeof...(I)> unary_table(std::index_sequence<I...>) {
  return {&unary_op<static_cast<UnaryOp>(I)>...};
}
constexpr auto kUnaryKernels = unary_table(std::make_index_sequence<kNumUnaryOps>());

}  // namespace

void unary(UnaryOp op, const Tensor& out, const Tensor& in, Engine& engine) {
  kUnaryKernels[static_cast<std::size_t>(op)](out, in, engine);
}

void cast(const Tensor& out, const Tensor& in, Engine& engine) {
  if (out.dtype() == in.dtype()) return copy(out, in, engine);
  visit_dtype(out.dtype(), [&]<class To>() {
    visit_dtype(in.dtype(), [&]<class From>() {
      auto inner = [](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
        // Half <-> F32 runs in vectors, bitwise the scalar conversions (cpu/half_runs.hpp).
        if constexpr (is_half_v<From> && std::is_same_v<To, float>) {
          if (s[0] == 4 && s[1] == 2 &&
              simd::widen_half(simd::kHalfKind<From>, reinterpret_cast<const std::uint16_t*>(p[1]),
                               reinterpret_cast<float*>(p[0]), n))
            return;
        }
        if constexpr (std::is_same_v<From, float> && is_half_v<To>) {
          if (s[0] == 2 && s[1] == 4 &&
              simd::narrow_half(simd::kHalfKind<To>, reinterpret_cast<const float*>(p[1]),
                                reinterpret_cast<std::uint16_t*>(p[0]), n))
            return;
        }
        if (typed_contiguous_run<To, From>(p, s, n, [](From v) { return cast_value<To>(v); })) return;
        for (std::int64_t i = 0; i < n; ++i) {
          From v;
          std::memcpy(&v, p[1] + i * s[1], sizeof(From));
          const To r = cast_value<To>(v);
          std::memcpy(p[0] + i * s[0], &r, sizeof(To));
        }
      };
      // F32 <-> F64 and C128 -> C64 of a transposed input: a tile kernel converts in registers as
      // it transposes.
      if constexpr ((std::is_same_v<From, float> && std::is_same_v<To, double>) ||
                    (std::is_same_v<From, double> && std::is_same_v<To, float>) ||
                    (std::is_same_v<From, std::complex<double>> && std::is_same_v<To, std::complex<float>>)) {
        auto tile = [](const std::array<TilePart, 2>& p, std::int64_t rows, std::int64_t cols, bool stream) {
          return simd::cast_tile(tile_operand<From>(p[1]), reinterpret_cast<To*>(p[0].p), p[0].stride, rows, cols,
                                 stream);
        };
        run_elementwise<2>(engine, {&out, &in}, inner, tile);
      } else {
        run_elementwise<2>(engine, {&out, &in}, inner);
      }
    });
  });
}

}  // namespace tensora::cpu
