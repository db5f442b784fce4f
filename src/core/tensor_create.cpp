// Creation: every path resolves the dtype (explicit wins, else the device default for the
// value's kind) and converts values without silent loss.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "core/checks.hpp"
#include "core/device_registry.hpp"
#include "core/dispatch.hpp"
#include "core/format.hpp"
#include "core/random.hpp"
#include "core/storage.hpp"
#include "core/strided_loop.hpp"
#include "core/value_cast.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

namespace {

DType default_dtype_for(Scalar::Kind k, const DeviceSettings& s) {
  switch (k) {
    case Scalar::Kind::Bool: return s.bool_dtype;
    case Scalar::Kind::Int: return s.int_dtype;
    case Scalar::Kind::Float: return s.float_dtype;
    case Scalar::Kind::Complex: return s.complex_dtype();
  }
  return s.float_dtype;
}

// The dtype a creation call makes: explicit, else the device's default for `kind`.
DType resolve_dtype(const TensorOptions& options, Scalar::Kind kind) {
  if (options.dtype) return *options.dtype;
  return default_dtype_for(kind, settings_for_new_tensor(options.device));
}

[[noreturn]] void fail_value(std::string_view op, const std::string& value, std::int64_t index,
                             DType target, SourceLocation where) {
  check::fail_invalid(op,
                      "value " + value + (index >= 0 ? " at index " + std::to_string(index) : "") +
                          " does not fit dtype " + std::string(name(target)) +
                          " without loss; pass a wider dtype, or create it as is and cast()",
                      "values", where);
}

// Writes `count` source elements (dense, in the column-major order of dst's shape) into the
// strided view `dst`, checking every value.
void fill_converted(std::string_view op, const void* src, DType src_dtype, const Tensor& dst,
                    SourceLocation where, std::int64_t first_index = 0) {
  const auto src_size = static_cast<std::int64_t>(size_of(src_dtype));
  const auto dst_size = static_cast<std::int64_t>(size_of(dst.dtype()));
  Strides dst_bytes = dst.strides(), src_bytes = col_major_strides(dst.shape());
  for (auto& s : dst_bytes) s *= dst_size;
  for (auto& s : src_bytes) s *= src_size;
  // The source is operand 0 so that reading it stays sequential and the index of a bad value
  // is its position in the caller's vector.
  auto loop = make_strided_loop<2>(
      dst.shape(),
      {static_cast<char*>(const_cast<void*>(src)), static_cast<char*>(const_cast<void*>(dst.element_ptr()))},
      {src_bytes, dst_bytes});
  visit_dtype(dst.dtype(), [&]<class To>() {
    visit_dtype(src_dtype, [&]<class From>() {
      const char* src_base = static_cast<const char*>(src);
      run_strided_loop(loop, [&](std::array<char*, 2> p, std::array<std::int64_t, 2> s,
                                 std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) {
          From v;
          std::memcpy(&v, p[0] + i * s[0], sizeof(From));
          To out;
          if (!exact_value<To>(v, out))
            fail_value(op, format_element(v), first_index + (p[0] + i * s[0] - src_base) / src_size, dst.dtype(),
                       where);
          std::memcpy(p[1] + i * s[1], &out, sizeof(To));
        }
      });
    });
  });
}

// Sets every element of a fresh dense tensor to `value` (already checked to fit).
void fill_value(const Tensor& t, const Scalar& value) {
  visit_dtype(t.dtype(), [&]<class T>() {
    T v{};
    switch (value.kind()) {
      case Scalar::Kind::Complex: exact_value<T>(value.as_complex(), v); break;
      case Scalar::Kind::Float: exact_value<T>(value.as_double(), v); break;
      default:
        if (value.is_u64_above_i64()) exact_value<T>(value.as_u64(), v);
        else exact_value<T>(value.as_int(), v);
    }
    T* p = static_cast<T*>(const_cast<void*>(t.element_ptr()));
    std::fill(p, p + t.numel(), v);
  });
}

bool scalar_fits(const Scalar& value, DType dtype) {
  return visit_dtype(dtype, [&]<class T>() {
    T out;
    switch (value.kind()) {
      case Scalar::Kind::Complex: return exact_value<T>(value.as_complex(), out);
      case Scalar::Kind::Float: return exact_value<T>(value.as_double(), out);
      default:
        return value.is_u64_above_i64() ? exact_value<T>(value.as_u64(), out)
                                        : exact_value<T>(value.as_int(), out);
    }
  });
}

std::string_view creation_op(DType source, bool literal, Layout layout) {
  if (literal) return source == DType::F64 ? "from_floats" : "from_ints";
  return layout == Layout::ColMajor ? "from_vec_col_major" : "from_vec_row_major";
}

}  // namespace

