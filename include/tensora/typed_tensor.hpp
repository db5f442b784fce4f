// TypedTensor<T>: a Tensor whose element type is fixed at compile time, so mixing element
// types in an op is a compile error rather than a runtime DTypeMismatch.
#pragma once

#include <complex>
#include <utility>

#include "tensora/tensor.hpp"

namespace tensora {

namespace typed_detail {
// The element type of a result under a catalog row's result rule (tensora/op_catalog.hpp).
template <class T> struct Same { using type = T; };
template <class T> struct Bool { using type = bool; };
template <class T> struct Real { using type = T; };
template <class T> struct Real<std::complex<T>> { using type = T; };
template <class T> struct Index { using type = std::int64_t; };
}  // namespace typed_detail

template <class T>
class TypedTensor {
  static_assert(Element<T>, "TypedTensor<T>: T must be one of the 15 tensora element types");

 public:
  using value_type = T;
  using Loc = SourceLocation;
  static constexpr DType kDType = dtype_of<T>();

  TypedTensor() = default;

  // ---- creation (the dtype is always T's) ---------------------------------------------
  static TypedTensor from_vec_col_major(Shape shape, std::vector<T> values, Device device = Device::default_device(),
                                        Loc where = Loc::current()) {
    return TypedTensor(Tensor::from_vec_col_major(std::move(shape), std::move(values), {device}, where));
  }
  static TypedTensor from_vec_row_major(Shape shape, std::vector<T> values, Device device = Device::default_device(),
                                        Loc where = Loc::current()) {
    return TypedTensor(Tensor::from_vec_row_major(std::move(shape), std::move(values), {device}, where));
  }
  static TypedTensor zeros(Shape shape, Device device = Device::default_device(), Loc where = Loc::current()) {
    return TypedTensor(Tensor::zeros(std::move(shape), {device, kDType}, where));
  }
  static TypedTensor ones(Shape shape, Device device = Device::default_device(), Loc where = Loc::current()) {
    return TypedTensor(Tensor::ones(std::move(shape), {device, kDType}, where));
  }
  static TypedTensor full(Shape shape, T value, Device device = Device::default_device(),
                          Loc where = Loc::current()) {
    return TypedTensor(Tensor::full(std::move(shape), Scalar(value), {device, kDType}, where));
  }
  static TypedTensor arange(std::int64_t start, std::int64_t stop, Device device = Device::default_device(),
                            Loc where = Loc::current()) {
    return TypedTensor(Tensor::arange(start, stop, {device, kDType}, where));
  }
  static TypedTensor linspace(double start, double stop, std::int64_t num,
                              Device device = Device::default_device(), Loc where = Loc::current()) {
    return TypedTensor(Tensor::linspace(start, stop, num, {device, kDType}, where));
  }
  static TypedTensor eye(std::int64_t n, Device device = Device::default_device(), Loc where = Loc::current()) {
    return TypedTensor(Tensor::eye(n, {device, kDType}, where));
  }
  static TypedTensor uniform(Shape shape, std::uint64_t seed, Device device = Device::default_device(),
                             double low = 0.0, double high = 1.0, Loc where = Loc::current()) {
    return TypedTensor(Tensor::uniform(std::move(shape), seed, {device, kDType}, low, high, where));
  }
  static TypedTensor normal(Shape shape, std::uint64_t seed, Device device = Device::default_device(),
                            double mean = 0.0, double stddev = 1.0, Loc where = Loc::current()) {
    return TypedTensor(Tensor::normal(std::move(shape), seed, {device, kDType}, mean, stddev, where));
  }

  // ---- properties and reading ---------------------------------------------------------
  static constexpr DType dtype() { return kDType; }
  const Shape& shape() const { return t_.shape(); }
  const Strides& strides() const { return t_.strides(); }
  Device device() const { return t_.device(); }
  std::int64_t rank() const { return t_.rank(); }
  std::int64_t numel() const { return t_.numel(); }
  bool is_contiguous(Layout layout = Layout::ColMajor) const { return t_.is_contiguous(layout); }

