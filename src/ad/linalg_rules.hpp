// The AD rules of the differentiable linalg functions (tensora/linalg.hpp), written once over
// the builder (conjugate Wirtinger cotangents, as every rule here). The builder's linalg
// methods (solve, solve_triangular, eigh_vectors, svd_u, svd_vh) run the function in the front
// door the rule is used from. docs/linalg.md, "Autodiff", has the formulas and their sources.
#pragma once

#include "ad/builder.hpp"
#include "ad/contraction_rules.hpp"
#include "tensora/linalg.hpp"

namespace tensora::ad {

namespace linalg_rules {

template <class B, class V = typename B::Value>
V mH(B& b, const V& x) {
  return b.conj(MatmulRule::mT(b, x));
}

// The identity of x's matrix size, in x's dtype (broadcast over the batch by the ops using it).
template <class B, class V = typename B::Value>
V eye_like(B& b, const V& x) {
  const Shape s = b.shape(x);
  const std::int64_t n = s.back();
  return b.embed_diag(b.binary(BinaryOp::Add, b.zeros({n}, b.dtype(x)), Scalar(1.0)), 0);
}

// tril(x, -1) + diag(x) / 2: the map Cholesky's derivative goes through (self-adjoint).
template <class B, class V = typename B::Value>
V phi(B& b, const V& x) {
  const V half = b.binary(BinaryOp::Mul, b.diagonal(x, 0, -2, -1), Scalar(0.5));
  return b.binary(BinaryOp::Add, b.tril(x, -1), b.embed_diag(half, 0));
}

template <class B, class V = typename B::Value>
V hermitian_part(B& b, const V& x) {
  return b.binary(BinaryOp::Mul, b.binary(BinaryOp::Add, x, mH(b, x)), Scalar(0.5));
}

// The real part of the diagonal of x as x's real dtype.
template <class B, class V = typename B::Value>
V real_diagonal(B& b, const V& x) {
  const V d = b.diagonal(x, 0, -2, -1);
  return is_complex(b.dtype(d)) ? b.unary(UnaryOp::Real, d) : d;
}

// u diag(d) for real d (..., k): d broadcast over u's rows, in u's dtype.
template <class B, class V = typename B::Value>
V scale_columns(B& b, const V& u, const V& d) {
  Shape s = b.shape(d);
  s.insert(s.end() - 1, 1);
  return b.binary(BinaryOp::Mul, u, b.cast(b.reshape(d, s), b.dtype(u)));
}

}  // namespace linalg_rules

// a = l l^H (upper: u^H u). With X = l^{-1} da l^{-H}: dl = l phi(X); the cotangent
// ga = l^{-H} phi(l^H gl) l^{-1}, made Hermitian (a is). Murray (2016); PyTorch's
// cholesky_backward.
struct CholeskyRule {
  bool upper = false;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    if (!needs[0]) return;
    const V l = upper ? mH(b, a.out) : a.out;
    const V gl = upper ? mH(b, g) : g;
    const V p = phi(b, b.matmul(mH(b, l), gl));
    // l^{-H} p l^{-1}: l^H is upper triangular; the second solve is from the right.
    const V y = b.solve_triangular(mH(b, l), p, linalg::TriangularOptions{.upper = true, .left = true});
    gin[0] = hermitian_part(b, b.solve_triangular(l, y, linalg::TriangularOptions{.upper = false, .left = false}));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace linalg_rules;
    const V l = upper ? mH(b, a.out) : a.out;
    // X = l^{-1} da l^{-H}.
    const V left = b.solve_triangular(l, hermitian_part(b, t[0]), linalg::TriangularOptions{.upper = false, .left = true});
    const V x = b.solve_triangular(mH(b, l), left, linalg::TriangularOptions{.upper = true, .left = false});
    const V dl = b.matmul(l, phi(b, x));
    return upper ? mH(b, dl) : dl;
  }
};

// x = a^{-1} b (b a batch of matrices; batches broadcast): gb = a^{-H} gx, ga = -gb x^H;
// dx = a^{-1} (db - da x). Giles (2008).
struct SolveRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    const V gb = b.solve(mH(b, a.in[0]), g);
    if (needs[1]) gin[1] = sum_to(b, gb, b.shape(a.in[1]));
    if (needs[0])
      gin[0] = sum_to(b, b.binary(BinaryOp::Mul, b.matmul(gb, mH(b, a.out)), Scalar(-1.0)), b.shape(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.solve(a.in[0], b.binary(BinaryOp::Sub, t[1], b.matmul(t[0], a.out)));
  }
};

