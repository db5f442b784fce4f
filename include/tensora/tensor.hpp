// The dynamic tensor handle: shared storage + shape + strides + offset + dtype + device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensora/device.hpp"
#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/op_catalog.hpp"
#include "tensora/scalar.hpp"
#include "tensora/shape.hpp"
#include "tensora/tensor_options.hpp"
#include "tensora/engine.hpp"

namespace tensora {

class Storage;
class Engine;
template <class T>
class TypedTensor;

// Options of reductions: keep reduced axes as extent 1; ddof for var/std (N - ddof divides; any
// real value, as in NumPy: N - ddof <= 0 gives inf or NaN).
struct ReduceOptions {
  bool keepdims = false;
  double ddof = 0;
};

// Element order of a flat buffer handed to or read from a tensor.
enum class Layout { ColMajor, RowMajor };

// pad(): Constant fills with `value` (a weak scalar; none: the dtype's zero, false for Bool),
// Edge repeats the edge element, Reflect mirrors without repeating the edge (NumPy 'reflect';
// each width must be below the extent).
enum class PadMode { Constant, Edge, Reflect };
struct PadOptions {
  PadMode mode = PadMode::Constant;
  std::optional<Scalar> value = std::nullopt;
};

// Dimension numbers of dot_general (StableHLO): batch dims pair up lhs_batch_dims[i] with
// rhs_batch_dims[i], contracting dims pair up the same way; negative dims count from the end.
struct DotGeneralConfig {
  std::vector<std::int64_t> lhs_batch_dims, rhs_batch_dims, lhs_contracting_dims, rhs_contracting_dims;
};

class Tensor {
 public:
  using Loc = SourceLocation;

  // An empty handle; every operation on it throws InvalidArgument.
  Tensor() = default;

  // ---- creation -----------------------------------------------------------------------
  // The element type sets the dtype unless options give one. Values are converted to an
  // explicit dtype without silent loss: integer targets need exact values, float targets
  // round to nearest and reject overflow to infinity (see docs/creation.md).
  template <Element T>
  static Tensor from_vec_col_major(Shape shape, std::vector<T> values, Loc where = Loc::current()) {
    return from_values(std::move(shape), values, TensorOptions(), Layout::ColMajor, where);
  }
  template <Element T>
  static Tensor from_vec_col_major(Shape shape, std::vector<T> values, TensorOptions options,
                                   Loc where = Loc::current()) {
    return from_values(std::move(shape), values, options, Layout::ColMajor, where);
  }
  template <Element T>
  static Tensor from_vec_row_major(Shape shape, std::vector<T> values, Loc where = Loc::current()) {
    return from_values(std::move(shape), values, TensorOptions(), Layout::RowMajor, where);
  }
  template <Element T>
  static Tensor from_vec_row_major(Shape shape, std::vector<T> values, TensorOptions options,
                                   Loc where = Loc::current()) {
    return from_values(std::move(shape), values, options, Layout::RowMajor, where);
  }
  // 1-D literals that go straight from double / int64 to the target dtype (default: the
  // device's float / int dtype), never through F32.
  static Tensor from_floats(std::vector<double> values, TensorOptions options = {},
                            Loc where = Loc::current());
  static Tensor from_ints(std::vector<std::int64_t> values, TensorOptions options = {},
                          Loc where = Loc::current());

  static Tensor zeros(Shape shape, TensorOptions options = {}, Loc where = Loc::current());
  static Tensor ones(Shape shape, TensorOptions options = {}, Loc where = Loc::current());
  // The dtype follows the value's kind unless options give one; the value must fit it.
  static Tensor full(Shape shape, Scalar value, TensorOptions options = {},
                     Loc where = Loc::current());
  // [start, stop) with step 1 or `step`; the device's int dtype unless options give one.
  static Tensor arange(std::int64_t start, std::int64_t stop, TensorOptions options = {},
                       Loc where = Loc::current());
  static Tensor arange(std::int64_t start, std::int64_t stop, std::int64_t step,
                       TensorOptions options = {}, Loc where = Loc::current());
  // `num` evenly spaced values from start to stop inclusive; float or complex dtypes.
  static Tensor linspace(double start, double stop, std::int64_t num, TensorOptions options = {},
                         Loc where = Loc::current());
  static Tensor eye(std::int64_t n, TensorOptions options = {}, Loc where = Loc::current());
  static Tensor eye(std::int64_t rows, std::int64_t cols, TensorOptions options = {},
                    Loc where = Loc::current());
  // Counter-based (Philox-4x32-10) random numbers: element i depends only on (seed, i), so
  // the same seed gives the same values everywhere. Float dtypes only.
  static Tensor uniform(Shape shape, std::uint64_t seed, TensorOptions options = {},
                        double low = 0.0, double high = 1.0, Loc where = Loc::current());
  static Tensor normal(Shape shape, std::uint64_t seed, TensorOptions options = {},
                       double mean = 0.0, double stddev = 1.0, Loc where = Loc::current());

