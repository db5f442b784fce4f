#include "ops/linalg_spec.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/checks.hpp"
#include "ops/lapack_dtypes.hpp"

namespace tensora::linalg_detail {

DType real_of(DType dtype) {
  switch (dtype) {
    case DType::C64: return DType::F32;
    case DType::C128: return DType::F64;
    default: return dtype;
  }
}

void check_matrix(std::string_view op, std::string_view what, const Shape& shape, DType dtype, SourceLocation where) {
  if (!is_lapack_dtype(dtype))
    check::fail_unsupported_dtype(op, dtype,
                                  "linear algebra runs on F32, F64, C64 and C128; convert first, e.g. "
                                  "x.convert(DType::F64, engine)",
                                  where);
  if (shape.size() < 2)
    throw Error(ErrorKind::Validation, std::string(op),
                std::string(what) + " must have at least two axes (a matrix, or a batch of them), got shape " +
                    to_string(shape),
                InvalidArgument{std::string(what)}, where);
}

void check_square(std::string_view op, std::string_view what, const Shape& shape, DType dtype, SourceLocation where) {
  check_matrix(op, what, shape, dtype, where);
  const std::int64_t m = shape[shape.size() - 2], n = shape[shape.size() - 1];
  if (m != n) {
    Shape square = shape;
    square.back() = m;
    check::fail_shape(op,
                      std::string(what) + " must be square (the last two axes equal), got " + std::to_string(m) + " x " +
                          std::to_string(n),
                      square, shape, where);
  }
}

void check_rhs(std::string_view op, const Shape& a, const Shape& b, bool rows, SourceLocation where) {
  const std::int64_t m = a[a.size() - 2], n = a.back();
  const std::int64_t want = rows ? m : n;
  const std::size_t axis = b.size() - (rows ? 2 : 1);
  if (b[axis] == want) return;
  Shape expected = b;
  expected[axis] = want;
  check::fail_shape(op,
                    "b must have " + std::to_string(want) + (rows ? " rows" : " columns") + " to match a (" +
                        std::to_string(m) + " x " + std::to_string(n) + "), got shape " + to_string(b),
                    expected, b, where);
}

bool check_svd_options(const linalg::SvdOptions& o, SourceLocation where) {
  const bool truncate = o.max_rank.has_value() || o.cutoff > 0;
  if (truncate && o.full_matrices)
    check::fail_invalid("svd", "truncation (max_rank, cutoff) keeps a reduced SVD; full_matrices must be false",
                        "full_matrices", where);
  if (o.max_rank && *o.max_rank < 1)
    check::fail_invalid("svd", "max_rank must be at least 1, got " + std::to_string(*o.max_rank), "max_rank", where);
  if (!(o.cutoff >= 0) || !std::isfinite(o.cutoff))
    check::fail_invalid("svd", "cutoff must be finite and non-negative, got " + std::to_string(o.cutoff), "cutoff", where);
  if (o.gap_epsilon && !(*o.gap_epsilon >= 0 && std::isfinite(*o.gap_epsilon)))
    check::fail_invalid("svd", "gap_epsilon must be finite and non-negative, got " + std::to_string(*o.gap_epsilon),
                        "gap_epsilon", where);
  return truncate;
}

NormAxes norm_axes(std::string_view op, const std::vector<std::int64_t>& axes, std::int64_t rank, SourceLocation where) {
  if (axes.size() != 2)
    check::fail_invalid(op, "axes must name two axes, got " + std::to_string(axes.size()), "axes", where);
  NormAxes r{check::axis(op, axes[0], rank, where), check::axis(op, axes[1], rank, where), {}};
  if (r.rows == r.cols) check::fail_invalid(op, "axes must be two different axes", "axes", where);
  for (std::int64_t d = 0; d < rank; ++d)
    if (d != r.rows && d != r.cols) r.order.push_back(d);
  r.order.push_back(r.rows);
  r.order.push_back(r.cols);
  return r;
}

std::vector<std::int64_t> batch_index(const Shape& batch, std::int64_t index) {
  std::vector<std::int64_t> out(batch.size());
  for (std::size_t d = 0; d < batch.size(); ++d) {
    out[d] = index % batch[d];
    index /= batch[d];
  }
  return out;
}

namespace {

std::string problem(Kind kind, std::int64_t info) {
  const std::string i = std::to_string(info);
  switch (kind) {
    case Kind::Cholesky: return "is not positive definite (leading minor " + i + " is not positive)";
    case Kind::TriangularSolve: return "is singular (diagonal entry " + i + " is zero)";
    case Kind::LuFactor:
    case Kind::Det:
    case Kind::LuSolve:
    case Kind::Solve: return "is singular (U(" + i + ", " + i + ") of its LU factorization is exactly zero)";
    case Kind::Eigh: return "did not converge (LAPACK info " + i + ")";
    case Kind::Svd:
    case Kind::Eig: return "did not converge (LAPACK info " + i + ")";
    case Kind::Qr: return "failed (LAPACK info " + i + ")";
  }
  return "failed (LAPACK info " + i + ")";
}

}  // namespace

std::string which_matrix(const Shape& batch, std::int64_t index) {
  if (batch.empty()) return "the matrix";
  const auto idx = batch_index(batch, index);
  if (idx.size() == 1) return "matrix " + std::to_string(idx[0]) + " of the batch";
  std::string s = "matrix (";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ") of the batch";
}

void fail(std::string_view op, Kind kind, const Failure& failure, const Shape& batch, SourceLocation where) {
  std::string message = which_matrix(batch, failure.batch);
  message += failure.non_finite ? " has a NaN or infinity (it is not factorized; check the input)"
                                : " " + problem(kind, failure.info);
  throw Error(ErrorKind::LinAlgError, std::string(op), std::move(message),
              LinAlgFailure{batch_index(batch, failure.batch), failure.info, failure.non_finite}, where);
}

}  // namespace tensora::linalg_detail
