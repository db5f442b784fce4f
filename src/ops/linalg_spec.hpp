// The linear-algebra primitives the backends implement (backend::Backend::linalg), what each
// reads and writes, and the checks and error messages every front door shares
// (docs/linalg.md). A primitive works matrix by matrix over a batch: the last two axes of
// every operand are the matrix, the leading axes (the same for every operand, already
// broadcast) the batch. Inputs may have any strides; outputs are fresh column-major tensors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/linalg.hpp"
#include "tensora/shape.hpp"

namespace tensora::linalg_detail {

// in -> out, per matrix (n x n unless said; k = min(m, n)):
//   Cholesky         {a}                -> {c}: lower l (a = l l^H) or upper u (a = u^H u), the
//                                          other triangle zero. info: the order of the first
//                                          leading minor that is not positive.
//   TriangularSolve  {a, b (n x r)}     -> {x (n x r)}: op(a) x = b with a's upper or lower
//                                          triangle. info: the first zero diagonal entry.
//   LuFactor         {a (m x n)}        -> {lu (m x n), pivots (k, I32, 1-based)}: a = p l u.
//                                          info: the first exactly zero pivot (lu still valid).
//   Det              {a}                -> {d (1)}: the determinant, from LuFactor's factors
//                                          (never stored): the product, in the order of the
//                                          diagonal, of u(k, k), negated where pivot k
//                                          interchanged rows, accumulated as a product
//                                          reduction accumulates (ops/reducers.hpp). info:
//                                          LuFactor's (d is then 0, as it should be).
//   LuSolve          {lu, pivots, b}    -> {x (n x r)}: op(a) x = b from lu_factor's factors.
//   Solve            {a, b (n x r)}     -> {x (n x r)}: a x = b, LuFactor then LuSolve on each
//                                          matrix with the factors never stored (LAPACK's
//                                          gesv). info: LuFactor's (x is then not meaningful).
//   Qr               {a (m x n)}        -> {q (m x kq), r (kq x n)} with kq = k (m if complete),
//                                          or {r (k x n)} without vectors. diag(r) is real and
//                                          non-negative (the gauge, applied by the backend).
//   Eigh             {a}                -> {w (n, real), v} or {w}: ascending eigenvalues of the
//                                          Hermitian matrix in a's upper or lower triangle; each
//                                          column of v has its largest-modulus entry (the first
//                                          of equals) real and positive. info: no convergence.
//   Svd              {a (m x n)}        -> {u (m x ku), s (k, real), vh (kv x n)} or {s}; ku = k
//                                          (m if complete), kv = k (n if complete); s
//                                          descending; u's columns gauged as v above, vh's rows
//                                          to match. info: no convergence.
//   Eig              {a}                -> {w (n, complex), v (n x n, complex)} or {w}: the
//                                          eigenvalues of a general matrix in LAPACK's order
//                                          (not sorted) and unit-norm right eigenvectors,
//                                          gauged as Eigh's. Outputs are complex for a real a.
//                                          info: no convergence.
enum class Kind : std::uint8_t { Cholesky, TriangularSolve, LuFactor, Det, LuSolve, Solve, Qr, Eigh, Svd, Eig };

// op(a) in the solves.
enum class Trans : std::uint8_t { None, Transpose, Adjoint };

struct Call {
  Kind kind;
  bool upper = false;          // Cholesky, TriangularSolve, Eigh
  bool unit_diagonal = false;  // TriangularSolve
  Trans trans = Trans::None;   // TriangularSolve, LuSolve
  bool vectors = true;         // Qr, Eigh, Svd, Eig
  bool complete = false;       // Qr, Svd
};

// The first matrix of the batch (column-major batch order) that failed: LAPACK's info > 0, or
// a NaN / infinity found in a matrix before it was factorized (Cholesky, LuFactor, Qr, Eigh,
// Svd, Eig never see one: LAPACK may loop or return garbage on them).
struct Failure {
  std::int64_t batch = 0;
  std::int64_t info = 0;
  bool non_finite = false;
};
using Status = std::optional<Failure>;

// Whether the kind factorizes its first input (and so refuses non-finite values in it).
constexpr bool factorizes(Kind kind) { return kind != Kind::TriangularSolve && kind != Kind::LuSolve; }

// The real dtype of a linalg dtype (singular values, eigenvalues of Hermitian matrices).
DType real_of(DType dtype);

// The checks of one operand: a float or complex dtype that LAPACK has (F32, F64, C64, C128;
// UnsupportedDType with a convert hint otherwise) and at least two axes (`what`: "a", "b").
void check_matrix(std::string_view op, std::string_view what, const Shape& shape, DType dtype,
                  SourceLocation where);
// check_matrix and a square matrix.
void check_square(std::string_view op, std::string_view what, const Shape& shape, DType dtype,
                  SourceLocation where);

// The batch axes of a matrix shape, and a batch with matrix (or vector) extents appended.
inline Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }
inline Shape with_tail(Shape batch, std::initializer_list<std::int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}

// Whether a solve's b is a batch of vectors (torch.linalg.solve's rule): b has one axis, or
// exactly a's shape without a's last axis. Otherwise b is a batch of matrices.
inline bool vector_rhs(const Shape& a, const Shape& b) {
  return b.size() == 1 || (b.size() + 1 == a.size() && std::equal(b.begin(), b.end(), a.begin()));
}

// A right-hand side against a (m x n): b's rows (`rows`) must be m, or its columns n for a solve
// from the right; otherwise ShapeMismatch, expecting b's shape with that extent set.
void check_rhs(std::string_view op, const Shape& a, const Shape& b, bool rows, SourceLocation where);

// SvdOptions' checks (InvalidArgument naming the option); whether the options truncate.
bool check_svd_options(const linalg::SvdOptions& options, SourceLocation where);

// matrix_norm's two axes, checked against an operand of `rank` axes (InvalidArgument unless two
// different axes; AxisOutOfRange), and the permutation that puts them last, rows then columns.
struct NormAxes {
  std::int64_t rows, cols;
  std::vector<std::int64_t> order;
};
NormAxes norm_axes(std::string_view op, const std::vector<std::int64_t>& axes, std::int64_t rank, SourceLocation where);

// The index tuple over `batch` of the matrix at column-major position `index`.
std::vector<std::int64_t> batch_index(const Shape& batch, std::int64_t index);

// "matrix 3 of the batch" (a one-axis batch), "matrix (1, 2) of the batch", or "the matrix".
std::string which_matrix(const Shape& batch, std::int64_t index);

// Throws LinAlgError for a failure of `kind` in op `op`, naming the matrix and LAPACK's info,
// e.g. "cholesky: matrix 3 of the batch is not positive definite (leading minor 2 is not
// positive)". `batch` is the batch shape the failure's index counts in.
[[noreturn]] void fail(std::string_view op, Kind kind, const Failure& failure, const Shape& batch,
                       SourceLocation where);

}  // namespace tensora::linalg_detail
