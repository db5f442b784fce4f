// The AD rules of the factorizations with several results (eigh, eig, svd, qr, lu, lu_factor)
// and of lu_solve. Each factorization node's result is the factors packed side by side (frontdoor/linalg_factors.hpp), so a rule sees all of them
// and all of their cotangents at once. docs/linalg.md, "Autodiff", has the formulas, the
// safeguarded gaps and the gauge conventions.
//
// Inverse gaps. The eigenvector and singular-vector rules divide by eigenvalue gaps
// d = w_j - w_i (or s_j^2 - s_i^2). They use d / (d^2 + eps^2) instead of 1 / d, with
// eps = gap_epsilon * |w| (|s^2|, 2-norms over the matrix's values), gap_epsilon defaulting to sqrt of the dtype's machine epsilon:
// a repeated value gives 0 where 1 / d would give inf and then NaN, and a gap well above eps is
// unchanged to relative order (eps / d)^2. 1 / s in the svd rule is safeguarded the same way.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <string_view>

#include "ad/linalg_rules.hpp"
#include "frontdoor/linalg_factors.hpp"

namespace tensora::ad {

namespace factor_rules {

using linalg_rules::mH;

inline double default_gap_epsilon(DType d) {
  return std::sqrt(d == DType::F32 || d == DType::C64 ? std::numeric_limits<float>::epsilon()
                                                      : std::numeric_limits<double>::epsilon());
}
inline double tiny(DType d) {
  return d == DType::F32 || d == DType::C64 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
}

// x (..., k) -> (..., k, 1) or (..., 1, k).
template <class B, class V = typename B::Value>
V as_column(B& b, const V& x) {
  Shape s = b.shape(x);
  s.push_back(1);
  return b.reshape(x, s);
}
template <class B, class V = typename B::Value>
V as_row(B& b, const V& x) {
  Shape s = b.shape(x);
  s.insert(s.end() - 1, 1);
  return b.reshape(x, s);
}

// diag(d) x for real d (..., k): d broadcast over x's columns, in x's dtype.
template <class B, class V = typename B::Value>
V scale_rows(B& b, const V& x, const V& d) {
  return b.binary(BinaryOp::Mul, x, b.cast(as_column(b, d), b.dtype(x)));
}

// The safeguarded inverse gaps F (..., k, k), F_ij = d / (d^2 + eps^2) with d = v_j - v_i and
// eps = gap * |v| (the 2-norm over the last axis): zero on the diagonal and where v repeats.
template <class B, class V = typename B::Value>
V inverse_gaps(B& b, const V& v, double gap) {
  const V d = b.binary(BinaryOp::Sub, as_row(b, v), as_column(b, v));
  const V norm2 = as_column(b, b.sum(b.binary(BinaryOp::Mul, v, v), {-1}, true));  // (..., 1, 1)
  const V eps2 = b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, norm2, Scalar(gap * gap)), Scalar(tiny(b.dtype(v))));
  return b.binary(BinaryOp::Div, d, b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, d, d), eps2));
}

// The safeguarded 1 / s: s / (s^2 + (gap |s|)^2).
template <class B, class V = typename B::Value>
V inverse_values(B& b, const V& s, double gap) {
  const V s2 = b.binary(BinaryOp::Mul, s, s);
  const V eps2 = b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, b.sum(s2, {-1}, true), Scalar(gap * gap)),
                          Scalar(tiny(b.dtype(s))));
  return b.binary(BinaryOp::Div, s, b.binary(BinaryOp::Add, s2, eps2));
}

// x's real dtype F times y (complex or real), elementwise.
template <class B, class V = typename B::Value>
V hadamard(B& b, const V& f, const V& y) {
  return b.binary(BinaryOp::Mul, b.cast(f, b.dtype(y)), y);
}

// i Im(diag(x)) as a diagonal matrix: (diag x - conj diag x) / 2.
template <class B, class V = typename B::Value>
V imaginary_diagonal(B& b, const V& x) {
  const V d = b.diagonal(x, 0, -2, -1);
  return b.embed_diag(b.binary(BinaryOp::Mul, b.binary(BinaryOp::Sub, d, b.conj(d)), Scalar(0.5)), 0);
}

