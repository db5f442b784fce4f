// The FFT op set on traced tensors (tensora/fft.hpp): the same promotion as eager (a visible
// convert node), the same lowering (fft_detail::lower) over graph nodes, and one node for the
// primitive that runs the direct primitive and carries ad::FftRule.
#include "ad/fft_rules.hpp"
#include "direct/direct.hpp"
#include "graph/graph_builder.hpp"
#include "tensora/fft.hpp"
#include "tensora/traced.hpp"

namespace tensora {

namespace graph_detail {

namespace {

std::string spec_text(const fft_detail::Spec& spec) {
  static constexpr const char* kKinds[] = {"forward", "inverse", "real_to_complex", "complex_to_real"};
  std::string s = std::string("kind=") + kKinds[static_cast<int>(spec.kind)] + " axes=" + axes_text(spec.axes) +
                  " lengths=" + axes_text(spec.lengths);
  if (spec.scale != 1.0) s += " scale=" + std::to_string(spec.scale);
  return s;
}

}  // namespace

TracedTensor fft_node(const TracedTensor& x, const fft_detail::Spec& spec, Loc where) {
  check_operands("fft", {&x}, where);
  fft_detail::check_primitive(spec, x.shape(), x.dtype(), where);
  Node n;
  n.op = "fft";
  n.attrs = spec_text(spec);
  n.dtype = spec.output_dtype;
  n.shape = fft_detail::output_shape(spec, x.shape());
  n.device = x.device();
  n.where = where;
  n.inputs.push_back(x.node());
  n.exec = [spec, where](std::span<const Tensor> in, Engine& e) { return direct::fft_transform(in[0], spec, e, where); };
  n.rule = rule_of(ad::FftRule{spec});
  return make_traced(std::move(n));
}

}  // namespace graph_detail

namespace {

using namespace graph_detail;  // NOLINT: this layer's node factories
using fft_detail::Transform;

struct TracedOps {
  Loc where;
  const Shape& shape(const TracedTensor& x) const { return x.shape(); }
  DType dtype(const TracedTensor& x) const { return x.dtype(); }
  TracedTensor convert(const TracedTensor& x, DType d) { return convert_to(x, d, where); }
  TracedTensor conj(const TracedTensor& x) { return unary_node(UnaryOp::Conj, x, where); }
  TracedTensor slice(const TracedTensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop) {
    return x.slice(axis, start, stop, 1, where);
  }
  TracedTensor concat(std::vector<TracedTensor> xs, std::int64_t axis) {
    return tensora::concat(std::move(xs), axis, where);
  }
  TracedTensor pad(const TracedTensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& w) {
    return x.pad(w, {}, where);
  }
  TracedTensor transform(const TracedTensor& x, const fft_detail::Spec& spec) { return fft_node(x, spec, where); }
};

TracedTensor apply(Transform t, const char* op, fft_detail::Form, const TracedTensor& x, const fft::FftOptions& o,
                   Loc where) {
  const TracedTensor in = lapack_operand(op, x, where);
  TracedOps ops{where};
  return fft_detail::lower(ops, in, fft_detail::resolve(t, op, in.shape(), in.dtype(), o, where));
}
TracedTensor apply(Transform t, const char* op, fft_detail::Form form, const TracedTensor& x,
                   const fft::FftnOptions& o, Loc where) {
  const TracedTensor in = lapack_operand(op, x, where);
  TracedOps ops{where};
  return fft_detail::lower(ops, in, fft_detail::resolve(t, op, in.shape(), in.dtype(), o, form, where));
}

TracedTensor shift(const char* op, const TracedTensor& x, const std::vector<std::int64_t>& axes, bool inverse,
                   Loc where) {
  check_operands(op, {&x}, where);
  TracedOps ops{where};
  return fft_detail::roll(ops, x, fft_detail::shifts(op, x.shape(), axes, inverse, where));
}

}  // namespace

namespace fft {

#define TENSORA_FFT_TRACED(name, kind, form)                                                          \
  TracedTensor name(const TracedTensor& x, Loc where) {                                                  \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, TENSORA_FFT_OPTIONS_##form{}, where); \
  }                                                                                                      \
  TracedTensor name(const TracedTensor& x, const TENSORA_FFT_OPTIONS_##form& o, Loc where) {             \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, o, where);                          \
  }
TENSORA_FFT_TRANSFORMS(TENSORA_FFT_TRACED)
#undef TENSORA_FFT_TRACED

TracedTensor fftshift(const TracedTensor& x, Loc where) { return shift("fftshift", x, {}, false, where); }
TracedTensor fftshift(const TracedTensor& x, const std::vector<std::int64_t>& axes, Loc where) {
  return shift("fftshift", x, axes, false, where);
}
TracedTensor ifftshift(const TracedTensor& x, Loc where) { return shift("ifftshift", x, {}, true, where); }
TracedTensor ifftshift(const TracedTensor& x, const std::vector<std::int64_t>& axes, Loc where) {
  return shift("ifftshift", x, axes, true, where);
}

}  // namespace fft
}  // namespace tensora
