// Reference elementwise kernels, copies and casts: one scalar functor call per element. The
// op tables are built over the catalog's enums, so ops added to the catalog flow in.
#include <cstring>
#include <utility>

#include "core/element_access.hpp"
#include "core/value_cast.hpp"
#include "ops/elementwise_functors.hpp"
#include "reference/reference_backend.hpp"
#include "reference/walk.hpp"

namespace tensora::reference {

namespace {

template <BinaryOp Op>
void binary_op(const Tensor& out, const Tensor& a, const Tensor& b) {
  visit_dtype(a.dtype(), [&]<class T>() {
    if constexpr ((info(Op).accepts & kind_bit(element_kind<T>())) != 0) {
      using C = compute_t<T>;
      using Out = std::conditional_t<std::is_same_v<decltype(fn::binary<Op>(C{}, C{})), bool>, bool, T>;
      for_each_position<3>(out.shape(), {&out, &a, &b}, [](const std::array<char*, 3>& p) {
        store_from_compute<Out>(p[0], fn::binary<Op>(load_as_compute<T>(p[1]), load_as_compute<T>(p[2])));
      });
    }
  });
}

template <UnaryOp Op>
void unary_op(const Tensor& out, const Tensor& in) {
  visit_dtype(in.dtype(), [&]<class T>() {
    if constexpr ((info(Op).accepts & kind_bit(element_kind<T>())) != 0) {
      using C = compute_t<T>;
      using R = decltype(fn::unary<Op>(C{}));
      // bool for predicates, the real type for abs/real/imag of complex, else the input's type.
      using Out = std::conditional_t<std::is_same_v<R, bool>, bool, std::conditional_t<std::is_same_v<R, C>, T, R>>;
      for_each_position<2>(out.shape(), {&out, &in}, [](const std::array<char*, 2>& p) {
        store_from_compute<Out>(p[0], fn::unary<Op>(load_as_compute<T>(p[1])));
      });
    }
  });
}

using BinaryFn = void (*)(const Tensor&, const Tensor&, const Tensor&);
using UnaryFn = void (*)(const Tensor&, const Tensor&);

template <std::size_t... I>
constexpr std::array<BinaryFn, sizeof...(I)> binary_table(std::index_sequence<I...>) {
  return {&binary_op<static_cast<BinaryOp>(I)>...};
}
template <std::size_t... I>
constexpr std::array<UnaryFn, sizeof...(I)> unary_table(std::index_sequence<I...>) {
  return {&unary_op<static_cast<UnaryOp>(I)>...};
}
constexpr auto kBinary = binary_table(std::make_index_sequence<kNumBinaryOps>());
constexpr auto kUnary = unary_table(std::make_index_sequence<kNumUnaryOps>());

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  kBinary[static_cast<std::size_t>(op)](out, a, b);
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in) { kUnary[static_cast<std::size_t>(op)](out, in); }

void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b) {
  const std::size_t size = size_of(a.dtype());
  for_each_position<4>(out.shape(), {&out, &pred, &a, &b}, [size](const std::array<char*, 4>& p) {
    bool take_a;
    std::memcpy(&take_a, p[1], 1);
    std::memcpy(p[0], take_a ? p[2] : p[3], size);
  });
}

bool any_zero(const Tensor& t) {
  bool zero = false;
  visit_dtype(t.dtype(), [&]<class T>() {
    for_each_position<1>(t.shape(), {&t}, [&](const std::array<char*, 1>& p) {
      zero = zero || !fn::truth(load_as_compute<T>(p[0]));
    });
  });
  return zero;
}

void copy(const Tensor& out, const Tensor& in) {
  const std::size_t size = size_of(in.dtype());
  for_each_position<2>(out.shape(), {&out, &in}, [size](const std::array<char*, 2>& p) {
    std::memcpy(p[0], p[1], size);
  });
}

void cast(const Tensor& out, const Tensor& in) {
  visit_dtype(out.dtype(), [&]<class To>() {
    visit_dtype(in.dtype(), [&]<class From>() {
      for_each_position<2>(out.shape(), {&out, &in}, [](const std::array<char*, 2>& p) {
        From v;
        std::memcpy(&v, p[1], sizeof(From));
        const To r = cast_value<To>(v);
        std::memcpy(p[0], &r, sizeof(To));
      });
    });
  });
}

}  // namespace tensora::reference