  // An uninitialized dense column-major tensor (no default-dtype lookup: dtype is explicit).
  static Tensor empty(Shape shape, DType dtype, Device device, Loc where = Loc::current());
  // A meta tensor: dtype, shape and device with no data and no allocation. Views and copies
  // of it are meta tensors too, so shape and dtype checks run on it at no cost (the traced
  // front door infers with them); anything that reads elements, or a kernel, refuses it.
  static Tensor meta(Shape shape, DType dtype, Device device = Device::cpu(), Loc where = Loc::current());

  // ---- properties ---------------------------------------------------------------------
  bool defined() const { return storage_ != nullptr || meta_; }
  bool is_meta() const { return meta_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }  // in elements
  std::int64_t offset() const { return offset_; }      // in elements
  Device device() const { return device_; }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t numel() const { return numel_; }
  std::int64_t dim(std::int64_t axis, Loc where = Loc::current()) const;
  // Dense in column-major (first index fastest) or row-major order; size-1 dims ignored.
  bool is_contiguous(Layout layout = Layout::ColMajor) const {
    return layout == Layout::ColMajor ? col_major_ : is_row_major();
  }
  // True when both handles view the same storage.
  bool shares_storage_with(const Tensor& other) const { return storage_ != nullptr && storage_ == other.storage_; }

  // ---- views (share storage) ----------------------------------------------------------
  Tensor permute(std::vector<std::int64_t> axes, Loc where = Loc::current()) const;
  Tensor transpose(Loc where = Loc::current()) const;  // reverses all axes
  Tensor transpose(std::int64_t a, std::int64_t b, Loc where = Loc::current()) const;
  // Column-major element order (as Julia/Fortran). One extent may be -1. A view when the
  // strides allow it, else a compact copy.
  Tensor reshape(Shape shape, Loc where = Loc::current()) const;
  // Python slice semantics on one axis; negative indices count from the end; step != 0.
  Tensor slice(std::int64_t axis, std::optional<std::int64_t> start,
               std::optional<std::int64_t> stop, std::int64_t step = 1,
               Loc where = Loc::current()) const;
  // NumPy rules: trailing axes align; size-1 axes and new leading axes get stride 0.
  Tensor broadcast_to(Shape shape, Loc where = Loc::current()) const;
  Tensor expand(Shape shape, Loc where = Loc::current()) const { return broadcast_to(shape, where); }
  Tensor squeeze(Loc where = Loc::current()) const;  // drops every size-1 axis
  Tensor squeeze(std::vector<std::int64_t> axes, Loc where = Loc::current()) const;
  Tensor unsqueeze(std::int64_t axis, Loc where = Loc::current()) const;

  // ---- copies -------------------------------------------------------------------------
  Tensor duplicate(Loc where = Loc::current()) const;  // compact column-major copy
  Tensor contiguous(Loc where = Loc::current()) const;  // self when compact, else a copy
  Tensor to_device(Device device, Loc where = Loc::current()) const;  // keeps the dtype

  // ---- elementwise ops (direct: same dtype and device, never promote) -------------
  // NumPy broadcasting. `x.op(y, engine)` allocates a column-major result; `x.op_into(y,
  // engine, dest)` writes into a checked destination. Scalars are weak (docs/dtypes.md).
#define TENSORA_DECLARE_BINARY(name, ...)                                                                   \
  Tensor name(const Tensor& other, Engine& engine, Loc where = Loc::current()) const;                        \
  Tensor name(Scalar other, Engine& engine, Loc where = Loc::current()) const;                               \
  void name##_into(const Tensor& other, Engine& engine, const Tensor& dest, Loc where = Loc::current()) const;
#define TENSORA_DECLARE_UNARY(name, ...)                              \
  Tensor name(Engine& engine, Loc where = Loc::current()) const;      \
  void name##_into(Engine& engine, const Tensor& dest, Loc where = Loc::current()) const;
  TENSORA_BINARY_OPS(TENSORA_DECLARE_BINARY)
  TENSORA_UNARY_OPS(TENSORA_DECLARE_UNARY)
#undef TENSORA_DECLARE_BINARY
#undef TENSORA_DECLARE_UNARY
  // min(max(x, lo), hi) elementwise.
  Tensor clamp(Scalar lo, Scalar hi, Engine& engine, Loc where = Loc::current()) const;
  Tensor clamp(const Tensor& lo, const Tensor& hi, Engine& engine, Loc where = Loc::current()) const;