// x, after the front door's gauge check of `m` (..., k, k): Im diag(m) must vanish for a loss
// that does not depend on the vectors' phases (complex dtypes only).
template <class B, class V = typename B::Value>
V gauge_checked(B& b, std::string_view op, const V& x, const V& m) {
  if (!is_complex(b.dtype(m))) return x;
  const V residual = b.unary(UnaryOp::Imag, b.diagonal(m, 0, -2, -1));
  const V size2 = b.sum(b.unary(UnaryOp::Real, b.binary(BinaryOp::Mul, m, b.conj(m))), {-2, -1}, false);
  return b.gauge_checked(x, residual, b.unary(UnaryOp::Sqrt, size2), op);
}

[[noreturn]] inline void fail_not_differentiable(std::string_view op, const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, std::string(op), why, InvalidArgument{"a"}, SourceLocation::current());
}

}  // namespace factor_rules

// a = v diag(w) v^H (Hermitian, one triangle read). With C = v^H da v: dw = Re diag(C),
// dv = v (F o C); ga = v (diag(gw) + F o (v^H gv)) v^H, made Hermitian. F: the safeguarded
// inverse gaps 1 / (w_j - w_i). Complex: the loss must not depend on the phases of v's columns.
struct EighRule {
  bool upper = false;
  std::optional<double> gap_epsilon;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace factor_rules;
    if (!needs[0]) return;
    const auto layout = frontdoor::eigh_layout(b.shape(a.in[0]));
    const auto f = frontdoor::unpack(b, a.out, layout);
    const auto gf = frontdoor::unpack(b, g, layout);
    const V& v = f[1];
    V vhgv = b.matmul(mH(b, v), gf[1]);
    vhgv = gauge_checked(b, "eigh", vhgv, vhgv);
    const V inner = b.binary(BinaryOp::Add, hadamard(b, gaps(b, f[0]), vhgv), b.embed_diag(b.cast(gf[0], b.dtype(v)), 0));
    gin[0] = linalg_rules::hermitian_part(b, b.matmul(b.matmul(v, inner), mH(b, v)));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace factor_rules;
    const auto layout = frontdoor::eigh_layout(b.shape(a.in[0]));
    const auto f = frontdoor::unpack(b, a.out, layout);
    const V& v = f[1];
    const V c = b.matmul(b.matmul(mH(b, v), linalg_rules::hermitian_part(b, t[0])), v);
    const V dw = linalg_rules::real_diagonal(b, c);
    const V dv = b.matmul(v, hadamard(b, gaps(b, f[0]), c));
    return frontdoor::pack(b, layout, std::vector<V>{dw, dv}, b.dtype(a.out));
  }

 private:
  template <class B, class V>
  V gaps(B& b, const V& w) const {
    return factor_rules::inverse_gaps(b, w, gap_epsilon.value_or(factor_rules::default_gap_epsilon(b.dtype(w))));
  }
};

