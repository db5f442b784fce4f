// Linear algebra with numpy.linalg / torch.linalg names and semantics (docs/linalg.md). A
// matrix is the last two axes of a tensor; leading axes are a batch, broadcast where two
// operands meet. Dtypes F32, F64, C64, C128: the direct forms throw UnsupportedDType for others
// (convert first); the eager and traced forms promote integers, Bool and half floats to the
// device's default float.
//
//   auto [u, s, vh] = linalg::svd(a, linalg::SvdOptions{.max_rank = 16}, e);
//   auto x = linalg::solve(a, b, e);
//
// Numerical failures (a singular matrix in solve / inv / lu_solve, one that is not positive
// definite in cholesky, no convergence in svd / eigh / eig, a NaN or infinity in a matrix that is
// factorized) throw Error with kind LinAlgError and a detail naming the matrix of the batch and
// LAPACK's info. Results with several parts are aggregates, so structured bindings work.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

class EagerTensor;
class TracedTensor;

namespace linalg {

inline constexpr double inf = std::numeric_limits<double>::infinity();

// ---- options -------------------------------------------------------------------------------

// solve_triangular: a is upper (else lower) triangular; left: a x = b (else x a = b);
// unit_diagonal: a's diagonal is taken as ones and not read.
struct TriangularOptions {
  bool upper = false;
  bool left = true;
  bool unit_diagonal = false;
};

// cholesky: the upper factor u (a = u^H u) instead of the lower l (a = l l^H).
struct CholeskyOptions {
  bool upper = false;
};

// qr: Reduced (q m x k, r k x n, k = min(m, n)), Complete (q m x m, r m x n) or R (r only,
// k x n; q is empty).
enum class QrMode { Reduced, Complete, R };
struct QrOptions {
  QrMode mode = QrMode::Reduced;
};

// svd. full_matrices: u m x m and vh n x n (else m x k and k x n). Truncation, for tensor
// networks: keep at most max_rank triplets and drop singular values below `cutoff` (relative:
// below cutoff * the largest singular value of that matrix; absolute: below cutoff). Across a
// batch the kept rank is the largest any matrix needs. discarded_weight is the sum of the
// squares of each matrix's dropped singular values. Truncation and full_matrices exclude each
// other.
//
// gap_epsilon (eager and traced): the safeguard of the gradient's inverse gaps
// 1 / (s_j^2 - s_i^2), which become d / (d^2 + eps^2) with eps = gap_epsilon * |s^2|; default
// sqrt of the dtype's machine epsilon (docs/linalg.md, "Autodiff").
struct SvdOptions {
  bool full_matrices = false;
  std::optional<std::int64_t> max_rank = std::nullopt;
  double cutoff = 0.0;
  bool relative_cutoff = true;
  std::optional<double> gap_epsilon = std::nullopt;
};

// eigh / eigvalsh: read the upper (else lower) triangle of a. gap_epsilon (eager and traced
// eigh): the safeguard of the eigenvector gradient's inverse gaps 1 / (w_j - w_i), as in
// SvdOptions, with eps = gap_epsilon * |w|.
struct EighOptions {
  bool upper = false;
  std::optional<double> gap_epsilon = std::nullopt;
};

// eig: gap_epsilon (eager and traced) safeguards the eigenvector gradient's inverse gaps
// 1 / (w_j - w_i) of the complex eigenvalues as EighOptions does, with eps = gap_epsilon * |w|.
struct EigOptions {
  std::optional<double> gap_epsilon = std::nullopt;
};

// pinv: singular values below rtol * the largest are treated as zero (default: max(m, n) *
// the dtype's epsilon); hermitian: a is Hermitian, use its eigendecomposition.
struct PinvOptions {
  std::optional<double> rtol = std::nullopt;
  bool hermitian = false;
};

// lstsq: singular values below rcond * the largest count as zero (default: max(m, n) * eps).
struct LstsqOptions {
  std::optional<double> rcond = std::nullopt;
};

// The order of a norm: "fro", "nuc", or a number (p, inf, -inf; 0 counts non-zeros for vector
// norms).
struct Ord {
  Ord(double p) : p(p) {}                    // NOLINT: implicit, so `.ord = 2` works
  Ord(int p) : p(p) {}                       // NOLINT
  Ord(const char* name) : name(name) {}      // NOLINT: "fro", "nuc"
  Ord(std::string name) : name(std::move(name)) {}  // NOLINT
  std::string name;  // empty: numeric
  double p = 2;
};

// matrix_norm over two axes (default the last two): "fro" (default), "nuc", 1, -1, 2, -2,
// inf, -inf, as numpy.linalg.norm.
struct NormOptions {
  Ord ord = "fro";
  std::vector<std::int64_t> axes = {-2, -1};
  bool keepdims = false;
};

// vector_norm over `axes` (default every axis, the tensor taken as one vector).
struct VectorNormOptions {
  Ord ord = 2;
  std::vector<std::int64_t> axes = {};
  bool keepdims = false;
};

// ---- results -------------------------------------------------------------------------------

template <class T>
struct BasicQR {
  T q, r;
};
template <class T>
struct BasicEigh {
  T eigenvalues, eigenvectors;  // ascending, real; the columns of eigenvectors
};
// eig: complex eigenvalues (in LAPACK's order, not sorted) and unit-norm right eigenvectors,
// a v = v diag(w); complex for a real a too (C64 for F32, C128 for F64).
template <class T>
struct BasicEig {
  T eigenvalues, eigenvectors;
};
template <class T>
struct BasicLU {
  T p, l, u;  // a = p l u; l unit lower trapezoidal, u upper
};
template <class T>
struct BasicLUFactor {
  T lu, pivots;  // LAPACK's packed factors and 1-based row interchanges (I32)
};
template <class T>
struct BasicSlogdet {
  T sign, logabsdet;  // det = sign * exp(logabsdet); sign 0 and logabsdet -inf when singular
};
template <class T>
struct BasicLstsq {
  T solution, residuals, rank, singular_values;
};
// u diag(s) vh; `auto [u, s, vh] = svd(...)` binds the three factors (tuple protocol below).
template <class T>
struct BasicSVD {
  T u, s, vh;
  T discarded_weight;  // per matrix of the batch; zeros unless truncated
  template <std::size_t I>
  T& get() & {
    return part<I>(*this);
  }
  template <std::size_t I>
  const T& get() const& {
    return part<I>(*this);
  }
  template <std::size_t I>
  T&& get() && {
    return std::move(part<I>(*this));
  }