  // ---- dtype changes ------------------------------------------------------------
  // Checked: only up the lattice (can_convert), else UnsupportedDTypeConversion. Returns
  // self when the dtype is already `dtype`.
  Tensor convert(DType dtype, Engine& engine, Loc where = Loc::current()) const;
  // Lossy and explicit: float->int truncates toward zero and saturates, NaN -> 0;
  // int->int wraps; complex->real keeps the real part (docs/dtypes.md).
  Tensor cast(DType dtype, Engine& engine, Loc where = Loc::current()) const;

  // ---- reductions ---------------------------------------------------------------------
  // `axes` are reduced (negative counts from the end; empty reduces nothing); the overloads
  // without axes reduce every axis. Float sums accumulate in double (F32) or pairwise (F64) in a
  // fixed blocking, so results do not depend on the engine's thread count.
  // Reductions, arg-reductions and scans, one catalog row each (tensora/op_catalog.hpp):
  //   Axes: x.sum(axes[, options], e) and x.sum(e) over every axis;
  //   Axis: x.argmax(axis[, options], e) is the index (I64) of the first largest / smallest
  //         element along `axis` (NaN counts as largest and smallest, as in NumPy), x.argmax(e)
  //         the column-major flat index;
  //   Scan: x.cumsum(axis, e), the inclusive running sum / product (same shape and dtype).
#define TENSORA_DECLARE_REDUCTION_Axes(name)                                                                 \
  Tensor name(std::vector<std::int64_t> axes, Engine& engine, Loc where = Loc::current()) const;             \
  Tensor name(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine,                         \
              Loc where = Loc::current()) const;                                                             \
  Tensor name(Engine& engine, Loc where = Loc::current()) const;
#define TENSORA_DECLARE_REDUCTION_Axis(name)                                                                        \
  Tensor name(std::int64_t axis, Engine& engine, Loc where = Loc::current()) const;                                \
  Tensor name(std::int64_t axis, ReduceOptions options, Engine& engine, Loc where = Loc::current()) const;         \
  Tensor name(Engine& engine, Loc where = Loc::current()) const;
#define TENSORA_DECLARE_REDUCTION_Scan(name) \
  Tensor name(std::int64_t axis, Engine& engine, Loc where = Loc::current()) const;
#define TENSORA_DECLARE_REDUCTION(name, Enum, accepts, result, ad, form, ...) TENSORA_DECLARE_REDUCTION_##form(name)
  TENSORA_REDUCTIONS(TENSORA_DECLARE_REDUCTION)
#undef TENSORA_DECLARE_REDUCTION
#undef TENSORA_DECLARE_REDUCTION_Axes
#undef TENSORA_DECLARE_REDUCTION_Axis
#undef TENSORA_DECLARE_REDUCTION_Scan
  // Normalizations along one axis (numerically stable): softmax = exp(x - max) / sum(exp(x - max)),
  // log_softmax = x - max - log(sum(exp(x - max))).
#define TENSORA_DECLARE_AXIS_OP(name, ...) \
  Tensor name(std::int64_t axis, Engine& engine, Loc where = Loc::current()) const;
  TENSORA_AXIS_OPS(TENSORA_DECLARE_AXIS_OP)
#undef TENSORA_DECLARE_AXIS_OP

  // ---- contractions ------------------------------------------------------------------
  // StableHLO dot_general (docs/contractions.md): the result has the batch dims (in
  // lhs_batch_dims order), then the free dims of self, then the free dims of rhs. Same dtype and
  // device; every dtype but Bool (F16/BF16 compute in F32 and round once; integers wrap
  // modulo 2^bits). Results do not depend on the engine's thread count.
  Tensor dot_general(const Tensor& rhs, DotGeneralConfig config, Engine& engine,
                     Loc where = Loc::current()) const;
  void dot_general_into(const Tensor& rhs, DotGeneralConfig config, Engine& engine,
                        const Tensor& dest, Loc where = Loc::current()) const;
  // NumPy matmul: 1-D x 1-D is a dot product (0-d), a 1-D operand is a row / column vector
  // whose extent-1 axis is dropped from the result, N-D operands are stacks of matrices in
  // the last two axes with NumPy broadcasting of the leading (batch) axes.
  Tensor matmul(const Tensor& rhs, Engine& engine, Loc where = Loc::current()) const;
  void dot_into(const Tensor& rhs, Engine& engine, const Tensor& dest, Loc where = Loc::current()) const;

