// The FFT op set on eager tensors (tensora/fft.hpp): the thread's active session promotes
// integer, Bool and half inputs to the default float (a recorded convert), then lowers the call
// with recorded session ops and one recorded primitive (ad::FftRule).
#include "ad/fft_rules.hpp"
#include "eager/session_support.hpp"
#include "tensora/fft.hpp"

namespace tensora {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {

using fft_detail::Spec;
using fft_detail::Transform;
using Loc = SourceLocation;

struct EagerOps {
  EagerSession& s;
  Loc where;
  const Shape& shape(const EagerTensor& x) const { return x.shape(); }
  DType dtype(const EagerTensor& x) const { return x.dtype(); }
  EagerTensor convert(const EagerTensor& x, DType d) { return convert_to(x, d, s.engine(), where); }
  EagerTensor conj(const EagerTensor& x) { return s.conj(x, where); }
  EagerTensor slice(const EagerTensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop) {
    return s.slice(x, axis, start, stop, 1, where);
  }
  EagerTensor concat(std::vector<EagerTensor> xs, std::int64_t axis) { return s.concat(std::move(xs), axis, where); }
  EagerTensor pad(const EagerTensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& w) {
    return s.pad(x, w, {}, where);
  }
  EagerTensor transform(const EagerTensor& x, const Spec& spec) {
    Tensor out = direct::fft_transform(x.value(), spec, s.engine(), where);
    return record(ad::FftRule{spec}, std::array<const EagerTensor*, 1>{&x}, std::move(out));
  }
};

EagerTensor apply(Transform t, const char* op, fft_detail::Form, const EagerTensor& x, const fft::FftOptions& o,
                  Loc where) {
  auto [s, in] = lapack_operand(op, x, where);
  EagerOps ops{s, where};
  return fft_detail::lower(ops, in, fft_detail::resolve(t, op, in.shape(), in.dtype(), o, where));
}

EagerTensor apply(Transform t, const char* op, fft_detail::Form form, const EagerTensor& x,
                  const fft::FftnOptions& o, Loc where) {
  auto [s, in] = lapack_operand(op, x, where);
  EagerOps ops{s, where};
  return fft_detail::lower(ops, in, fft_detail::resolve(t, op, in.shape(), in.dtype(), o, form, where));
}

EagerTensor shift(const char* op, const EagerTensor& x, const std::vector<std::int64_t>& axes, bool inverse,
                  Loc where) {
  EagerSession& s = active_session(op, where);
  check_inputs(op, s.engine(), {&x}, where);
  EagerOps ops{s, where};
  return fft_detail::roll(ops, x, fft_detail::shifts(op, x.shape(), axes, inverse, where));
}

}  // namespace

namespace fft {

#define TENSORA_FFT_EAGER(name, kind, form)                                                        \
  EagerTensor name(const EagerTensor& x, Loc where) {                                                     \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, TENSORA_FFT_OPTIONS_##form{}, where); \
  }                                                                                                       \
  EagerTensor name(const EagerTensor& x, const TENSORA_FFT_OPTIONS_##form& o, Loc where) {                \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, o, where);                      \
  }
TENSORA_FFT_TRANSFORMS(TENSORA_FFT_EAGER)
#undef TENSORA_FFT_EAGER

EagerTensor fftshift(const EagerTensor& x, Loc where) { return shift("fftshift", x, {}, false, where); }
EagerTensor fftshift(const EagerTensor& x, const std::vector<std::int64_t>& axes, Loc where) {
  return shift("fftshift", x, axes, false, where);
}
EagerTensor ifftshift(const EagerTensor& x, Loc where) { return shift("ifftshift", x, {}, true, where); }
EagerTensor ifftshift(const EagerTensor& x, const std::vector<std::int64_t>& axes, Loc where) {
  return shift("ifftshift", x, axes, true, where);
}

}  // namespace fft
}  // namespace tensora
