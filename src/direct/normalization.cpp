// softmax and log_softmax along one axis, composed from the direct ops: the max is subtracted
// first (so exp never overflows), and F16/BF16 inputs are computed in F32 and rounded once.
#include "core/checks.hpp"
#include "direct/direct.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

Tensor direct::axis_op(AxisOp op, const Tensor& x, std::int64_t axis, Engine& engine, SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  validate::operands(inf.name, engine, {&x}, where);
  infer::elementwise_accepts(inf, x.dtype(), where);
  const std::int64_t a = check::axis(inf.name, axis, x.rank(), where);
  if (x.numel() == 0) return Tensor::empty(x.shape(), x.dtype(), x.device(), where);
  const bool half = size_of(x.dtype()) == 2;
  const Tensor xc = half ? x.convert(DType::F32, engine, where) : x;
  const ReduceOptions keep{true, 0};
  // x - max: a lane of -inf only, or with a +inf, is NaN there, as in PyTorch and JAX.
  const Tensor z = xc.sub(xc.max({a}, keep, engine, where), engine, where);
  const Tensor e = z.exp(engine, where);
  const Tensor s = e.sum({a}, keep, engine, where);
  const Tensor out = op == AxisOp::Softmax ? e.div(s, engine, where) : z.sub(s.log(engine, where), engine, where);
  return half ? out.cast(x.dtype(), engine, where) : out;
}

#define TENSORA_DEFINE_AXIS_OP(method, Op, ...)                                   \
  Tensor Tensor::method(std::int64_t axis, Engine& engine, Loc where) const {     \
    return direct::axis_op(AxisOp::Op, *this, axis, engine, where);               \
  }
TENSORA_AXIS_OPS(TENSORA_DEFINE_AXIS_OP)
#undef TENSORA_DEFINE_AXIS_OP

}  // namespace tensora