  std::vector<T> to_vec(Loc where = Loc::current()) const { return t_.template to_vec<T>(where); }
  T item(Loc where = Loc::current()) const { return t_.template item<T>(where); }
  T* data(Loc where = Loc::current()) const { return t_.template data<T>(where); }

  // ---- views and copies ---------------------------------------------------------------
  TypedTensor permute(std::vector<std::int64_t> axes, Loc where = Loc::current()) const {
    return TypedTensor(t_.permute(std::move(axes), where));
  }
  TypedTensor transpose(Loc where = Loc::current()) const { return TypedTensor(t_.transpose(where)); }
  TypedTensor transpose(std::int64_t a, std::int64_t b, Loc where = Loc::current()) const {
    return TypedTensor(t_.transpose(a, b, where));
  }
  TypedTensor reshape(Shape shape, Loc where = Loc::current()) const {
    return TypedTensor(t_.reshape(std::move(shape), where));
  }
  TypedTensor slice(std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                    std::int64_t step = 1, Loc where = Loc::current()) const {
    return TypedTensor(t_.slice(axis, start, stop, step, where));
  }
  TypedTensor broadcast_to(Shape shape, Loc where = Loc::current()) const {
    return TypedTensor(t_.broadcast_to(std::move(shape), where));
  }
  TypedTensor expand(Shape shape, Loc where = Loc::current()) const {
    return TypedTensor(t_.broadcast_to(std::move(shape), where));
  }
  TypedTensor squeeze(Loc where = Loc::current()) const { return TypedTensor(t_.squeeze(where)); }
  TypedTensor squeeze(std::vector<std::int64_t> axes, Loc where = Loc::current()) const {
    return TypedTensor(t_.squeeze(std::move(axes), where));
  }
  TypedTensor unsqueeze(std::int64_t axis, Loc where = Loc::current()) const {
    return TypedTensor(t_.unsqueeze(axis, where));
  }
  TypedTensor duplicate(Loc where = Loc::current()) const { return TypedTensor(t_.duplicate(where)); }
  TypedTensor contiguous(Loc where = Loc::current()) const { return TypedTensor(t_.contiguous(where)); }
  TypedTensor to_device(Device device, Loc where = Loc::current()) const {
    return TypedTensor(t_.to_device(device, where));
  }

  // ---- ops: the whole direct op set with T fixed, so mixing element types does not compile --
  // The elementwise, reduction and axis families come from their catalog rows
  // (tensora/op_catalog.hpp); the result's element type follows the row's result rule.
#define TENSORA_TYPED_RESULT(result) typename typed_detail::result<T>::type
#define TENSORA_TYPED_BINARY(name, Enum, accepts, result, ...)                                                 \
  TypedTensor<TENSORA_TYPED_RESULT(result)> name(const TypedTensor& other, Engine& engine,                   \
                                                 Loc where = Loc::current()) const {                         \
    return TypedTensor<TENSORA_TYPED_RESULT(result)>(t_.name(other.t_, engine, where));                      \
  }                                                                                                           \
  TypedTensor<TENSORA_TYPED_RESULT(result)> name(Scalar other, Engine& engine, Loc where = Loc::current())    \
      const {                                                                                                 \
    return TypedTensor<TENSORA_TYPED_RESULT(result)>(t_.name(other, engine, where));                         \
  }                                                                                                           \
  void name##_into(const TypedTensor& other, Engine& engine, const TypedTensor<TENSORA_TYPED_RESULT(result)>& dest, \
                   Loc where = Loc::current()) const {                                                        \
    t_.name##_into(other.t_, engine, dest.tensor(), where);                                                   \
  }
#define TENSORA_TYPED_UNARY(name, Enum, accepts, result, ...)                                                  \
  TypedTensor<TENSORA_TYPED_RESULT(result)> name(Engine& engine, Loc where = Loc::current()) const {         \
    return TypedTensor<TENSORA_TYPED_RESULT(result)>(t_.name(engine, where));                                \
  }                                                                                                           \
  void name##_into(Engine& engine, const TypedTensor<TENSORA_TYPED_RESULT(result)>& dest,                    \
                   Loc where = Loc::current()) const {                                                        \
    t_.name##_into(engine, dest.tensor(), where);                                                             \
  }