// a v = v diag(w) for a general a: complex w and v with unit-norm columns; a real a's cotangent
// is the real part of the complex one. With P = v^{-1} da v: dw = diag(P) and
// dv = v (F o P) - v Re diag(v^H v (F o P)) (the columns keep unit norm); the cotangent
// ga = v^{-H} (diag(gw) + conj(F) o (v^H gv - v^H v Re diag(v^H gv))) v^H. F: the safeguarded
// inverse gaps conj(d) / (|d|^2 + eps^2) of d = w_j - w_i, eps = gap_epsilon * |w|. The loss must
// not depend on the phases of v's columns (Im diag(v^H gv) = 0): checked, as eigh's. PyTorch's
// linalg_eig_backward and linalg_eig_jvp.
struct EigRule {
  std::optional<double> gap_epsilon;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace factor_rules;
    if (!needs[0]) return;
    const auto layout = frontdoor::eig_layout(b.shape(a.in[0]));
    const auto f = frontdoor::unpack(b, a.out, layout);
    const auto gf = frontdoor::unpack(b, g, layout);
    const V& v = f[1];
    const V vh = mH(b, v);
    V vhgv = b.matmul(vh, gf[1]);
    vhgv = gauge_checked(b, "eig", vhgv, vhgv);
    const V norm_part = linalg_rules::scale_columns(b, b.matmul(vh, v), linalg_rules::real_diagonal(b, vhgv));
    const V off = b.binary(BinaryOp::Mul, b.conj(gaps(b, f[0])), b.binary(BinaryOp::Sub, vhgv, norm_part));
    const V inner = b.binary(BinaryOp::Add, off, b.embed_diag(gf[0], 0));
    const V ga = b.solve(vh, b.matmul(inner, vh));
    gin[0] = is_complex(b.dtype(a.in[0])) ? ga : b.unary(UnaryOp::Real, ga);
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace factor_rules;
    const auto layout = frontdoor::eig_layout(b.shape(a.in[0]));
    const auto f = frontdoor::unpack(b, a.out, layout);
    const V& v = f[1];
    const V p = b.solve(v, b.matmul(b.cast(t[0], b.dtype(v)), v));
    const V dw = b.diagonal(p, 0, -2, -1);
    const V dv = b.matmul(v, b.binary(BinaryOp::Mul, gaps(b, f[0]), p));
    const V norm_part = linalg_rules::scale_columns(b, v, linalg_rules::real_diagonal(b, b.matmul(mH(b, v), dv)));
    return frontdoor::pack(b, layout, std::vector<V>{dw, b.binary(BinaryOp::Sub, dv, norm_part)}, b.dtype(a.out));
  }

 private:
  // conj(d) / (|d|^2 + eps^2), d = w_j - w_i: zero on the diagonal and where w repeats.
  template <class B, class V>
  V gaps(B& b, const V& w) const {
    using namespace factor_rules;
    const DType real = real_dtype(b.dtype(w));
    const double gap = gap_epsilon.value_or(default_gap_epsilon(real));
    const V d = b.binary(BinaryOp::Sub, as_row(b, w), as_column(b, w));
    const V abs2 = b.unary(UnaryOp::Real, b.binary(BinaryOp::Mul, d, b.conj(d)));
    const V w2 = as_column(b, b.sum(b.unary(UnaryOp::Real, b.binary(BinaryOp::Mul, w, b.conj(w))), {-1}, true));
    const V eps2 = b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, w2, Scalar(gap * gap)), Scalar(tiny(real)));
    return b.binary(BinaryOp::Div, b.conj(d), b.cast(b.binary(BinaryOp::Add, abs2, eps2), b.dtype(w)));
  }
};

