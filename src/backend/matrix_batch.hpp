// The matrices of a batched operand (ops/linalg_spec.hpp): the last two axes (or the last one,
// for the vectors of pivots and eigenvalues) are the matrix, the leading ones the batch. Every
// backend copies each matrix into a dense column-major buffer before a factorization writes
// over it, and back out afterwards, so the operands' strides never reach a kernel.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "tensora/tensor.hpp"

namespace tensora::backend {

class MatrixBatch {
 public:
  // `matrix_axes`: 2 for matrices, 1 for vectors (one column).
  explicit MatrixBatch(const Tensor& t, int matrix_axes = 2)
      : t_(&t), batch_axes_(t.rank() - matrix_axes), element_(static_cast<std::int64_t>(size_of(t.dtype()))) {
    const auto r = static_cast<std::size_t>(t.rank());
    rows_ = t.shape()[r - static_cast<std::size_t>(matrix_axes)];
    row_stride_ = t.strides()[r - static_cast<std::size_t>(matrix_axes)];
    cols_ = matrix_axes == 2 ? t.shape()[r - 1] : 1;
    col_stride_ = matrix_axes == 2 ? t.strides()[r - 1] : 0;
    count_ = 1;
    for (std::int64_t d = 0; d < batch_axes_; ++d) count_ *= t.shape()[static_cast<std::size_t>(d)];
    base_ = static_cast<char*>(const_cast<void*>(t.element_ptr()));
    // The batch axes as one run (dense, reordered or broadcast stacks): matrix i then lies at
    // i * flat_step_, with no index split per matrix.
    std::int64_t next = -1, step = 0;
    for (std::int64_t d = 0; d < batch_axes_ && flat_; ++d) {
      const std::int64_t extent = t.shape()[static_cast<std::size_t>(d)], stride = t.strides()[static_cast<std::size_t>(d)];
      if (extent == 1) continue;
      if (next < 0) step = stride;
      else flat_ = stride == next;
      next = stride * extent;
    }
    flat_step_ = step;
  }

  std::int64_t count() const { return count_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  // Element strides within a matrix.
  std::int64_t row_stride() const { return row_stride_; }
  std::int64_t col_stride() const { return col_stride_; }

  // The element distance between matrices i and i + 1 for every i in [first, first + count)
  // when they lie on one run of the first batch axis (equally spaced; 0 for a broadcast
  // batch), else nullopt.
  std::optional<std::int64_t> step(std::int64_t first, std::int64_t count) const {
    if (flat_) return flat_step_;
    const std::int64_t extent = t_->shape()[0];
    if (first % extent + count <= extent) return t_->strides()[0];
    return std::nullopt;
  }

  // The first element of matrix i (column-major order over the batch axes).
  char* matrix(std::int64_t i) const {
    if (flat_) return base_ + i * flat_step_ * element_;
    std::int64_t offset = 0;
    for (std::int64_t d = 0; d < batch_axes_; ++d) {
      const std::int64_t extent = t_->shape()[static_cast<std::size_t>(d)];
      offset += (i % extent) * t_->strides()[static_cast<std::size_t>(d)];
      i /= extent;
    }
    return base_ + offset * element_;
  }

  // Matrix i itself when it is one dense column-major block (leading dimension rows), else
  // null: a backend may then compute in it instead of copying in and out.
  template <class T>
  T* dense(std::int64_t i) const {
    if (row_stride_ != 1 || (cols_ > 1 && col_stride_ != rows_)) return nullptr;
    return reinterpret_cast<T*>(matrix(i));
  }

  // dense (rows x cols, leading dimension ld) = matrix i.
  template <class T>
  void gather(std::int64_t i, T* dense, std::int64_t ld) const {
    const T* src = reinterpret_cast<const T*>(matrix(i));
    for (std::int64_t c = 0; c < cols_; ++c) {
      if (row_stride_ == 1) {  // a column is contiguous: one copy (a large matrix's copy halves)
        std::memcpy(dense + c * ld, src + c * col_stride_, static_cast<std::size_t>(rows_) * sizeof(T));
        continue;
      }
      for (std::int64_t r = 0; r < rows_; ++r) dense[r + c * ld] = src[r * row_stride_ + c * col_stride_];
    }
  }
  // matrix i = dense (rows x cols, leading dimension ld).
  template <class T>
  void scatter(std::int64_t i, const T* dense, std::int64_t ld) const {
    T* dst = reinterpret_cast<T*>(matrix(i));
    for (std::int64_t c = 0; c < cols_; ++c) {
      if (row_stride_ == 1) {
        std::memcpy(dst + c * col_stride_, dense + c * ld, static_cast<std::size_t>(rows_) * sizeof(T));
        continue;
      }
      for (std::int64_t r = 0; r < rows_; ++r) dst[r * row_stride_ + c * col_stride_] = dense[r + c * ld];
    }
  }

 private:
  const Tensor* t_;
  std::int64_t batch_axes_, element_;
  std::int64_t rows_ = 0, cols_ = 0, row_stride_ = 0, col_stride_ = 0, count_ = 1;
  char* base_ = nullptr;
  bool flat_ = true;
  std::int64_t flat_step_ = 0;
};

}  // namespace tensora::backend
