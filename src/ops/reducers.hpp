// Reductions as (init, step, combine, finish) over an accumulator type. F32/F16/BF16 sums
// accumulate in double and complex<float> in complex<double>, so the result is accurate
// before it is rounded once to the output dtype.
#pragma once

#include <complex>
#include <limits>

#include "core/value_cast.hpp"
#include "ops/elementwise_functors.hpp"
#include "ops/reduce_ops.hpp"

namespace tensora {

template <class T>
struct accumulate_type {
  using type = compute_t<T>;
};
template <> struct accumulate_type<float> { using type = double; };
template <> struct accumulate_type<Float16> { using type = double; };
template <> struct accumulate_type<BFloat16> { using type = double; };
template <> struct accumulate_type<std::complex<float>> { using type = std::complex<double>; };
template <class T>
using accumulate_t = typename accumulate_type<T>::type;

// The dtype kinds each reduction's kernel is instantiated for (the op layer validated first).
template <ReduceOp Op>
constexpr std::uint8_t reduce_accepts() {
  if constexpr (Op == ReduceOp::All || Op == ReduceOp::Any) return kAny;
  else if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min) return kBool | kReal;
  else if constexpr (Op == ReduceOp::Mean) return kInexact;
  else return kNumeric;
}

template <ReduceOp Op, class T>
struct Reducer {
  using C = compute_t<T>;
  static constexpr bool kLogical = Op == ReduceOp::All || Op == ReduceOp::Any;
  static constexpr bool kExtreme = Op == ReduceOp::Max || Op == ReduceOp::Min;
  using Acc = std::conditional_t<kLogical, bool, std::conditional_t<kExtreme, C, accumulate_t<T>>>;
  using Out = std::conditional_t<kLogical, bool, T>;

  static Acc init() {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean) return Acc(0);
    else if constexpr (Op == ReduceOp::Prod) return Acc(1);
    else if constexpr (Op == ReduceOp::All) return true;
    else if constexpr (Op == ReduceOp::Any) return false;
    else if constexpr (std::is_same_v<C, bool>) return Op == ReduceOp::Min;
    else if constexpr (std::numeric_limits<C>::has_infinity)
      return Op == ReduceOp::Max ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    else return Op == ReduceOp::Max ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
  static Acc combine(Acc a, Acc b) {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean) return fn::wrap_add(a, b);
    else if constexpr (Op == ReduceOp::Prod) return fn::wrap_mul(a, b);
    else if constexpr (Op == ReduceOp::All) return a && b;
    else if constexpr (Op == ReduceOp::Any) return a || b;
    else if constexpr (Op == ReduceOp::Max) return fn::binary<BinaryOp::Maximum>(a, b);
    else return fn::binary<BinaryOp::Minimum>(a, b);
  }
  static Acc step(Acc a, C v) {
    if constexpr (kLogical) return combine(a, fn::truth(v));
    else return combine(a, static_cast<Acc>(v));
  }
  static Out finish(Acc a, std::int64_t count) {
    if constexpr (Op == ReduceOp::Mean) {
      if constexpr (is_complex_v<Acc>) return cast_value<Out>(a / static_cast<typename Acc::value_type>(count));
      else return cast_value<Out>(a / static_cast<Acc>(count));
    } else {
      return cast_value<Out>(a);
    }
  }
};

}  // namespace tensora