// a = u diag(s) vh (reduced or truncated; Townsend 2016, with PyTorch's complex terms). With
// J = u^H gu, K = v^H gv, F_ij = 1 / (s_j^2 - s_i^2) (safeguarded):
//   ga = u [(F o (J - J^H)) S + S (F o (K - K^H)) + diag(gs) + i Im diag(J) S^-1] vh
//        + (gu - u J) S^-1 vh + u S^-1 (gvh - K^H vh)
// The last two terms (the parts of gu, gv outside the kept subspaces) treat the discarded
// singular values as zero, so a truncated svd's gradient is that of the rank-k matrix
// u diag(s) vh. Complex: the loss must not depend on the phases of the pairs (u_j, v_j).
struct SvdRule {
  bool full_matrices = false;
  std::optional<double> gap_epsilon;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace factor_rules;
    if (!needs[0]) return;
    const Parts<V> p = parts(b, a);
    const auto gf = frontdoor::unpack(b, g, p.layout);
    const V &u = p.u, &vh = p.vh, &gu = gf[0], &gvh = gf[2];
    V j = b.matmul(mH(b, u), gu);
    const V k = b.matmul(vh, mH(b, gvh));
    j = gauge_checked(b, "svd", j, b.binary(BinaryOp::Add, j, k));
    const V f = inverse_gaps(b, b.binary(BinaryOp::Mul, p.s, p.s), gap(b, p.s));
    V gp = b.binary(BinaryOp::Add, linalg_rules::scale_columns(b, hadamard(b, f, b.binary(BinaryOp::Sub, j, mH(b, j))), p.s),
                    scale_rows(b, hadamard(b, f, b.binary(BinaryOp::Sub, k, mH(b, k))), p.s));
    gp = b.binary(BinaryOp::Add, gp, b.embed_diag(b.cast(gf[1], b.dtype(u)), 0));
    const V s_inv = inverse_values(b, p.s, gap(b, p.s));
    if (is_complex(b.dtype(u))) gp = b.binary(BinaryOp::Add, gp, linalg_rules::scale_columns(b, imaginary_diagonal(b, j), s_inv));
    V ga = b.matmul(b.matmul(u, gp), vh);
    if (p.m > p.k) {
      const V outside = b.binary(BinaryOp::Sub, gu, b.matmul(u, j));
      ga = b.binary(BinaryOp::Add, ga, b.matmul(linalg_rules::scale_columns(b, outside, s_inv), vh));
    }
    if (p.n > p.k) {
      const V outside = b.binary(BinaryOp::Sub, gvh, b.matmul(mH(b, k), vh));
      ga = b.binary(BinaryOp::Add, ga, b.matmul(u, scale_rows(b, outside, s_inv)));
    }
    gin[0] = ga;
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace factor_rules;
    const Parts<V> p = parts(b, a);
    const V &u = p.u, &vh = p.vh, &da = t[0];
    const V v = mH(b, vh);
    const V dp = b.matmul(b.matmul(mH(b, u), da), v);
    const V dph = mH(b, dp);
    const V ds = linalg_rules::real_diagonal(b, dp);
    const V f = inverse_gaps(b, b.binary(BinaryOp::Mul, p.s, p.s), gap(b, p.s));
    const V s_inv = inverse_values(b, p.s, gap(b, p.s));
    V omega_u = hadamard(b, f, b.binary(BinaryOp::Add, linalg_rules::scale_columns(b, dp, p.s), scale_rows(b, dph, p.s)));
    if (is_complex(b.dtype(u))) omega_u = b.binary(BinaryOp::Add, omega_u, linalg_rules::scale_columns(b, imaginary_diagonal(b, dp), s_inv));
    const V omega_v = hadamard(b, f, b.binary(BinaryOp::Add, scale_rows(b, dp, p.s), linalg_rules::scale_columns(b, dph, p.s)));
    V du = b.matmul(u, omega_u);
    V dv = b.matmul(v, omega_v);
    if (p.m > p.k) {
      const V outside = b.binary(BinaryOp::Sub, b.matmul(da, v), b.matmul(u, dp));
      du = b.binary(BinaryOp::Add, du, linalg_rules::scale_columns(b, outside, s_inv));
    }
    if (p.n > p.k) {
      const V outside = b.binary(BinaryOp::Sub, b.matmul(mH(b, da), u), b.matmul(v, dph));
      dv = b.binary(BinaryOp::Add, dv, linalg_rules::scale_columns(b, outside, s_inv));
    }
    return frontdoor::pack(b, p.layout, std::vector<V>{du, ds, mH(b, dv)}, b.dtype(a.out));
  }

 private:
  template <class V>
  struct Parts {
    frontdoor::PackedLayout layout;
    V u, s, vh;
    std::int64_t m, n, k;
  };
  template <class B, class V>
  Parts<V> parts(B& b, const RuleArgs<V>& a) const {
    const Shape as = b.shape(a.in[0]);
    const std::int64_t m = as[as.size() - 2], n = as.back();
    if (full_matrices && m != n)
      factor_rules::fail_not_differentiable(
          "svd", "an svd with full_matrices of a non-square matrix is not differentiable (the extra columns of u or "
                 "rows of vh are not unique): use the reduced svd");
    const auto layout = frontdoor::svd_layout_of_total(as, b.shape(a.out).back());
    auto f = frontdoor::unpack(b, a.out, layout);
    const std::int64_t k = layout.parts[1].tail[0];
    return {layout, f[0], f[1], f[2], m, n, k};
  }
  template <class B, class V>
  double gap(B& b, const V& s) const {
    return gap_epsilon.value_or(factor_rules::default_gap_epsilon(b.dtype(s)));
  }
};

