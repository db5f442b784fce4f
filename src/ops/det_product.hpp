// The determinant from LU factors (ops/linalg_spec.hpp, Kind::Det), one rule for every backend
// that factorizes in the matrix's own dtype: u(k, k) in diagonal order, negated where pivot k
// interchanged rows, multiplied with a product reduction's accumulator (F32 in double, C64 in
// complex double). Negation is exact, so the result is the product of the signed pivots that
// det's earlier composition (lu_factor, diagonal, signs, prod) gave, up to the sign of a zero;
// except that an exactly zero pivot makes the determinant exactly zero, where the product of
// the pivots before it may have overflowed (inf * 0 would be NaN).
#pragma once

#include <cstdint>

#include "ops/reducers.hpp"

namespace tensora {

template <class T>
class DetProduct {
 public:
  void step(T u_kk, bool interchanged) {
    singular_ = singular_ || u_kk == T(0);
    acc_ = R::step(acc_, interchanged ? -u_kk : u_kk);
    ++count_;
  }
  T value() const { return singular_ ? T(0) : R::finish(acc_, count_); }

 private:
  using R = Reducer<ReduceOp::Prod, T>;
  typename R::Acc acc_ = R::init();
  std::int64_t count_ = 0;
  bool singular_ = false;
};

}  // namespace tensora