  // ---- structural ops -----------------------------------------------------------------
  // split, reverse and diagonal return views (no engine); the rest allocate a column-major
  // result. Negative axes count from the end. Semantics and errors: docs/structural.md.
  // Zero-copy pieces along `axis` with the given extents (each >= 0, summing to the extent).
  std::vector<Tensor> split(std::vector<std::int64_t> sizes, std::int64_t axis,
                            Loc where = Loc::current()) const;
  // Pads axis d by widths[d] = (before, after) elements (one pair per axis, each >= 0).
  Tensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, Engine& engine,
             Loc where = Loc::current()) const;  // constant 0
  Tensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options,
             Engine& engine, Loc where = Loc::current()) const;
  // A view with the order of elements along each of `axes` reversed (negative strides).
  Tensor reverse(std::vector<std::int64_t> axes, Loc where = Loc::current()) const;
  // NumPy take_along_axis: out[..i..] = self[..indices[..i..]..] along `axis`; indices (I32 or
  // I64) have self's rank and broadcast with it on the other axes; negative indices count
  // from the end.
  Tensor take_along_axis(const Tensor& indices, std::int64_t axis, Engine& engine,
                         Loc where = Loc::current()) const;
  Tensor gather(const Tensor& indices, std::int64_t axis, Engine& engine,
                Loc where = Loc::current()) const;  // = take_along_axis
  // The slices self[.., indices[j], ..] along `axis` for a 1-D I32/I64 `indices`.
  Tensor index_select(std::int64_t axis, const Tensor& indices, Engine& engine,
                      Loc where = Loc::current()) const;
  // torch scatter_add: a copy of self with src[i] added at index indices[i] along `axis`
  // (duplicates accumulate in index order, the same on every engine).
  Tensor scatter_add(std::int64_t axis, const Tensor& indices, const Tensor& src, Engine& engine,
                     Loc where = Loc::current()) const;
  // Lower / upper triangle of the last two axes (batched): keeps (i, j) with j - i <= k / >= k.
  Tensor tril(std::int64_t k, Engine& engine, Loc where = Loc::current()) const;
  Tensor triu(std::int64_t k, Engine& engine, Loc where = Loc::current()) const;
  // NumPy diagonal as a view: drops axis1 and axis2, appends the diagonal axis last.
  Tensor diagonal(std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1,
                  Loc where = Loc::current()) const;
  // torch.diag_embed: the last axis (length n) becomes the offset diagonal of (n+|k|)^2 matrices.
  Tensor embed_diag(std::int64_t offset, Engine& engine, Loc where = Loc::current()) const;

  // ---- reading ------------------------------------------------------------------------
  // All elements in column-major order; T must be the tensor's element type.
  template <Element T>
  std::vector<T> to_vec(Loc where = Loc::current()) const {
    check_element(dtype_of<T>(), "to_vec", where);
    return read_all<T>(Layout::ColMajor);
  }
  template <Element T>
  std::vector<T> to_vec_row_major(Loc where = Loc::current()) const {
    check_element(dtype_of<T>(), "to_vec_row_major", where);
    return read_all<T>(Layout::RowMajor);
  }
  // The single element of a one-element tensor.
  template <Element T>
  T item(Loc where = Loc::current()) const {
    check_element(dtype_of<T>(), "item", where);
    check_single_element(where);
    return *static_cast<const T*>(element_ptr());
  }
  // The elements of a column-major contiguous tensor, in place.
  template <Element T>
  T* data(Loc where = Loc::current()) const {
    check_element(dtype_of<T>(), "data", where);
    check_contiguous_data(where);
    return static_cast<T*>(const_cast<void*>(element_ptr()));
  }

  // Checked conversion to the typed handle.
  template <Element T>
  TypedTensor<T> typed(Loc where = Loc::current()) const;

  // The address of the element at the view's offset (the first element).
  const void* element_ptr() const {
    if (storage_ == nullptr) [[unlikely]] throw_no_data("element_ptr");
    return first_element_;
  }
  // Copies every element into `dst` (numel * size_of(dtype) bytes) in the given order.
  void copy_to_buffer(void* dst, Layout layout) const;
  std::string to_string() const;

 private:
  // The library's own layers build views over storage through TensorInternals
  // (src/core/tensor_internals.hpp, not installed).
  friend struct TensorInternals;
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
         DType dtype, Device device);
  // A fresh column-major tensor of `bytes` whose element count the caller has computed
  // (Tensor::empty); its storage and strides are made in place.
  struct FreshTag {};
  Tensor(FreshTag, std::size_t bytes, Shape shape, std::int64_t numel, DType dtype, Device device,
         const SourceLocation& where);

  // Creation from a raw buffer of `count` elements of `source_dtype` (the templates above and
  // from_floats / from_ints; a literal source may round where a typed one must be exact).
  static Tensor from_buffer(Shape shape, const void* data, std::int64_t count, DType source_dtype,
                            TensorOptions options, bool source_is_literal, Layout layout,
                            Loc where = Loc::current());
  template <class T>
  static Tensor from_values(Shape shape, const std::vector<T>& values, TensorOptions options,
                            Layout layout, Loc where) {
    const auto n = static_cast<std::int64_t>(values.size());
    if constexpr (std::is_same_v<T, bool>) {
      std::unique_ptr<bool[]> tmp(new bool[values.size()]);
      std::copy(values.begin(), values.end(), tmp.get());
      return from_buffer(std::move(shape), tmp.get(), n, DType::Bool, options, false, layout, where);
    } else {
      return from_buffer(std::move(shape), values.data(), n, dtype_of<T>(), options, false, layout,
                         where);
    }
  }
  template <class T>
  std::vector<T> read_all(Layout layout) const {
    const auto n = static_cast<std::size_t>(numel());
    if constexpr (std::is_same_v<T, bool>) {
      // vector<bool> is packed: read bytes, then widen.
      std::unique_ptr<bool[]> tmp(new bool[n]);
      copy_to_buffer(tmp.get(), layout);
      return std::vector<bool>(tmp.get(), tmp.get() + n);
    } else {
      std::vector<T> out(n);
      copy_to_buffer(out.data(), layout);
      return out;
    }
  }
  void check_defined(const char* op, Loc where) const;
  [[noreturn]] void throw_no_data(const char* op) const;
  void check_element(DType requested, const char* op, Loc where) const;
  void check_single_element(Loc where) const;
  void check_contiguous_data(Loc where) const;
  Tensor with_view(Shape shape, Strides strides, std::int64_t offset) const;
  bool is_row_major() const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;
  DType dtype_ = DType::F32;
  Device device_ = Device::cpu();
  bool meta_ = false;  // then storage_ is null
  // Facts of shape_ and strides_ (set once in the constructor): every op asks for them, and
  // tiny ops would otherwise spend a visible part of their time recomputing them.
  std::int64_t numel_ = 1;
  bool col_major_ = true;
  const void* first_element_ = nullptr;  // storage_'s data at offset_ (null without storage)
};