// a = q r, m >= n (reduced; complete only when square), diag(r) real and positive. With
// C = q^H da r^-1 and Omega = tril(C, -1) - tril(C, -1)^H + i Im diag(C) (skew-Hermitian):
// dr = (C - Omega) r, dq = q Omega + (da - q q^H da) r^-1. Reverse, with G = q^H gq - gr r^H:
// ga = [gq + q (gr r^H + tril(G - G^H, -1) + i Im diag(G) - q^H gq)] r^-H.
struct QrRule {
  bool complete = false;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using namespace factor_rules;
    if (!needs[0]) return;
    const auto layout = checked_layout(b, a);
    const auto f = frontdoor::unpack(b, a.out, layout);
    const auto gf = frontdoor::unpack(b, g, layout);
    const V &q = f[0], &r = f[1], &gq = gf[0], &gr = gf[1];
    const V qhgq = b.matmul(mH(b, q), gq);
    const V grrh = b.matmul(gr, mH(b, r));
    const V gm = b.binary(BinaryOp::Sub, qhgq, grrh);
    V gc = b.binary(BinaryOp::Add, grrh, b.tril(b.binary(BinaryOp::Sub, gm, mH(b, gm)), -1));
    if (is_complex(b.dtype(q))) gc = b.binary(BinaryOp::Add, gc, imaginary_diagonal(b, gm));
    const V y = b.binary(BinaryOp::Add, gq, b.matmul(q, b.binary(BinaryOp::Sub, gc, qhgq)));
    gin[0] = b.solve_triangular(mH(b, r), y, linalg::TriangularOptions{.upper = false, .left = false});
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using namespace factor_rules;
    const auto layout = checked_layout(b, a);
    const auto f = frontdoor::unpack(b, a.out, layout);
    const V &q = f[0], &r = f[1];
    const V da_rinv = b.solve_triangular(r, t[0], linalg::TriangularOptions{.upper = true, .left = false});
    const V c = b.matmul(mH(b, q), da_rinv);
    const V l = b.tril(c, -1);
    V omega = b.binary(BinaryOp::Sub, l, mH(b, l));
    if (is_complex(b.dtype(q))) omega = b.binary(BinaryOp::Add, omega, imaginary_diagonal(b, c));
    const V dr = b.matmul(b.binary(BinaryOp::Sub, c, omega), r);
    const V dq = b.binary(BinaryOp::Add, b.matmul(q, b.binary(BinaryOp::Sub, omega, c)), da_rinv);
    return frontdoor::pack(b, layout, std::vector<V>{dq, dr}, b.dtype(a.out));
  }

 private:
  template <class B, class V>
  frontdoor::PackedLayout checked_layout(B& b, const RuleArgs<V>& a) const {
    const Shape as = b.shape(a.in[0]);
    const std::int64_t m = as[as.size() - 2], n = as.back();
    if (m < n)
      factor_rules::fail_not_differentiable(
          "qr", "qr is differentiable for tall or square matrices (m >= n); this one is " + std::to_string(m) + " x " +
                    std::to_string(n) + ": differentiate the qr of its first m columns, or of its transpose");
    if (complete && m > n)
      factor_rules::fail_not_differentiable(
          "qr", "a complete qr of a tall matrix is not differentiable (q's last m - n columns are not unique): use "
                "QrMode::Reduced");
    return frontdoor::qr_layout(as, std::min(m, n));
  }
};