Tensor Tensor::from_buffer(Shape shape, const void* data, std::int64_t count, DType source_dtype,
                           TensorOptions options, bool source_is_literal, Layout layout, Loc where) {
  const std::string_view op = creation_op(source_dtype, source_is_literal, layout);
  check::valid_shape(op, shape, where);
  const std::int64_t expected = tensora::numel(shape);
  if (count != expected)
    throw Error(ErrorKind::Validation, std::string(op),
                "shape " + tensora::to_string(shape) + " needs " + std::to_string(expected) +
                    " elements, got " + std::to_string(count),
                ShapeDataLengthMismatch{expected, count}, where);
  DType dtype = source_dtype;
  if (options.dtype) dtype = *options.dtype;
  else if (source_is_literal) dtype = resolve_dtype(options, scalar_kind(source_dtype));
  Tensor out = empty(shape, dtype, options.device, where);
  // Row-major data fills the reversed-axes view: its column-major order is the row-major
  // order of `out`.
  const Tensor target = layout == Layout::ColMajor ? out : out.transpose(where);
  if (dtype == source_dtype && layout == Layout::ColMajor) {
    // An empty vector's data() may be null, which memcpy must not see even for 0 bytes.
    if (count > 0)
      std::memcpy(const_cast<void*>(out.element_ptr()), data,
                  static_cast<std::size_t>(count) * size_of(dtype));
  } else {
    fill_converted(op, data, source_dtype, target, where);
  }
  return out;
}

Tensor Tensor::from_floats(std::vector<double> values, TensorOptions options, Loc where) {
  const auto n = static_cast<std::int64_t>(values.size());
  return from_buffer({n}, values.data(), n, DType::F64, options, true, Layout::ColMajor, where);
}

Tensor Tensor::from_ints(std::vector<std::int64_t> values, TensorOptions options, Loc where) {
  const auto n = static_cast<std::int64_t>(values.size());
  return from_buffer({n}, values.data(), n, DType::I64, options, true, Layout::ColMajor, where);
}

Tensor Tensor::full(Shape shape, Scalar value, TensorOptions options, Loc where) {
  check::valid_shape("full", shape, where);
  const DType dtype = resolve_dtype(options, value.kind());
  if (!scalar_fits(value, dtype))
    check::fail_invalid("full",
                        "value " + value.to_string() + " (" + std::string(name(value.kind())) +
                            ") does not fit dtype " + std::string(name(dtype)) + " without loss",
                        "value", where);
  Tensor out = empty(std::move(shape), dtype, options.device, where);
  fill_value(out, value);
  return out;
}

Tensor Tensor::zeros(Shape shape, TensorOptions options, Loc where) {
  check::valid_shape("zeros", shape, where);
  const DType dtype = resolve_dtype(options, Scalar::Kind::Float);
  Tensor out = empty(std::move(shape), dtype, options.device, where);
  std::memset(const_cast<void*>(out.element_ptr()), 0,
              static_cast<std::size_t>(out.numel()) * size_of(dtype));
  return out;
}

Tensor Tensor::ones(Shape shape, TensorOptions options, Loc where) {
  check::valid_shape("ones", shape, where);
  const DType dtype = resolve_dtype(options, Scalar::Kind::Float);
  Tensor out = empty(std::move(shape), dtype, options.device, where);
  fill_value(out, Scalar(std::int64_t{1}));
  return out;
}

Tensor Tensor::arange(std::int64_t start, std::int64_t stop, TensorOptions options, Loc where) {
  return arange(start, stop, 1, options, where);
}

Tensor Tensor::arange(std::int64_t start, std::int64_t stop, std::int64_t step,
                      TensorOptions options, Loc where) {
  if (step == 0) check::fail_invalid("arange", "step must not be 0", "step", where);
  // ceil((stop - start) / step) and the values in 128 bits: the span of two int64 values may
  // not fit int64 (the values themselves lie in [start, stop), so they do).
  __extension__ typedef __int128 Wide;  // GCC and clang; -Wpedantic would warn on the bare name
  Wide n = 0;
  if ((step > 0 && stop > start) || (step < 0 && stop < start))
    n = (Wide{stop} - start + step + (step > 0 ? -1 : 1)) / step;
  if (n > std::numeric_limits<std::int64_t>::max())
    check::fail_invalid("arange",
                        "[" + std::to_string(start) + ", " + std::to_string(stop) + ") with step " +
                            std::to_string(step) + " has more elements than int64 can count (2^63 - 1)",
                        "stop", where);
  const DType dtype = resolve_dtype(options, Scalar::Kind::Int);
  const Tensor out = empty({static_cast<std::int64_t>(n)}, dtype, options.device, where);
  // Values go through a bounded buffer: the output is allocated (or OutOfMemory) first.
  constexpr std::int64_t kChunk = 4096;
  std::vector<std::int64_t> values;
  for (std::int64_t lo = 0; lo < out.numel(); lo += kChunk) {
    const std::int64_t hi = std::min(out.numel(), lo + kChunk);
    values.resize(static_cast<std::size_t>(hi - lo));
    for (std::int64_t i = lo; i < hi; ++i)
      values[static_cast<std::size_t>(i - lo)] = static_cast<std::int64_t>(Wide{start} + Wide{i} * step);
    fill_converted("arange", values.data(), DType::I64, out.slice(0, lo, hi, 1, where), where, lo);
  }
  return out;
}

