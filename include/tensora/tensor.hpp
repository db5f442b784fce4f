// The dynamic tensor handle: shared storage + shape + strides + offset + dtype + device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensora/device.hpp"
#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/scalar.hpp"
#include "tensora/shape.hpp"
#include "tensora/tensor_options.hpp"

namespace tensora {

class Storage;
class Engine;
template <class T>
class TypedTensor;

// Element order of a flat buffer handed to or read from a tensor.
enum class Layout { ColMajor, RowMajor };

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

  // Creation from a raw buffer of `count` elements of `source_dtype` (used by the templates).
  static Tensor from_buffer(Shape shape, const void* data, std::int64_t count, DType source_dtype,
                            TensorOptions options, bool source_is_literal, Layout layout,
                            Loc where = Loc::current());
  // An uninitialized dense column-major tensor (no default-dtype lookup: dtype is explicit).
  static Tensor empty(Shape shape, DType dtype, Device device, Loc where = Loc::current());

  // ---- properties ---------------------------------------------------------------------
  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }  // in elements
  std::int64_t offset() const { return offset_; }      // in elements
  Device device() const { return device_; }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t numel() const { return tensora::numel(shape_); }
  std::int64_t dim(std::int64_t axis, Loc where = Loc::current()) const;
  // Dense in column-major (first index fastest) or row-major order; size-1 dims ignored.
  bool is_contiguous(Layout layout = Layout::ColMajor) const;
  // True when both handles view the same storage.
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

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
  const void* element_ptr() const;
  // Copies every element into `dst` (numel * size_of(dtype) bytes) in the given order.
  void copy_to_buffer(void* dst, Layout layout) const;
  std::string to_string() const;

  // ---- internal -----------------------------------------------------------------------
  // Builds a view; used by the library's own layers.
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
         DType dtype, Device device);
  const std::shared_ptr<Storage>& storage() const { return storage_; }

 private:
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
  void check_element(DType requested, const char* op, Loc where) const;
  void check_single_element(Loc where) const;
  void check_contiguous_data(Loc where) const;
  Tensor with_view(Shape shape, Strides strides, std::int64_t offset) const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;
  DType dtype_ = DType::F32;
  Device device_ = Device::cpu();
};

// Shows dtype, device, shape and the values laid out by index (rows = first axis).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tensora

// Tensor::typed<T>() needs the complete TypedTensor.
#include "tensora/typed_tensor.hpp"