#define TENSORA_TYPED_REDUCTION_Axes(name, R)                                                                  \
  TypedTensor<R> name(std::vector<std::int64_t> axes, Engine& engine, Loc where = Loc::current()) const {    \
    return TypedTensor<R>(t_.name(std::move(axes), engine, where));                                          \
  }                                                                                                           \
  TypedTensor<R> name(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine,                 \
                      Loc where = Loc::current()) const {                                                     \
    return TypedTensor<R>(t_.name(std::move(axes), options, engine, where));                                 \
  }                                                                                                           \
  TypedTensor<R> name(Engine& engine, Loc where = Loc::current()) const { return TypedTensor<R>(t_.name(engine, where)); }
#define TENSORA_TYPED_REDUCTION_Axis(name, R)                                                                  \
  TypedTensor<R> name(std::int64_t axis, Engine& engine, Loc where = Loc::current()) const {                 \
    return TypedTensor<R>(t_.name(axis, engine, where));                                                     \
  }                                                                                                           \
  TypedTensor<R> name(std::int64_t axis, ReduceOptions options, Engine& engine, Loc where = Loc::current())  \
      const {                                                                                                 \
    return TypedTensor<R>(t_.name(axis, options, engine, where));                                            \
  }                                                                                                           \
  TypedTensor<R> name(Engine& engine, Loc where = Loc::current()) const { return TypedTensor<R>(t_.name(engine, where)); }
#define TENSORA_TYPED_REDUCTION_Scan(name, R)                                                     \
  TypedTensor<R> name(std::int64_t axis, Engine& engine, Loc where = Loc::current()) const {    \
    return TypedTensor<R>(t_.name(axis, engine, where));                                        \
  }
#define TENSORA_TYPED_REDUCTION(name, Enum, accepts, result, ad, form, ...) \
  TENSORA_TYPED_REDUCTION_##form(name, TENSORA_TYPED_RESULT(result))
#define TENSORA_TYPED_AXIS_OP(name, Enum, accepts, result, ...) TENSORA_TYPED_REDUCTION_Scan(name, T)
  TENSORA_BINARY_OPS(TENSORA_TYPED_BINARY)
  TENSORA_UNARY_OPS(TENSORA_TYPED_UNARY)
  TENSORA_REDUCTIONS(TENSORA_TYPED_REDUCTION)
  TENSORA_AXIS_OPS(TENSORA_TYPED_AXIS_OP)
