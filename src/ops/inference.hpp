// Shape and dtype inference of the ops that are not views, run by the traced front door on
// meta tensors (Tensor::meta: no data, no engine). They are the direct ops' own checks, so a graph
// rejects at build time exactly what the direct op would reject when it runs.
#pragma once

#include <string_view>
#include <vector>

#include "ops/reduction_catalog.hpp"
#include "tensora/tensor.hpp"

namespace tensora::infer {

struct Result {
  Shape shape;
  DType dtype;
};

// The elementwise catalog's dtype check: UnsupportedDType naming `name` (default: the op) with
// the catalog's hint when the op does not take `dtype` (clamp checks through maximum's entry).
[[noreturn]] void fail_elementwise_dtype(const ElementwiseInfo& op, DType dtype, SourceLocation where,
                                        std::string_view name);
inline void elementwise_accepts(const ElementwiseInfo& op, DType dtype, SourceLocation where,
                                std::string_view name = {}) {
  if (!accepts(op, dtype)) [[unlikely]] fail_elementwise_dtype(op, dtype, where, name);
}
// A binary elementwise op on operands of one dtype: the broadcast shape and the result dtype.
Result elementwise_binary(BinaryOp op, DType lhs, DType rhs, const Shape& lhs_shape, const Shape& rhs_shape,
                          SourceLocation where);
// select(pred, a, b): a Bool predicate, a and b of one dtype; the three shapes broadcast.
Shape select(DType pred, DType a, DType b, const Shape& pred_shape, const Shape& a_shape, const Shape& b_shape,
             SourceLocation where);

// A reduction, arg-reduction or scan of the catalog. For argmax/argmin and the scans `axes`
// holds the one axis.
Result reduction(Reduction op, const Tensor& x, const std::vector<std::int64_t>& axes, const ReduceOptions& options,
                 SourceLocation where);
// Contractions take operands of one numeric dtype.
void contraction_dtypes(std::string_view op, DType lhs, DType rhs, SourceLocation where);
// The result shape of dot_general (operands of one dtype).
Shape dot_general(const Tensor& lhs, const Tensor& rhs, const DotGeneralConfig& config, SourceLocation where);

// matmul as dot_general: the operands' broadcast shapes and the config.
struct MatmulForm {
  Shape lhs_shape, rhs_shape;
  DotGeneralConfig config;
};
MatmulForm matmul(const Tensor& lhs, const Tensor& rhs, SourceLocation where);

// The structural ops that allocate (views infer by running on the meta tensor itself). Index values
// are data: their range is checked when the op runs.
Shape pad(const Tensor& self, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
          const PadOptions& options, SourceLocation where);
Shape take_along_axis(std::string_view op, const Tensor& self, const Tensor& indices, std::int64_t axis,
                      SourceLocation where);
Shape index_select(const Tensor& self, std::int64_t axis, const Tensor& indices, SourceLocation where);
void scatter_add(const Tensor& self, std::int64_t axis, const Tensor& indices, const Tensor& src,
                 SourceLocation where);
void triangle(std::string_view op, const Tensor& self, SourceLocation where);
Shape embed_diag(const Tensor& self, std::int64_t offset, SourceLocation where);
Shape concat(const std::vector<Tensor>& tensors, std::int64_t axis, SourceLocation where);
Shape stack(const std::vector<Tensor>& tensors, std::int64_t axis, SourceLocation where);

}  // namespace tensora::infer
