// EagerTensor's methods: each runs the session op of the same name on the thread's active
// session, so x.exp() inside with_eager_session is s.exp(x).
#include "core/checks.hpp"
#include "eager/session_support.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace {
EagerSession& session(std::string_view op, SourceLocation where) { return eager_detail::active_session(op, where); }
}  // namespace

using T = EagerTensor;

#define TENSORA_EAGER_TENSOR_BINARY(name, ...)                                                      \
  T T::name(const T& other, Loc where) const { return session(#name, where).name(*this, other, where); } \
  T T::name(Scalar other, Loc where) const { return session(#name, where).name(*this, other, where); }
#define TENSORA_EAGER_TENSOR_UNARY(name, ...) \
  T T::name(Loc where) const { return session(#name, where).name(*this, where); }
#define TENSORA_EAGER_TENSOR_REDUCTION_Axes(name)                                                      \
  T T::name(Axes axes, ReduceOptions options, Loc where) const {                                       \
    return session(#name, where).name(*this, std::move(axes), options, where);                         \
  }                                                                                                    \
  T T::name(Loc where) const { return session(#name, where).name(*this, where); }
#define TENSORA_EAGER_TENSOR_REDUCTION_Axis(name) \
  T T::name(std::int64_t axis, Loc where) const { return session(#name, where).name(*this, axis, where); }
#define TENSORA_EAGER_TENSOR_REDUCTION(name, Enum, accepts, result, ad, form, ...) \
  TENSORA_EAGER_TENSOR_REDUCTION_##form(name)
#define TENSORA_EAGER_TENSOR_REDUCTION_Scan TENSORA_EAGER_TENSOR_REDUCTION_Axis
#define TENSORA_EAGER_TENSOR_AXIS_OP(name, ...) TENSORA_EAGER_TENSOR_REDUCTION_Axis(name)
TENSORA_BINARY_OPS(TENSORA_EAGER_TENSOR_BINARY)
TENSORA_UNARY_OPS(TENSORA_EAGER_TENSOR_UNARY)
TENSORA_REDUCTIONS(TENSORA_EAGER_TENSOR_REDUCTION)
TENSORA_AXIS_OPS(TENSORA_EAGER_TENSOR_AXIS_OP)
#undef TENSORA_EAGER_TENSOR_BINARY
#undef TENSORA_EAGER_TENSOR_UNARY
#undef TENSORA_EAGER_TENSOR_REDUCTION
#undef TENSORA_EAGER_TENSOR_REDUCTION_Axes
#undef TENSORA_EAGER_TENSOR_REDUCTION_Axis
#undef TENSORA_EAGER_TENSOR_REDUCTION_Scan
#undef TENSORA_EAGER_TENSOR_AXIS_OP

T T::clamp(Scalar lo, Scalar hi, Loc where) const { return session("clamp", where).clamp(*this, lo, hi, where); }
T T::clamp(const T& lo, const T& hi, Loc where) const { return session("clamp", where).clamp(*this, lo, hi, where); }
T T::convert(DType dtype, Loc where) const { return session("convert", where).convert(*this, dtype, where); }
T T::cast(DType dtype, Loc where) const { return session("cast", where).cast(*this, dtype, where); }
T T::matmul(const T& rhs, Loc where) const { return session("matmul", where).matmul(*this, rhs, where); }
T T::dot_general(const T& rhs, DotGeneralConfig config, Loc where) const {
  return session("dot_general", where).dot_general(*this, rhs, std::move(config), where);
}
T T::reshape(Shape shape, Loc where) const { return session("reshape", where).reshape(*this, std::move(shape), where); }
T T::permute(Axes axes, Loc where) const { return session("permute", where).permute(*this, std::move(axes), where); }
T T::transpose(Loc where) const { return session("transpose", where).transpose(*this, where); }
T T::transpose(std::int64_t a, std::int64_t b, Loc where) const {
  return session("transpose", where).transpose(*this, a, b, where);
}
T T::broadcast_to(Shape shape, Loc where) const {
  return session("broadcast_to", where).broadcast_to(*this, std::move(shape), where);
}
T T::expand(Shape shape, Loc where) const { return session("expand", where).expand(*this, std::move(shape), where); }
std::vector<T> T::split(std::vector<std::int64_t> sizes, std::int64_t axis, Loc where) const {
  return session("split", where).split(*this, std::move(sizes), axis, where);
}
T T::slice(std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::int64_t step,
           Loc where) const {
  return session("slice", where).slice(*this, axis, start, stop, step, where);
}
T T::squeeze(Axes axes, Loc where) const { return session("squeeze", where).squeeze(*this, std::move(axes), where); }
T T::unsqueeze(std::int64_t axis, Loc where) const { return session("unsqueeze", where).unsqueeze(*this, axis, where); }
T T::reverse(Axes axes, Loc where) const { return session("reverse", where).reverse(*this, std::move(axes), where); }
T T::pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options, Loc where) const {
  return session("pad", where).pad(*this, std::move(widths), options, where);
}
T T::take_along_axis(const T& indices, std::int64_t axis, Loc where) const {
  return session("take_along_axis", where).take_along_axis(*this, indices, axis, where);
}
T T::gather(const T& indices, std::int64_t axis, Loc where) const {
  return session("gather", where).gather(*this, indices, axis, where);
}
T T::index_select(std::int64_t axis, const T& indices, Loc where) const {
  return session("index_select", where).index_select(*this, axis, indices, where);
}
T T::scatter_add(std::int64_t axis, const T& indices, const T& src, Loc where) const {
  return session("scatter_add", where).scatter_add(*this, axis, indices, src, where);
}
T T::tril(std::int64_t k, Loc where) const { return session("tril", where).tril(*this, k, where); }
T T::triu(std::int64_t k, Loc where) const { return session("triu", where).triu(*this, k, where); }
T T::diagonal(std::int64_t offset, std::int64_t axis1, std::int64_t axis2, Loc where) const {
  return session("diagonal", where).diagonal(*this, offset, axis1, axis2, where);
}
T T::embed_diag(std::int64_t offset, Loc where) const {
  return session("embed_diag", where).embed_diag(*this, offset, where);
}

}  // namespace tensora