// x = op^{-1} b with a's triangle T (unit: its strict part plus I): left x = T^{-1} b, right
// x = b T^{-1}. Cotangents: left gb = T^{-H} gx, ga = -gb x^H; right gb = gx T^{-H},
// ga = -x^H gb; ga restricted to the triangle that was read.
struct SolveTriangularRule {
  linalg::TriangularOptions options;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    const linalg::TriangularOptions adj{.upper = !options.upper, .left = options.left,
                                        .unit_diagonal = options.unit_diagonal};
    const V gb = b.solve_triangular(mH(b, a.in[0]), g, adj);
    if (needs[1]) gin[1] = sum_to(b, gb, b.shape(a.in[1]));
    if (needs[0]) {
      const V outer = options.left ? b.matmul(gb, mH(b, a.out)) : b.matmul(mH(b, a.out), gb);
      gin[0] = sum_to(b, b.binary(BinaryOp::Mul, triangle(b, outer), Scalar(-1.0)), b.shape(a.in[0]));
    }
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    const V dt = triangle(b, t[0]);
    const V rhs = b.binary(BinaryOp::Sub, t[1], options.left ? b.matmul(dt, a.out) : b.matmul(a.out, dt));
    return b.solve_triangular(a.in[0], rhs, options);
  }

 private:
  template <class B, class V>
  V triangle(B& b, const V& x) const {
    const std::int64_t k = options.unit_diagonal ? 1 : 0;
    return options.upper ? b.triu(x, k) : b.tril(x, -k);
  }
};

// det: d det = det tr(a^{-1} da); ga = conj(det) g a^{-H}. A singular a has no a^{-1}: its
// gradient is a LinAlgError (docs/linalg.md).
struct DetRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    if (!needs[0]) return;
    const V inv_h = b.solve(mH(b, a.in[0]), eye_like(b, a.in[0]));
    const V scale = b.binary(BinaryOp::Mul, g, b.conj(a.out));
    gin[0] = b.binary(BinaryOp::Mul, inv_h, expand2(b, scale));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    const V x = b.solve(a.in[0], t[0]);
    return b.binary(BinaryOp::Mul, a.out, b.sum(b.diagonal(x, 0, -2, -1), {-1}, false));
  }

  // (...) -> (..., 1, 1), to scale each matrix of a batch.
  template <class B, class V>
  static V expand2(B& b, const V& x) {
    Shape s = b.shape(x);
    s.push_back(1);
    s.push_back(1);
    return b.reshape(x, s);
  }
};

// slogdet's logabsdet = log |det a| (real): d = Re tr(a^{-1} da); ga = g a^{-H}.
struct LogAbsDetRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    if (!needs[0]) return;
    const V inv_h = b.solve(mH(b, a.in[0]), eye_like(b, a.in[0]));
    gin[0] = b.binary(BinaryOp::Mul, inv_h, b.cast(DetRule::expand2(b, g), b.dtype(inv_h)));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.sum(linalg_rules::real_diagonal(b, b.solve(a.in[0], t[0])), {-1}, false);
  }
};

// Eigenvalues of a Hermitian a = v diag(w) v^H: dw = Re diag(v^H da v); ga = v diag(g) v^H.
// Needs no eigenvalue gaps, so repeated eigenvalues are fine.
struct EigvalshRule {
  bool upper = false;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    if (!needs[0]) return;
    const V v = b.eigh_vectors(a.in[0], upper);
    gin[0] = b.matmul(scale_columns(b, v, g), mH(b, v));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace linalg_rules;
    const V v = b.eigh_vectors(a.in[0], upper);
    return real_diagonal(b, b.matmul(b.matmul(mH(b, v), hermitian_part(b, t[0])), v));
  }
};

// Singular values of a = u diag(s) vh (reduced): ds = Re diag(u^H da vh^H); ga = u diag(g) vh.
// Like eigenvalues, they need no gaps; at a zero singular value s is not differentiable and
// this is the subgradient the chosen u, vh give.
struct SvdvalsRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace linalg_rules;
    if (!needs[0]) return;
    gin[0] = b.matmul(scale_columns(b, b.svd_u(a.in[0]), g), b.svd_vh(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace linalg_rules;
    return real_diagonal(b, b.matmul(b.matmul(mH(b, b.svd_u(a.in[0])), t[0]), mH(b, b.svd_vh(a.in[0]))));
  }
};

// exp's Frechet derivative L(a, e) is the upper right block of exp([[a, e], [0, a]]) (Higham
// 2008, 10.6; Mathias 1996): da -> L(a, da), and the cotangent ga = L(a^H, g).
struct MatrixExpRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    if (needs[0]) gin[0] = frechet(b, linalg_rules::mH(b, a.in[0]), g);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return frechet(b, a.in[0], t[0]);
  }

 private:
  template <class B, class V>
  static V frechet(B& b, const V& x, const V& e) {
    const Shape s = b.shape(x);
    const std::int64_t n = s.back();
    const V zero = b.zeros(s, b.dtype(x));
    const V block = b.concat({b.concat({x, e}, -1), b.concat({zero, x}, -1)}, -2);
    return b.slice(b.slice(b.matrix_exp(block), -2, 0, n, 1), -1, n, 2 * n, 1);
  }
};

}  // namespace tensora::ad