Tensor Tensor::linspace(double start, double stop, std::int64_t num, TensorOptions options,
                        Loc where) {
  if (num < 0) check::fail_invalid("linspace", "num must be >= 0, got " + std::to_string(num), "num", where);
  const DType dtype = resolve_dtype(options, Scalar::Kind::Float);
  if (!is_inexact(dtype))
    check::fail_unsupported_dtype("linspace", dtype, "linspace needs a float or complex dtype", where);
  std::vector<double> values(static_cast<std::size_t>(num));
  const double step = num > 1 ? (stop - start) / static_cast<double>(num - 1) : 0.0;
  for (std::int64_t i = 0; i < num; ++i) values[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * step;
  if (num > 1) values.back() = stop;  // the end point is exact
  Tensor out = empty({num}, dtype, options.device, where);
  fill_converted("linspace", values.data(), DType::F64, out, where);
  return out;
}

Tensor Tensor::eye(std::int64_t n, TensorOptions options, Loc where) { return eye(n, n, options, where); }

Tensor Tensor::eye(std::int64_t rows, std::int64_t cols, TensorOptions options, Loc where) {
  check::valid_shape("eye", {rows, cols}, where);
  Tensor out = zeros({rows, cols}, options, where);
  visit_dtype(out.dtype(), [&]<class T>() {
    T one;
    exact_value<T>(std::int64_t{1}, one);
    T* p = out.data<T>(where);
    for (std::int64_t i = 0; i < std::min(rows, cols); ++i) p[i + i * rows] = one;
  });
  return out;
}

namespace {

template <class Sample>
Tensor random_tensor(std::string_view op, Shape shape, TensorOptions options, Sample sample,
                     SourceLocation where) {
  check::valid_shape(op, shape, where);
  const DType dtype = resolve_dtype(options, Scalar::Kind::Float);
  if (!is_floating(dtype))
    check::fail_unsupported_dtype(op, dtype, "random numbers need a float dtype", where);
  Tensor out = Tensor::empty(std::move(shape), dtype, options.device, where);
  visit_dtype(dtype, [&]<class T>() {
    if constexpr (is_float_v<T>) {
      T* p = static_cast<T*>(const_cast<void*>(out.element_ptr()));
      const std::int64_t n = out.numel();
      for (std::int64_t i = 0; i < n; ++i) {
        const double v = sample(static_cast<std::uint64_t>(i));
        p[i] = cast_value<T>(v);
        // A finite draw that overflows the dtype (F16 tops out at 65504) is an error, not inf.
        if (!std::isfinite(static_cast<double>(p[i])))
          check::fail_invalid(op,
                              "draw " + format_double(v) + " (element " + std::to_string(i) +
                                  ") overflows " + std::string(name(dtype)) +
                                  "; use a wider dtype or a smaller range",
                              "low/high", where);
      }
    }
  });
  return out;
}

}  // namespace

Tensor Tensor::uniform(Shape shape, std::uint64_t seed, TensorOptions options, double low,
                       double high, Loc where) {
  if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high))
    check::fail_invalid("uniform", "needs finite low <= high", "low/high", where);
  return random_tensor(
      "uniform", std::move(shape), options,
      [&](std::uint64_t i) { return low + (high - low) * philox_uniform(seed, i); }, where);
}

Tensor Tensor::normal(Shape shape, std::uint64_t seed, TensorOptions options, double mean,
                      double stddev, Loc where) {
  if (!(stddev >= 0) || !std::isfinite(mean) || !std::isfinite(stddev))
    check::fail_invalid("normal", "needs a finite mean and stddev >= 0", "stddev", where);
  return random_tensor(
      "normal", std::move(shape), options,
      [&](std::uint64_t i) { return mean + stddev * philox_normal(seed, i); }, where);
}

}  // namespace tensora
