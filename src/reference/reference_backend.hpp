// The reference backend: every entry point of backend::Backend as plain serial scalar loops,
// written from the catalog's functors and reducers (ops/). No SIMD, no BLAS, no threads.
#pragma once

#include "backend/backend.hpp"

namespace tensora::reference {

backend::Backend& reference_backend();

// The kernels by family, one file each; the backend class forwards to them.
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void unary(UnaryOp op, const Tensor& out, const Tensor& in);
void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b);
bool any_zero(const Tensor& t);
void copy(const Tensor& out, const Tensor& in);
void cast(const Tensor& out, const Tensor& in);

void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept);
void arg_extreme(bool max, const Tensor& out, const Tensor& x);
void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis);

void fill(const Tensor& out, const void* value);
std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent);
void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                std::int64_t extent);
void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                 std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length, std::int64_t extent);
void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower);

void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const backend::ContractionDims& dims);

void run_fused(const backend::FusedProgram& program, std::span<const Tensor> inputs, const Tensor& out);

// The direct O(n^2) sum per line, in long double, one axis after another.
void fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in);

// Textbook algorithms in long double (complex long double for complex dtypes): Cholesky-Banachiewicz,
// LU with partial pivoting, substitution, Householder QR, cyclic Jacobi for eigh and one-sided
// Jacobi for svd.
linalg_detail::Status linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                             std::span<const Tensor> ins);

}  // namespace tensora::reference