 private:
  template <std::size_t I, class Self>
  static auto& part(Self& self) {
    if constexpr (I == 0) return self.u;
    else if constexpr (I == 1) return self.s;
    else return self.vh;
  }
};

using QR = BasicQR<Tensor>;
using Eigh = BasicEigh<Tensor>;
using Eig = BasicEig<Tensor>;
using LU = BasicLU<Tensor>;
using LUFactor = BasicLUFactor<Tensor>;
using Slogdet = BasicSlogdet<Tensor>;
using Lstsq = BasicLstsq<Tensor>;
using SVD = BasicSVD<Tensor>;

// ---- the direct forms (strict dtypes, an explicit engine) -----------------------------------

using Loc = SourceLocation;

// b: (..., n, k), or a batch of vectors (..., n): b has one axis, or a's shape without its last.
Tensor solve(const Tensor& a, const Tensor& b, Engine& engine, Loc where = Loc::current());
Tensor solve_triangular(const Tensor& a, const Tensor& b, TriangularOptions options, Engine& engine,
                        Loc where = Loc::current());
Tensor cholesky(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor cholesky(const Tensor& a, CholeskyOptions options, Engine& engine, Loc where = Loc::current());
QR qr(const Tensor& a, Engine& engine, Loc where = Loc::current());
QR qr(const Tensor& a, QrOptions options, Engine& engine, Loc where = Loc::current());
SVD svd(const Tensor& a, Engine& engine, Loc where = Loc::current());
SVD svd(const Tensor& a, const SvdOptions& options, Engine& engine, Loc where = Loc::current());
Tensor svdvals(const Tensor& a, Engine& engine, Loc where = Loc::current());
Eigh eigh(const Tensor& a, Engine& engine, Loc where = Loc::current());
Eigh eigh(const Tensor& a, EighOptions options, Engine& engine, Loc where = Loc::current());
Tensor eigvalsh(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor eigvalsh(const Tensor& a, EighOptions options, Engine& engine, Loc where = Loc::current());
Eig eig(const Tensor& a, Engine& engine, Loc where = Loc::current());
Eig eig(const Tensor& a, EigOptions options, Engine& engine, Loc where = Loc::current());
Tensor eigvals(const Tensor& a, Engine& engine, Loc where = Loc::current());
LU lu(const Tensor& a, Engine& engine, Loc where = Loc::current());
LUFactor lu_factor(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor lu_solve(const LUFactor& factor, const Tensor& b, Engine& engine, Loc where = Loc::current());
Tensor det(const Tensor& a, Engine& engine, Loc where = Loc::current());
Slogdet slogdet(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor inv(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor pinv(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor pinv(const Tensor& a, PinvOptions options, Engine& engine, Loc where = Loc::current());
Lstsq lstsq(const Tensor& a, const Tensor& b, Engine& engine, Loc where = Loc::current());
Lstsq lstsq(const Tensor& a, const Tensor& b, LstsqOptions options, Engine& engine, Loc where = Loc::current());
Tensor matrix_norm(const Tensor& a, Engine& engine, Loc where = Loc::current());
Tensor matrix_norm(const Tensor& a, const NormOptions& options, Engine& engine, Loc where = Loc::current());
Tensor vector_norm(const Tensor& x, Engine& engine, Loc where = Loc::current());
Tensor vector_norm(const Tensor& x, const VectorNormOptions& options, Engine& engine, Loc where = Loc::current());
Tensor matrix_exp(const Tensor& a, Engine& engine, Loc where = Loc::current());

// ---- the eager and traced forms ----------------------------------------------------------------
// Integers, Bool and half floats are promoted to the device's default float (a visible
// convert), two operands to their join; every function here is differentiable, reverse and
// forward (docs/linalg.md, "Autodiff"). Of the factorizations with several results, eigh, eig,
// svd (reduced or truncated), qr (m >= n), lu and lu_factor (square) are differentiable; the
// pivots of lu_factor are a constant.
// The traced svd takes max_rank but no cutoff, and the traced lstsq gives residuals whenever
// m > n: a graph's shapes are known before it runs.
#define TENSORA_LINALG_DIFFERENTIABLE(T)                                                         \
  T solve(const T& a, const T& b, Loc where = Loc::current());                                   \
  T solve_triangular(const T& a, const T& b, TriangularOptions options, Loc where = Loc::current()); \
  T cholesky(const T& a, Loc where = Loc::current());                                            \
  T cholesky(const T& a, CholeskyOptions options, Loc where = Loc::current());                   \
  T det(const T& a, Loc where = Loc::current());                                                 \
  BasicSlogdet<T> slogdet(const T& a, Loc where = Loc::current());                               \
  T inv(const T& a, Loc where = Loc::current());                                                 \
  T eigvalsh(const T& a, Loc where = Loc::current());                                            \
  T eigvalsh(const T& a, EighOptions options, Loc where = Loc::current());                       \
  T svdvals(const T& a, Loc where = Loc::current());                                             \
  BasicEigh<T> eigh(const T& a, Loc where = Loc::current());                                     \
  BasicEigh<T> eigh(const T& a, EighOptions options, Loc where = Loc::current());                \
  BasicSVD<T> svd(const T& a, Loc where = Loc::current());                                       \
  BasicSVD<T> svd(const T& a, const SvdOptions& options, Loc where = Loc::current());            \
  BasicQR<T> qr(const T& a, Loc where = Loc::current());                                         \
  BasicQR<T> qr(const T& a, QrOptions options, Loc where = Loc::current());                      \
  BasicEig<T> eig(const T& a, Loc where = Loc::current());                                       \
  BasicEig<T> eig(const T& a, EigOptions options, Loc where = Loc::current());                  \
  T eigvals(const T& a, Loc where = Loc::current());                                             \
  BasicLU<T> lu(const T& a, Loc where = Loc::current());                                         \
  BasicLUFactor<T> lu_factor(const T& a, Loc where = Loc::current());                            \
  T lu_solve(const BasicLUFactor<T>& factor, const T& b, Loc where = Loc::current());            \
  T pinv(const T& a, Loc where = Loc::current());                                                \
  T pinv(const T& a, PinvOptions options, Loc where = Loc::current());                           \
  BasicLstsq<T> lstsq(const T& a, const T& b, Loc where = Loc::current());                       \
  BasicLstsq<T> lstsq(const T& a, const T& b, LstsqOptions options, Loc where = Loc::current());  \
  T matrix_norm(const T& a, Loc where = Loc::current());                                         \
  T matrix_norm(const T& a, const NormOptions& options, Loc where = Loc::current());             \
  T vector_norm(const T& x, Loc where = Loc::current());                                         \
  T vector_norm(const T& x, const VectorNormOptions& options, Loc where = Loc::current());        \
  T matrix_exp(const T& a, Loc where = Loc::current());
TENSORA_LINALG_DIFFERENTIABLE(EagerTensor)
TENSORA_LINALG_DIFFERENTIABLE(TracedTensor)
#undef TENSORA_LINALG_DIFFERENTIABLE

}  // namespace linalg

// The LAPACK the CPU engine's factorizations run on, e.g. "OpenBLAS 0.3.21 (SkylakeX)", or
// "none" (docs/linalg.md; TENSORA_LAPACK=<path> loads another).
std::string lapack_backend();

}  // namespace tensora

// Structured bindings of an SVD bind u, s, vh.
template <class T>
struct std::tuple_size<tensora::linalg::BasicSVD<T>> : std::integral_constant<std::size_t, 3> {};
template <std::size_t I, class T>
struct std::tuple_element<I, tensora::linalg::BasicSVD<T>> {
  using type = T;
};
