#include "ops/fft_spec.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/checks.hpp"

namespace tensora::fft_detail {

namespace {

using fft::Norm;

const char* const kConvertHint = "convert to F32 or F64 (complex: C64 or C128) first, e.g. x.convert(DType::F32, e)";

// Out of line: the messages are built only when a call fails.
[[noreturn, gnu::cold, gnu::noinline]] void fail_dtype(std::string_view op, DType dtype, const SourceLocation& where) {
  if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::C64 && dtype != DType::C128)
    check::fail_unsupported_dtype(op, dtype, std::string("transforms take F32, F64, C64 or C128; ") + kConvertHint,
                                  where);
  check::fail_unsupported_dtype(op, dtype,
                                std::string(op) + " takes a real input; use fft for a complex one, or take real() "
                                                  "first",
                                where);
}

void check_dtype(Transform t, std::string_view op, DType dtype, const SourceLocation& where) {
  const bool supported = dtype == DType::F32 || dtype == DType::F64 || dtype == DType::C64 || dtype == DType::C128;
  if (!supported || ((t == Transform::Rfft || t == Transform::Ihfft) && is_complex(dtype))) [[unlikely]]
    fail_dtype(op, dtype, where);
}

Kind kind_of(Transform t) {
  switch (t) {
    case Transform::Fft: return Kind::Forward;
    case Transform::Ifft: return Kind::Inverse;
    case Transform::Rfft:
    case Transform::Ihfft: return Kind::RealToComplex;
    case Transform::Irfft:
    case Transform::Hfft: return Kind::ComplexToReal;
  }
  return Kind::Forward;
}

// numpy.fft's norms; hfft and ihfft are irfft / rfft with the direction swapped, so hfft
// scales as a forward transform and ihfft as an inverse one.
double scale_of(Transform t, Norm norm, double points) {
  const bool forward = t == Transform::Fft || t == Transform::Rfft || t == Transform::Hfft;
  switch (norm) {
    case Norm::Backward: return forward ? 1.0 : 1.0 / points;
    case Norm::Ortho: return 1.0 / std::sqrt(points);
    case Norm::Forward: return forward ? 1.0 / points : 1.0;
  }
  return 1.0;
}

// Out of line, as fail_dtype: the message is built only on failure.
[[noreturn, gnu::cold, gnu::noinline]] void fail_default_length(std::string_view op, bool half, std::int64_t m,
                                                                 std::int64_t n, std::int64_t axis,
                                                                 const SourceLocation& where) {
  check::fail_invalid(op,
                      half ? "axis " + std::to_string(axis) + " has " + std::to_string(m) +
                                 " points, which give 2 * (m - 1) = " + std::to_string(n) +
                                 " output points; pass the output length n"
                           : "axis " + std::to_string(axis) + " has no points; pass a length n >= 1 to zero-pad",
                      "n", where);
}

// The signal length along an axis with m input points when the caller gave none.
std::int64_t default_length(std::string_view op, Transform t, bool last, std::int64_t m, std::int64_t axis,
                            const SourceLocation& where) {
  const bool half = last && (t == Transform::Irfft || t == Transform::Hfft);
  const std::int64_t n = half ? 2 * (m - 1) : m;
  if (n < 1) [[unlikely]] fail_default_length(op, half, m, n, axis, where);
  return n;
}

void check_length(std::string_view op, std::int64_t n, const char* argument, const SourceLocation& where) {
  if (n < 1)
    check::fail_invalid(op, std::string("the signal length must be at least 1, got ") + std::to_string(n), argument,
                        where);
}

// Whether the element count of `shape` with the spec's input (or output) extents along its axes
// overflows int64. The input's own shape is valid, so only the new extents can make it so.
bool count_overflows(const Spec& spec, const Shape& shape, bool output) {
  std::int64_t span = 1;
  bool overflow = false;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    const std::int64_t extent = extent_along(spec, shape, a, output);
    overflow |= __builtin_mul_overflow(span, extent > 0 ? extent : 1, &span);
  }
  return overflow;
}

