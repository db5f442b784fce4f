// Helpers every session op uses: the device check and the recorded convert step.
#pragma once

#include <initializer_list>

#include "ad/elementwise_rules.hpp"
#include "core/checks.hpp"
#include "frontdoor/promotion.hpp"
#include "eager/recording.hpp"
#include "ops/lapack_dtypes.hpp"

namespace tensora::eager_detail {

using namespace frontdoor;  // NOLINT: the promotion plan is this layer's base

// The thread's active session, for the forms that take no session argument (EagerTensor's
// methods, the fft:: functions); InvalidArgument outside with_eager_session.
inline EagerSession& active_session(std::string_view op, SourceLocation where) {
  EagerSession* s = EagerSession::active();
  if (s == nullptr)
    throw Error(ErrorKind::InvalidArgument, std::string(op),
                "eager tensor methods need an active session: use them inside with_eager_session",
                InvalidArgument{"session"}, where);
  return *s;
}

// Every input is defined and lives on the engine's device (checked before any convert).
inline void check_inputs(std::string_view op, Engine& e,
                         std::initializer_list<const EagerTensor*> xs, SourceLocation where) {
  for (const auto* x : xs) {
    if (!x->defined())
      check::fail_invalid(op, "an eager tensor operand is empty (default-constructed)", "tensor",
                          where);
    if (value_of(*x).device() != e.device())
      check::fail_device_mismatch(op, e.device(), value_of(*x).device(), where);
  }
}

// The visible convert step of the promotion plan; recorded so cotangents flow back through it
// in the input's own dtype.
inline EagerTensor convert_to(const EagerTensor& x, DType target, Engine& e, SourceLocation where) {
  if (x.dtype() == target) return x;
  Tensor out = x.value().convert(target, e, where);
  return record(ad::CastRule{}, std::array<const EagerTensor*, 1>{&x}, std::move(out));
}

// The thread's session and `x` checked and promoted to a LAPACK dtype (ops/lapack_dtypes.hpp):
// the first step of every linalg and fft function.
struct LapackOperand {
  EagerSession& s;
  EagerTensor x;
};
inline LapackOperand lapack_operand(std::string_view op, const EagerTensor& x, SourceLocation where) {
  EagerSession& s = active_session(op, where);
  check_inputs(op, s.engine(), {&x}, where);
  return {s, convert_to(x, promoted_to_lapack_dtype(x.dtype(), s.engine().device().settings().float_dtype),
                        s.engine(), where)};
}

// convert_to for an op's own operands: `x` itself when it has the dtype already (no handle
// copy, so no reference-count traffic on the hot path), else the converted tensor, kept in
// `converted`.
inline const EagerTensor& in_dtype(const EagerTensor& x, DType target, Engine& e, SourceLocation where,
                                   EagerTensor& converted) {
  if (value_of(x).dtype() == target) return x;
  converted = convert_to(x, target, e, where);
  return converted;
}

// The join of several inputs under an op's policy.
inline DType plan_target(const OpPolicy& p, std::initializer_list<const EagerTensor*> xs,
                         Engine& e) {
  auto it = xs.begin();
  LatticeType j = value_of(**it).dtype();
  for (++it; it != xs.end(); ++it) {
    j = join(j, value_of(**it).dtype());
  }
  return apply_policy(p.accepts, j, e.device());
}

}  // namespace tensora::eager_detail