// a = p l u (square a; l unit lower, u upper, p a permutation without gradient):
// ga = p l^-H (tril(l^H gl, -1) + triu(gu u^H)) u^-H and, with C = l^-1 p^T da u^-1,
// dl = l tril(C, -1), du = triu(C) u. de Hoog et al.; PyTorch's linalg_lu_backward. A singular u
// has no u^-1: its gradient is the LinAlgError of that triangular solve. `packed`: the factors of
// lu_factor, {p, lu} with lu = tril(l, -1) + u, whose cotangent splits the same way.
struct LuRule {
  bool packed = false;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using factor_rules::mH;
    if (!needs[0]) return;
    const auto f = factors(b, a);
    const auto [gl, gu] = cotangents(b, a, g);
    const V x = b.binary(BinaryOp::Add, b.tril(b.matmul(mH(b, f.l), gl), -1), b.triu(b.matmul(gu, mH(b, f.u)), 0));
    const V y = b.solve_triangular(mH(b, f.l), x, linalg::TriangularOptions{.upper = true, .left = true, .unit_diagonal = true});
    gin[0] = b.matmul(f.p, b.solve_triangular(mH(b, f.u), y, linalg::TriangularOptions{.upper = false, .left = false}));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using factor_rules::mH;
    const auto f = factors(b, a);
    const V y = b.solve_triangular(f.l, b.matmul(mH(b, f.p), t[0]),
                                   linalg::TriangularOptions{.upper = false, .left = true, .unit_diagonal = true});
    const V c = b.solve_triangular(f.u, y, linalg::TriangularOptions{.upper = true, .left = false});
    const V dl = b.matmul(f.l, b.tril(c, -1));  // strictly lower
    const V du = b.matmul(b.triu(c, 0), f.u);   // upper
    const V dp = b.zeros(b.shape(f.p), b.dtype(f.p));
    const std::vector<V> parts = packed ? std::vector<V>{dp, b.binary(BinaryOp::Add, dl, du)} : std::vector<V>{dp, dl, du};
    return frontdoor::pack(b, layout(b, a), parts, b.dtype(a.out));
  }

 private:
  template <class V>
  struct Factors {
    V p, l, u;
  };

  template <class B, class V>
  frontdoor::PackedLayout layout(B& b, const RuleArgs<V>& a) const {
    const Shape as = b.shape(a.in[0]);
    const std::int64_t m = as[as.size() - 2], n = as.back();
    const char* op = packed ? "lu_factor" : "lu";
    if (m != n)
      factor_rules::fail_not_differentiable(op, std::string(op) + " is differentiable for square matrices; this one is " +
                                                    std::to_string(m) + " x " + std::to_string(n));
    return packed ? frontdoor::lu_factor_layout(as) : frontdoor::lu_layout(as);
  }
  template <class B, class V>
  Factors<V> factors(B& b, const RuleArgs<V>& a) const {
    const auto f = frontdoor::unpack(b, a.out, layout(b, a));
    if (!packed) return {f[0], f[1], f[2]};
    const V l = b.binary(BinaryOp::Add, b.tril(f[1], -1), linalg_rules::eye_like(b, f[1]));
    return {f[0], l, b.triu(f[1], 0)};
  }
  template <class B, class V>
  std::pair<V, V> cotangents(B& b, const RuleArgs<V>& a, const V& g) const {
    const auto gf = frontdoor::unpack(b, g, layout(b, a));
    if (!packed) return {gf[1], gf[2]};
    return {b.tril(gf[1], -1), b.triu(gf[1], 0)};
  }
};

// x = a^-1 b from lu_factor's factors (inputs: lu, pivots, b, and p, the pivots' permutation
// matrix; pivots and p carry no gradient), a = p l u with l = tril(lu, -1) + I, u = triu(lu).
// gb = p l^-H u^-H gx and ga = -gb x^H, taken to lu: glu = tril(p^T ga u^H, -1) + triu(l^H p^T ga).
// dx = u^-1 l^-1 (p^T db - (tril(dlu, -1) u + l triu(dlu)) x).
struct LuSolveRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    using factor_rules::mH;
    if (!needs[0] && !needs[2]) return;
    const V &lu = a.in[0], &p = a.in[3];
    const V luh = mH(b, lu);  // u^H in its lower triangle, l^H (unit) in its upper
    const V z = b.solve_triangular(luh, g, linalg::TriangularOptions{.upper = false});
    const V gb = b.matmul(p, b.solve_triangular(luh, z, linalg::TriangularOptions{.upper = true, .unit_diagonal = true}));
    if (needs[2]) gin[2] = sum_to(b, gb, b.shape(a.in[2]));
    if (!needs[0]) return;
    const V ptga = b.binary(BinaryOp::Mul, b.matmul(mH(b, p), b.matmul(gb, mH(b, a.out))), Scalar(-1.0));
    const V l = b.binary(BinaryOp::Add, b.tril(lu, -1), linalg_rules::eye_like(b, lu));
    const V glu = b.binary(BinaryOp::Add, b.tril(b.matmul(ptga, mH(b, b.triu(lu, 0))), -1), b.triu(b.matmul(mH(b, l), ptga), 0));
    gin[0] = sum_to(b, glu, b.shape(lu));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using factor_rules::mH;
    const V &lu = a.in[0], &p = a.in[3], &x = a.out;
    const V l = b.binary(BinaryOp::Add, b.tril(lu, -1), linalg_rules::eye_like(b, lu));
    const V dlu = t[0];
    const V change = b.binary(BinaryOp::Add, b.matmul(b.tril(dlu, -1), b.matmul(b.triu(lu, 0), x)),
                              b.matmul(l, b.matmul(b.triu(dlu, 0), x)));
    const V w = b.binary(BinaryOp::Sub, b.matmul(mH(b, p), t[2]), change);
    const V y = b.solve_triangular(lu, w, linalg::TriangularOptions{.upper = false, .unit_diagonal = true});
    return b.solve_triangular(lu, y, linalg::TriangularOptions{.upper = true});
  }
};

}  // namespace tensora::ad