// out = pred ? a : b with broadcasting; pred must be Bool, a and b one dtype.
Tensor select(const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine,
              SourceLocation where = SourceLocation::current());
inline Tensor where(const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine,
                    SourceLocation loc = SourceLocation::current()) {
  return select(pred, a, b, engine, loc);
}
// The NumPy broadcast of two shapes; ShapeMismatch naming both when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op = "broadcast_shapes",
                       SourceLocation where = SourceLocation::current());

// Joins tensors of one dtype and device along an existing axis; every other extent must match.
Tensor concat(std::vector<Tensor> tensors, std::int64_t axis, Engine& engine,
              SourceLocation where = SourceLocation::current());
// Joins tensors of one shape along a new axis (in [-(rank+1), rank]).
Tensor stack(std::vector<Tensor> tensors, std::int64_t axis, Engine& engine,
             SourceLocation where = SourceLocation::current());

// Free-function spellings of the contractions (same semantics as the methods).
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, DotGeneralConfig config, Engine& engine,
                   SourceLocation where = SourceLocation::current());
Tensor matmul(const Tensor& lhs, const Tensor& rhs, Engine& engine,
              SourceLocation where = SourceLocation::current());
// The BLAS that F32/F64/C64/C128 products run on, e.g. "BLIS 0.9.0 (skx)" (docs/contractions.md).
std::string blas_backend();

// Shows dtype, device, shape and the values laid out by index (rows = first axis).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tensora

// Tensor::typed<T>() needs the complete TypedTensor.
#include "tensora/typed_tensor.hpp"
