// TypedTensor<T>: a Tensor whose element type is fixed at compile time, so mixing element
// types in an op is a compile error rather than a runtime DTypeMismatch.
#pragma once

#include <utility>

#include "tensora/tensor.hpp"

namespace tensora {

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
  TypedTensor squeeze(Loc where = Loc::current()) const { return TypedTensor(t_.squeeze(where)); }
  TypedTensor unsqueeze(std::int64_t axis, Loc where = Loc::current()) const {
    return TypedTensor(t_.unsqueeze(axis, where));
  }
  TypedTensor duplicate(Loc where = Loc::current()) const { return TypedTensor(t_.duplicate(where)); }
  TypedTensor to_device(Device device, Loc where = Loc::current()) const {
    return TypedTensor(t_.to_device(device, where));
  }

  // ---- ops: the direct op set with T fixed, so mixing element types does not compile ---
#define TENSORA_TYPED_BINARY(op, R)                                                            \
  TypedTensor<R> op(const TypedTensor& other, Engine& engine, Loc where = Loc::current()) const { \
    return TypedTensor<R>(t_.op(other.t_, engine, where));                                     \
  }                                                                                            \
  TypedTensor<R> op(Scalar other, Engine& engine, Loc where = Loc::current()) const {          \
    return TypedTensor<R>(t_.op(other, engine, where));                                        \
  }
  TENSORA_TYPED_BINARY(add, T)
  TENSORA_TYPED_BINARY(sub, T)
  TENSORA_TYPED_BINARY(mul, T)
  TENSORA_TYPED_BINARY(div, T)
  TENSORA_TYPED_BINARY(pow, T)
  TENSORA_TYPED_BINARY(maximum, T)
  TENSORA_TYPED_BINARY(minimum, T)
  TENSORA_TYPED_BINARY(eq, bool)
  TENSORA_TYPED_BINARY(ne, bool)
  TENSORA_TYPED_BINARY(lt, bool)
  TENSORA_TYPED_BINARY(le, bool)
  TENSORA_TYPED_BINARY(gt, bool)
  TENSORA_TYPED_BINARY(ge, bool)
#undef TENSORA_TYPED_BINARY
#define TENSORA_TYPED_UNARY(op)                                                 \
  TypedTensor op(Engine& engine, Loc where = Loc::current()) const {            \
    return TypedTensor(t_.op(engine, where));                                   \
  }
  TENSORA_TYPED_UNARY(neg)
  TENSORA_TYPED_UNARY(exp)
  TENSORA_TYPED_UNARY(log)
  TENSORA_TYPED_UNARY(sqrt)
  TENSORA_TYPED_UNARY(sin)
  TENSORA_TYPED_UNARY(cos)
  TENSORA_TYPED_UNARY(tanh)
  TENSORA_TYPED_UNARY(sigmoid)
#undef TENSORA_TYPED_UNARY
#define TENSORA_TYPED_REDUCTION(op)                                                                 \
  TypedTensor op(std::vector<std::int64_t> axes, Engine& engine, Loc where = Loc::current()) const { \
    return TypedTensor(t_.op(std::move(axes), engine, where));                                       \
  }                                                                                                  \
  TypedTensor op(Engine& engine, Loc where = Loc::current()) const { return TypedTensor(t_.op(engine, where)); }
  TENSORA_TYPED_REDUCTION(sum)
  TENSORA_TYPED_REDUCTION(prod)
  TENSORA_TYPED_REDUCTION(mean)
  TENSORA_TYPED_REDUCTION(max)
  TENSORA_TYPED_REDUCTION(min)
#undef TENSORA_TYPED_REDUCTION
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