// Completes `spec` (kind and axes with their lengths set) for transform `t` of an input of
// `shape` and `dtype`: scale, conj steps, dtypes, and the check that both of the primitive's
// shapes are representable (one buffer serves both).
void finish(Spec& spec, Transform t, DType dtype, Norm norm, std::string_view op, const Shape& shape,
            const SourceLocation& where) {
  double points = 1;
  for (const std::int64_t n : spec.lengths) points *= static_cast<double>(n);
  spec.scale = scale_of(t, norm, points);
  spec.conj_input = t == Transform::Hfft;
  spec.conj_output = t == Transform::Ihfft;
  spec.input_dtype = spec.kind == Kind::RealToComplex ? dtype : complex_dtype(dtype);
  spec.output_dtype = spec.kind == Kind::ComplexToReal ? real_dtype(spec.input_dtype) : complex_dtype(dtype);
  // Only an axis that grows can make a count overflow (the input's shape is valid); the counts
  // are then taken in place, and the shapes built (for the error's message) only when one fails.
  bool grows = false;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::int64_t have = shape[static_cast<std::size_t>(spec.axes[i])];
    grows = grows || input_extent(spec, i) > have || output_extent(spec, i) > have;
  }
  if (grows && (count_overflows(spec, shape, false) || count_overflows(spec, shape, true))) [[unlikely]] {
    Shape extents = shape;
    for (std::size_t i = 0; i < spec.axes.size(); ++i)
      extents[static_cast<std::size_t>(spec.axes[i])] = input_extent(spec, i);
    check::valid_shape(op, extents, where);
    set_output_extents(spec, extents);
    check::valid_shape(op, extents, where);
  }
}

}  // namespace

void set_output_extents(const Spec& spec, Shape& shape) {
  for (std::size_t i = 0; i < spec.axes.size(); ++i) shape[static_cast<std::size_t>(spec.axes[i])] = output_extent(spec, i);
}

Shape output_shape(const Spec& spec, const Shape& shape) {
  Shape out = shape;
  set_output_extents(spec, out);
  return out;
}

namespace {

Spec resolve_one_axis(Transform t, std::string_view op, const Shape& shape, DType dtype,
                      const fft::FftOptions& options, const SourceLocation& where) {
  const std::int64_t axis = check::axis(op, options.axis, static_cast<std::int64_t>(shape.size()), where);
  check_dtype(t, op, dtype, where);
  const std::int64_t m = shape[static_cast<std::size_t>(axis)];
  std::int64_t n = 0;
  if (options.n) {
    n = *options.n;
    check_length(op, n, "n", where);
  } else {
    n = default_length(op, t, true, m, axis, where);
  }
  Spec spec;
  spec.kind = kind_of(t);
  spec.axes.push_back(axis);
  spec.lengths.push_back(n);
  finish(spec, t, dtype, options.norm, op, shape, where);
  return spec;
}

}  // namespace

Spec resolve(Transform t, std::string_view op, const Shape& shape, DType dtype, const fft::FftOptions& options,
             const SourceLocation& where) {
  // The thread's last resolution, kept with its arguments: a loop of transforms of one shape
  // (the common small case; resolving is ~250 instructions of a 1.3 us 1024-point transform)
  // resolves once. Only a call that succeeded is kept, so a hit is a call that would succeed
  // with this very spec (`op` names errors only).
  struct Last {
    bool valid = false;
    Transform t{};
    DType dtype{};
    fft::FftOptions options;
    Shape shape;
    Spec spec{};
  };
  thread_local Last last;
  if (last.valid && last.t == t && last.dtype == dtype && last.options.axis == options.axis &&
      last.options.n == options.n && last.options.norm == options.norm && last.shape == shape)
    return last.spec;
  Spec spec = resolve_one_axis(t, op, shape, dtype, options, where);
  last.valid = false;  // until every field is written (an allocation below may throw)
  last.shape = shape;
  last.t = t;
  last.dtype = dtype;
  last.options = options;
  last.spec = spec;
  last.valid = true;
  return spec;
}