#undef TENSORA_TYPED_BINARY
#undef TENSORA_TYPED_UNARY
#undef TENSORA_TYPED_REDUCTION
#undef TENSORA_TYPED_REDUCTION_Axes
#undef TENSORA_TYPED_REDUCTION_Axis
#undef TENSORA_TYPED_REDUCTION_Scan
#undef TENSORA_TYPED_AXIS_OP
#undef TENSORA_TYPED_RESULT

  TypedTensor clamp(Scalar lo, Scalar hi, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.clamp(lo, hi, engine, where));
  }
  TypedTensor clamp(const TypedTensor& lo, const TypedTensor& hi, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.clamp(lo.t_, hi.t_, engine, where));
  }

  // Contractions (docs/contractions.md).
  TypedTensor matmul(const TypedTensor& rhs, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.matmul(rhs.t_, engine, where));
  }
  void dot_into(const TypedTensor& rhs, Engine& engine, const TypedTensor& dest, Loc where = Loc::current()) const {
    t_.dot_into(rhs.t_, engine, dest.t_, where);
  }
  TypedTensor dot_general(const TypedTensor& rhs, DotGeneralConfig config, Engine& engine,
                          Loc where = Loc::current()) const {
    return TypedTensor(t_.dot_general(rhs.t_, std::move(config), engine, where));
  }
  void dot_general_into(const TypedTensor& rhs, DotGeneralConfig config, Engine& engine, const TypedTensor& dest,
                        Loc where = Loc::current()) const {
    t_.dot_general_into(rhs.t_, std::move(config), engine, dest.t_, where);
  }

  // Structural ops (docs/structural.md); index operands are I32/I64 tensors.
  std::vector<TypedTensor> split(std::vector<std::int64_t> sizes, std::int64_t axis, Loc where = Loc::current()) const {
    std::vector<TypedTensor> out;
    for (auto& piece : t_.split(std::move(sizes), axis, where)) out.push_back(TypedTensor(std::move(piece)));
    return out;
  }
  TypedTensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, Engine& engine,
                  Loc where = Loc::current()) const {
    return TypedTensor(t_.pad(std::move(widths), engine, where));
  }
  TypedTensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options, Engine& engine,
                  Loc where = Loc::current()) const {
    return TypedTensor(t_.pad(std::move(widths), options, engine, where));
  }
  TypedTensor reverse(std::vector<std::int64_t> axes, Loc where = Loc::current()) const {
    return TypedTensor(t_.reverse(std::move(axes), where));
  }
  TypedTensor take_along_axis(const Tensor& indices, std::int64_t axis, Engine& engine,
                              Loc where = Loc::current()) const {
    return TypedTensor(t_.take_along_axis(indices, axis, engine, where));
  }
  TypedTensor gather(const Tensor& indices, std::int64_t axis, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.gather(indices, axis, engine, where));
  }
  TypedTensor index_select(std::int64_t axis, const Tensor& indices, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.index_select(axis, indices, engine, where));
  }
  TypedTensor scatter_add(std::int64_t axis, const Tensor& indices, const TypedTensor& src, Engine& engine,
                          Loc where = Loc::current()) const {
    return TypedTensor(t_.scatter_add(axis, indices, src.t_, engine, where));
  }
  TypedTensor tril(std::int64_t k, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.tril(k, engine, where));
  }
  TypedTensor triu(std::int64_t k, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.triu(k, engine, where));
  }
  TypedTensor diagonal(std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1,
                       Loc where = Loc::current()) const {
    return TypedTensor(t_.diagonal(offset, axis1, axis2, where));
  }
  TypedTensor embed_diag(std::int64_t offset, Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor(t_.embed_diag(offset, engine, where));
  }

  // Checked (up the lattice) and lossy conversions to another element type.
  template <Element U>
  TypedTensor<U> convert(Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor<U>(t_.convert(dtype_of<U>(), engine, where));
  }
  template <Element U>
  TypedTensor<U> cast(Engine& engine, Loc where = Loc::current()) const {
    return TypedTensor<U>(t_.cast(dtype_of<U>(), engine, where));
  }

  // ---- erasure ------------------------------------------------------------------------
  const Tensor& tensor() const { return t_; }
  operator const Tensor&() const { return t_; }  // NOLINT: Tensor(typed) erases the type

 private:
  friend class Tensor;
  template <class U>
  friend class TypedTensor;
  explicit TypedTensor(Tensor t) : t_(std::move(t)) {}
  Tensor t_;
};

template <class T>
std::ostream& operator<<(std::ostream& os, const TypedTensor<T>& t) {
  return os << t.tensor();
}

template <Element T>
TypedTensor<T> Tensor::typed(Loc where) const {
  check_element(dtype_of<T>(), "typed", where);
  return TypedTensor<T>(*this);
}

}  // namespace tensora
