// Session lifecycle, elementwise ops, clamp, select, convert/cast and the operators.
#include "eager/session_support.hpp"
#include "direct/direct.hpp"

namespace tensora {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {
thread_local EagerSession* t_active = nullptr;

constexpr OpPolicy elementwise_policy(const ElementwiseInfo& inf) {
  return {inf.accepts, 0};
}

EagerTensor binary_tt(EagerSession& s, BinaryOp op, const EagerTensor& a, const EagerTensor& b,
                      SourceLocation where) {
  const auto& inf = info(op);
  check_inputs(inf.name, s.engine(), {&a, &b}, where);
  const DType target = plan_target(elementwise_policy(inf), {&a, &b}, s.engine());
  EagerTensor a_converted, b_converted;
  const EagerTensor& ca = in_dtype(a, target, s.engine(), where, a_converted);
  const EagerTensor& cb = in_dtype(b, target, s.engine(), where, b_converted);
  Tensor out = direct::binary(op, value_of(ca), value_of(cb), s.engine(), where);
  if (!ad::differentiable(op, target)) return constant_node(std::move(out));
  return record(ad::BinaryRule{op}, std::array<const EagerTensor*, 2>{&ca, &cb}, std::move(out));
}

// A weak scalar becomes a 0-d constant of the planned dtype (validate::weak_scalar rejects a
// value that does not fit, e.g. U8 + 300), then the tensor-tensor path runs.
EagerTensor binary_ts(EagerSession& s, BinaryOp op, const EagerTensor& a, const Scalar& v,
                      bool scalar_left, SourceLocation where) {
  const auto& inf = info(op);
  check_inputs(inf.name, s.engine(), {&a}, where);
  const DType target = scalar_target(inf.accepts, a.dtype(), v.kind(), s.engine().device());
  const EagerTensor c =
      constant_node(validate::weak_scalar(inf.name, v, target, a.device(), where));
  return scalar_left ? binary_tt(s, op, c, a, where) : binary_tt(s, op, a, c, where);
}

EagerTensor unary(EagerSession& s, UnaryOp op, const EagerTensor& x, SourceLocation where) {
  const auto& inf = info(op);
  check_inputs(inf.name, s.engine(), {&x}, where);
  const DType target = plan_target(elementwise_policy(inf), {&x}, s.engine());
  EagerTensor converted;
  const EagerTensor& cx = in_dtype(x, target, s.engine(), where, converted);
  Tensor out = direct::unary(op, value_of(cx), s.engine(), where);
  if (!ad::differentiable(op, target)) return constant_node(std::move(out));
  return record(ad::UnaryRule{op}, std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

EagerSession& active_for(const char* op) {
  if (t_active == nullptr)
    throw Error(ErrorKind::InvalidArgument, op,
                "eager operators need an active session: use them inside with_eager_session",
                InvalidArgument{"session"});
  return *t_active;
}
}  // namespace

EagerSession::EagerSession(Engine& engine) : engine_(engine) {}
EagerSession::~EagerSession() {
  if (installed_) t_active = previous_;
}
void EagerSession::install() {
  previous_ = t_active;
  t_active = this;
  installed_ = true;
}
EagerSession* EagerSession::active() {
  return t_active;
}

EagerTensor EagerSession::constant(const Tensor& value) const {
  if (!value.defined())
    check::fail_invalid("constant", "the tensor is empty", "tensor", Loc::current());
  return constant_node(value);
}

#define TENSORA_EAGER_BINARY(name, Op, ...)                           \
  EagerTensor EagerSession::name(const T& a, const T& b, Loc where) { \
    return binary_tt(*this, BinaryOp::Op, a, b, where);               \
  }                                                                   \
  EagerTensor EagerSession::name(const T& a, Scalar b, Loc where) {   \
    return binary_ts(*this, BinaryOp::Op, a, b, false, where);        \
  }                                                                   \
  EagerTensor EagerSession::name(Scalar a, const T& b, Loc where) {   \
    return binary_ts(*this, BinaryOp::Op, b, a, true, where);         \
  }
#define TENSORA_EAGER_UNARY(name, Op, ...)                \
  EagerTensor EagerSession::name(const T& x, Loc where) { \
    return unary(*this, UnaryOp::Op, x, where);           \
  }
TENSORA_BINARY_OPS(TENSORA_EAGER_BINARY)
TENSORA_UNARY_OPS(TENSORA_EAGER_UNARY)
#undef TENSORA_EAGER_BINARY
#undef TENSORA_EAGER_UNARY

EagerTensor EagerSession::clamp(const T& x, Scalar lo, Scalar hi, Loc where) {
  check_inputs("clamp", engine_, {&x}, where);
  const auto accepts = policy("clamp").accepts;
  const DType t1 = scalar_target(accepts, x.dtype(), lo.kind(), engine_.device());
  const DType target = scalar_target(accepts, t1, hi.kind(), engine_.device());
  const EagerTensor cx = convert_to(x, target, engine_, where);
  Tensor out = cx.value().clamp(lo, hi, engine_, where);
  return record(ad::ClampRule{lo, hi}, std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

EagerTensor EagerSession::clamp(const T& x, const T& lo, const T& hi, Loc where) {
  check_inputs("clamp", engine_, {&x, &lo, &hi}, where);
  return minimum(maximum(x, lo, where), hi, where);
}

EagerTensor EagerSession::select(const T& pred, const T& a, const T& b, Loc where) {
  check_inputs("select", engine_, {&pred, &a, &b}, where);
  const DType target = plan_target(policy("select"), {&a, &b}, engine_);
  const EagerTensor ca = convert_to(a, target, engine_, where);
  const EagerTensor cb = convert_to(b, target, engine_, where);
  Tensor out = tensora::select(pred.value(), ca.value(), cb.value(), engine_, where);
  return record(ad::SelectRule{}, std::array<const EagerTensor*, 3>{&pred, &ca, &cb},
                std::move(out));
}

EagerTensor EagerSession::convert(const T& x, DType dtype, Loc where) {
  check_inputs("convert", engine_, {&x}, where);
  if (x.dtype() == dtype) return x;
  Tensor out = x.value().convert(dtype, engine_, where);
  return record(ad::CastRule{}, std::array<const EagerTensor*, 1>{&x}, std::move(out));
}

EagerTensor EagerSession::cast(const T& x, DType dtype, Loc where) {
  check_inputs("cast", engine_, {&x}, where);
  if (x.dtype() == dtype) return x;
  Tensor out = x.value().cast(dtype, engine_, where);
  return record(ad::CastRule{}, std::array<const EagerTensor*, 1>{&x}, std::move(out));
}

#define TENSORA_EAGER_OPERATOR(sym, method)                              \
  EagerTensor operator sym(const EagerTensor& a, const EagerTensor& b) { \
    return active_for("operator" #sym).method(a, b);                     \
  }                                                                      \
  EagerTensor operator sym(const EagerTensor& a, Scalar b) {             \
    return active_for("operator" #sym).method(a, b);                     \
  }                                                                      \
  EagerTensor operator sym(Scalar a, const EagerTensor& b) {             \
    return active_for("operator" #sym).method(a, b);                     \
  }
TENSORA_EAGER_OPERATOR(+, add)
TENSORA_EAGER_OPERATOR(-, sub)
TENSORA_EAGER_OPERATOR(*, mul)
TENSORA_EAGER_OPERATOR(/, div)
#undef TENSORA_EAGER_OPERATOR

EagerTensor operator-(const EagerTensor& x) {
  return active_for("operator-").neg(x);
}

}  // namespace tensora