Spec resolve(Transform t, std::string_view op, const Shape& shape, DType dtype, const fft::FftnOptions& options,
             Form form, const SourceLocation& where) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  AxisList axes;
  if (!options.axes.empty()) {
    for (const std::int64_t a : options.axes) {
      const std::int64_t axis = check::axis(op, a, rank, where);
      if (std::find(axes.begin(), axes.end(), axis) != axes.end())
        check::fail_invalid(op, "axis " + std::to_string(a) + " is repeated in axes; each axis is transformed once",
                            "axes", where);
      axes.push_back(axis);
    }
  } else {
    const std::int64_t count = options.s ? static_cast<std::int64_t>(options.s->size())
                               : form == Form::Two ? 2
                                                   : rank;
    if (count > rank || count == 0)
      check::fail_invalid(op,
                          "needs " + std::to_string(std::max<std::int64_t>(count, 1)) + " axes, the input has " +
                              std::to_string(rank),
                          options.s ? "s" : "axes", where);
    for (std::int64_t a = rank - count; a < rank; ++a) axes.push_back(a);
  }
  check_dtype(t, op, dtype, where);
  if (options.s && options.s->size() != axes.size())
    check::fail_invalid(op,
                        "s has " + std::to_string(options.s->size()) + " lengths for " + std::to_string(axes.size()) +
                            " axes; give one length per axis",
                        "s", where);
  AxisList lengths;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (options.s) {
      lengths.push_back((*options.s)[i]);
      check_length(op, lengths.back(), "s", where);
    } else {
      lengths.push_back(default_length(op, t, i + 1 == axes.size(), shape[static_cast<std::size_t>(axes[i])], axes[i],
                                       where));
    }
  }
  Spec spec;
  spec.kind = kind_of(t);
  spec.axes = std::move(axes);
  spec.lengths = std::move(lengths);
  finish(spec, t, dtype, options.norm, op, shape, where);
  return spec;
}

void check_primitive(const Spec& spec, const Shape& shape, DType dtype, const SourceLocation& where) {
  constexpr std::string_view op = "fft";
  if (dtype != spec.input_dtype) check::fail_dtype_mismatch(op, spec.input_dtype, dtype, where);
  for (const std::int64_t a : spec.axes) check::axis(op, a, static_cast<std::int64_t>(shape.size()), where);
  if (has_input_extents(spec, shape)) return;
  Shape want = shape;  // the message's expected shape: the input with the transform's extents
  for (std::size_t i = 0; i < spec.axes.size(); ++i) want[static_cast<std::size_t>(spec.axes[i])] = input_extent(spec, i);
  check::fail_shape(op, "the input does not have the transform's extents", want, shape, where);
}

Spec adjoint(const Spec& spec) {
  Spec a = spec;
  a.conj_input = a.conj_output = false;
  switch (spec.kind) {
    case Kind::Forward: a.kind = Kind::Inverse; break;
    case Kind::Inverse: a.kind = Kind::Forward; break;
    case Kind::RealToComplex: a.kind = Kind::ComplexToReal; break;
    case Kind::ComplexToReal: a.kind = Kind::RealToComplex; break;
  }
  a.input_dtype = spec.output_dtype;
  a.output_dtype = spec.input_dtype;
  return a;
}


std::vector<std::pair<std::int64_t, std::int64_t>> shifts(std::string_view op, const Shape& shape,
                                                          const std::vector<std::int64_t>& axes, bool inverse,
                                                          const SourceLocation& where) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> list;
  if (axes.empty()) {
    for (std::int64_t a = 0; a < rank; ++a) list.push_back(a);
  } else {
    for (const std::int64_t a : axes) {
      const std::int64_t axis = check::axis(op, a, rank, where);
      if (std::find(list.begin(), list.end(), axis) != list.end())
        check::fail_invalid(op, "axis " + std::to_string(a) + " is repeated in axes", "axes", where);
      list.push_back(axis);
    }
  }
  // fftshift rolls by n/2 (split n - n/2), ifftshift back (split n/2).
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const std::int64_t a : list) {
    const std::int64_t n = shape[static_cast<std::size_t>(a)];
    const std::int64_t split = inverse ? n / 2 : n - n / 2;
    if (split != 0 && split != n) out.emplace_back(a, split);
  }
  return out;
}

}  // namespace tensora::fft_detail
