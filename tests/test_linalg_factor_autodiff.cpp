// The factorizations with several results (eigh, svd, qr) in the eager and traced front doors:
// values equal to the direct forms, every factor's rule against central finite differences (F64,
// and C128 through gauge-invariant functions), <w, J u> both ways, degenerate spectra, the
// complex gauge error, and the cases that are not differentiable.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_eager_check.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
namespace la = tensora::linalg;
using ta::DType;
using ta::EagerSession;
using ta::EagerTensor;
using ta::Tensor;
using ta::TracedTensor;
using eager_test::check_gradients;
using eager_test::complex_of;
using eager_test::parts;
using eager_test::rnd;
using tensora_test::expect_error;
using Args = std::vector<EagerTensor>;
using cd = std::complex<double>;

EagerTensor mT(const EagerTensor& x) { return x.transpose(-2, -1); }
EagerTensor mH(EagerSession& s, const EagerTensor& x) { return s.conj(mT(x)); }
EagerTensor sym(EagerSession& s, const EagerTensor& x) { return s.add(x, mH(s, x)); }
// |z|^2, elementwise: invariant under every phase.
EagerTensor abs2(EagerSession& s, const EagerTensor& z) { return s.real(s.mul(z, s.conj(z))); }
// A weighted sum, so every entry of x reaches the loss with its own weight.
EagerTensor weighted(EagerSession& s, const EagerTensor& x, std::uint64_t seed) {
  return s.mul(x, s.constant(rnd(x.shape(), seed)));
}
// u diag(d) for real d.
EagerTensor scaled(EagerSession& s, const EagerTensor& u, const EagerTensor& d) {
  return s.mul(u, s.convert(d.unsqueeze(-2), u.dtype()));
}

TEST(LinalgFactorAutodiff, EagerFactorsEqualTheDirectOnes) {
  auto e = ta::CpuEngine::serial();
  const Tensor a = rnd({2, 4, 3}, 1), h = a.matmul(a.transpose(-2, -1), e);
  const la::SVD d = la::svd(a, e);
  const la::Eigh de = la::eigh(h, e);
  const la::QR dq = la::qr(a, e);
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    // Variables (recorded, factors handed out of one packed node) and constants (no gradient
    // wanted: the direct factors, unrecorded and unpacked) give the same values.
    for (const bool variable : {true, false}) {
      const auto in = [&](const Tensor& t) { return variable ? rt.variable_from(t) : s.constant(t); };
      auto [u, sv, vh] = la::svd(in(a));
      EXPECT_EQ(u.value().to_vec<double>(), d.u.to_vec<double>());
      EXPECT_EQ(sv.value().to_vec<double>(), d.s.to_vec<double>());
      EXPECT_EQ(vh.value().to_vec<double>(), d.vh.to_vec<double>());
      EXPECT_EQ(sv.shape(), (ta::Shape{2, 3}));
      for (const EagerTensor* f : {&u, &sv, &vh}) EXPECT_EQ(f->requires_grad(), variable);
      const auto eh = la::eigh(in(h));
      EXPECT_EQ(eh.eigenvalues.value().to_vec<double>(), de.eigenvalues.to_vec<double>());
      EXPECT_EQ(eh.eigenvectors.value().to_vec<double>(), de.eigenvectors.to_vec<double>());
      const auto q = la::qr(in(a));
      EXPECT_EQ(q.q.value().to_vec<double>(), dq.q.to_vec<double>());
      EXPECT_EQ(q.r.value().to_vec<double>(), dq.r.to_vec<double>());
      EXPECT_EQ(q.r.requires_grad(), variable);
    }
    const auto r_only = la::qr(rt.variable_from(a), {.mode = la::QrMode::R});
    EXPECT_FALSE(r_only.q.defined());
    EXPECT_EQ(r_only.r.value().to_vec<double>(), dq.r.to_vec<double>());
    const la::LUFactor dlu = la::lu_factor(h, e);
    const auto clu = la::lu_factor(s.constant(h));
    EXPECT_EQ(clu.lu.value().to_vec<double>(), dlu.lu.to_vec<double>());
    EXPECT_EQ(clu.pivots.value().to_vec<std::int32_t>(), dlu.pivots.to_vec<std::int32_t>());
    EXPECT_EQ(la::lu_solve(clu, s.constant(a)).value().to_vec<double>(), la::lu_solve(dlu, a, e).to_vec<double>());
    // Complex: singular values and eigenvalues are real.
    const EagerTensor z = complex_of(s, s.constant(a), s.constant(rnd({2, 4, 3}, 2)));
    EXPECT_EQ(la::svd(z).s.dtype(), DType::F64);
    EXPECT_EQ(la::svd(z).u.dtype(), DType::C128);
    EXPECT_EQ(la::eigh(s.matmul(z, mH(s, z))).eigenvalues.dtype(), DType::F64);
  });
}

TEST(LinalgFactorAutodiff, RealRulesAgainstFiniteDifferences) {
  check_gradients("eigh values and vectors", [](EagerSession& s, const Args& x) {
    const auto r = la::eigh(sym(s, x[0]));
    return s.add(s.sum(weighted(s, r.eigenvectors, 40)), s.sum(weighted(s, r.eigenvalues, 41)));
  }, {rnd({2, 4, 4}, 1)});
  check_gradients("eigh upper, vectors only", [](EagerSession& s, const Args& x) {
    return weighted(s, la::eigh(sym(s, x[0]), {.upper = true}).eigenvectors, 42);
  }, {rnd({3, 3}, 2)});
  for (const ta::Shape& shape : {ta::Shape{4, 3}, ta::Shape{3, 5}, ta::Shape{2, 3, 3}}) {
    check_gradients("svd u, s, vh " + ta::to_string(shape), [](EagerSession& s, const Args& x) {
      auto [u, sv, vh] = la::svd(x[0]);
      return s.add(s.add(s.sum(weighted(s, u, 43)), s.sum(weighted(s, sv, 44))), s.sum(weighted(s, vh, 45)));
    }, {rnd(shape, 3)});
  }
  check_gradients("svd reconstruction", [](EagerSession& s, const Args& x) {
    auto [u, sv, vh] = la::svd(x[0]);
    return s.matmul(scaled(s, u, sv), vh);
  }, {rnd({5, 3}, 4)});
  for (const ta::Shape& shape : {ta::Shape{5, 3}, ta::Shape{3, 3}, ta::Shape{2, 4, 2}}) {
    check_gradients("qr " + ta::to_string(shape), [](EagerSession& s, const Args& x) {
      auto [q, r] = la::qr(x[0]);
      return s.add(s.sum(weighted(s, q, 46)), s.sum(weighted(s, r, 47)));
    }, {rnd(shape, 5)});
  }
  check_gradients("qr mode R", [](EagerSession& s, const Args& x) {
    return weighted(s, la::qr(x[0], {.mode = la::QrMode::R}).r, 48);
  }, {rnd({4, 3}, 6)});
}

TEST(LinalgFactorAutodiff, LuAgainstFiniteDifferences) {
  auto e = ta::CpuEngine::serial();
  const Tensor a = rnd({2, 3, 3}, 70);
  const la::LU d = la::lu(a, e);
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    auto [p, l, u] = la::lu(rt.variable_from(a));
    EXPECT_EQ(p.value().to_vec<double>(), d.p.to_vec<double>());
    EXPECT_EQ(l.value().to_vec<double>(), d.l.to_vec<double>());
    EXPECT_EQ(u.value().to_vec<double>(), d.u.to_vec<double>());
    // A wide matrix factorizes; its lu is not differentiable.
    const la::BasicLU<EagerTensor> wide = la::lu(rt.variable_from(rnd({2, 3}, 71)));
    EXPECT_EQ(wide.u.shape(), (ta::Shape{2, 3}));
    const auto err = expect_error([&] { s.sum(wide.u).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.op(), "lu");
  });
  check_gradients("lu", [](EagerSession& s, const Args& x) {
    auto [p, l, u] = la::lu(x[0]);
    return s.add(s.sum(weighted(s, l, 72)), s.sum(weighted(s, u, 73)));
  }, {a});
  check_gradients("lu reconstruction", [](EagerSession& s, const Args& x) {
    auto [p, l, u] = la::lu(x[0]);
    return s.matmul(p, s.matmul(l, u));
  }, {rnd({4, 4}, 74)});
  check_gradients("lu C128", [](EagerSession& s, const Args& x) {
    auto [p, l, u] = la::lu(complex_of(s, x[0], x[1]));
    return s.add(s.sum(parts(s, l)), s.sum(weighted(s, parts(s, u), 75)));
  }, {rnd({3, 3}, 76), rnd({3, 3}, 77)});
  // Traced: the same gradient.
  auto x = TracedTensor::input("x", DType::F64, {2, 3, 3});
  const auto t = la::lu(x);
  const TracedTensor loss = t.l.mul(TracedTensor::constant(rnd({2, 3, 3}, 72))).sum()
                                .add(t.u.mul(TracedTensor::constant(rnd({2, 3, 3}, 73))).sum());
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({ta::grad(loss, {x})[0]}, {x}), e, {a});
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor ea = rt.variable_from(a);
    auto [p, l, u] = la::lu(ea);
    s.add(s.sum(weighted(s, l, 72)), s.sum(weighted(s, u, 73))).backward();
    const auto ge = ea.grad().to_vec<double>(), gt = out[0].to_vec<double>();
    for (std::size_t i = 0; i < ge.size(); ++i) EXPECT_NEAR(gt[i], ge[i], 1e-12 * (1 + std::abs(ge[i])));
  });
}

TEST(LinalgFactorAutodiff, TruncatedSvdIsTheGradientOfTheKeptRank) {
  // A matrix of rank 2 exactly: the dropped singular values are zero, so the truncated rule is
  // exact, for the kept factors and for the rank-2 reconstruction.
  check_gradients("truncated svd of a rank-2 matrix", [](EagerSession& s, const Args& x) {
    const EagerTensor a = s.matmul(x[0], mT(x[1]));
    auto t = la::svd(a, la::SvdOptions{.max_rank = 2});
    EXPECT_EQ(t.s.shape(), (ta::Shape{2}));
    return s.add(s.sum(weighted(s, s.matmul(scaled(s, t.u, t.s), t.vh), 49)), s.sum(abs2(s, t.u)));
  }, {rnd({5, 2}, 7), rnd({4, 2}, 8)});
}

TEST(LinalgFactorAutodiff, ComplexRulesAgainstFiniteDifferences) {
  check_gradients("eigh C128, gauge-invariant", [](EagerSession& s, const Args& x) {
    const auto r = la::eigh(sym(s, complex_of(s, x[0], x[1])));
    const EagerTensor v = r.eigenvectors;
    // v diag(f(w)) v^H and |v|^2 do not depend on the vectors' phases.
    const EagerTensor p = s.matmul(scaled(s, v, s.mul(r.eigenvalues, r.eigenvalues)), mH(s, v));
    return s.add(s.sum(weighted(s, s.real(p), 50)), s.sum(weighted(s, abs2(s, v), 51)));
  }, {rnd({3, 3}, 10), rnd({3, 3}, 11)});
  for (const ta::Shape& shape : {ta::Shape{4, 3}, ta::Shape{3, 4}}) {
    check_gradients("svd C128 " + ta::to_string(shape), [](EagerSession& s, const Args& x) {
      auto [u, sv, vh] = la::svd(complex_of(s, x[0], x[1]));
      EagerTensor loss = s.add(s.sum(weighted(s, abs2(s, u), 52)), s.sum(weighted(s, abs2(s, vh), 53)));
      loss = s.add(loss, s.sum(weighted(s, sv, 54)));
      const EagerTensor rec = s.matmul(scaled(s, u, s.sqrt(sv)), vh);  // depends on (u_j, v_j)'s joint phase only
      return s.add(loss, s.sum(weighted(s, s.imag(rec), 55)));
    }, {rnd(shape, 12), rnd(shape, 13)});
  }
  check_gradients("qr C128", [](EagerSession& s, const Args& x) {
    auto [q, r] = la::qr(complex_of(s, x[0], x[1]));  // unique: diag(r) real and positive
    return s.add(s.sum(weighted(s, s.imag(q), 56)), s.sum(weighted(s, s.real(r), 57)));
  }, {rnd({4, 3}, 14), rnd({4, 3}, 15)});
}

TEST(LinalgFactorAutodiff, RepeatedValuesGiveFiniteGradients) {
  // At diag(2, 2, 5) the eigenvalue 2 is repeated. The sum of its eigenvalues and the vector of
  // the simple eigenvalue 5 are smooth there, and the safeguarded rule differentiates them
  // exactly (the zero gap's 1 / 0 multiplies a zero).
  const Tensor d = Tensor::from_vec_col_major({3, 3}, std::vector<double>{2, 0, 0, 0, 2, 0, 0, 0, 5});
  check_gradients("eigh at a repeated eigenvalue", [d](EagerSession& s, const Args& x) {
    const auto r = la::eigh(s.add(s.constant(d), sym(s, x[0])));
    return s.add(s.sum(r.eigenvalues), s.sum(weighted(s, r.eigenvectors.slice(-1, 2, 3), 60)));
  }, {Tensor::zeros({3, 3}, eager_test::f64())});
  const Tensor t = Tensor::from_vec_col_major({3, 3}, std::vector<double>{3, 0, 0, 0, 3, 0, 0, 0, 1});
  check_gradients("svd at a repeated singular value", [t](EagerSession& s, const Args& x) {
    auto [u, sv, vh] = la::svd(s.add(s.constant(t), x[0]));
    return s.add(s.sum(sv), s.add(s.sum(weighted(s, u.slice(-1, 2, 3), 61)), s.sum(weighted(s, vh.slice(-2, 2, 3), 62))));
  }, {Tensor::zeros({3, 3}, eager_test::f64())});
  // v diag(w) v^H is a itself, so its gradient is all ones; at the repeated eigenvalue the
  // rotation inside its subspace would need 0 / 0, which the safeguard takes as 0: the result
  // is finite (no NaN), and exact outside that block (docs/linalg.md, "Safeguarded inverse gaps").
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor a = rt.variable_from(d);
    const auto r = la::eigh(a);
    s.sum(s.matmul(scaled(s, r.eigenvectors, r.eigenvalues), mT(r.eigenvectors))).backward();
    const auto g = a.grad().to_vec<double>();
    for (std::size_t i = 0; i < g.size(); ++i) {
      EXPECT_TRUE(std::isfinite(g[i]));
      if (i != 1 && i != 3) {  // (0, 1) and (1, 0): the repeated block
        EXPECT_NEAR(g[i], 1.0, 1e-12) << i;
      }
    }
  });
}

TEST(LinalgFactorAutodiff, ComplexLossThatDependsOnThePhaseIsAnError) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  const Tensor re = rnd({2, 3, 3}, 20), im = rnd({2, 3, 3}, 21);
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor x = rt.variable_from(re);
    const EagerTensor z = complex_of(s, x, s.constant(im));
    // real(v) changes when a column of v is multiplied by e^{i phi}.
    const auto err = expect_error([&] { s.sum(s.real(la::eigh(sym(s, z)).eigenvectors)).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(err.op(), "eigh");
    EXPECT_NE(std::string(err.what()).find("depends on the phase of the complex vectors of matrix 0 of the batch"),
              std::string::npos)
        << err.what();
    const auto* detail = std::get_if<ta::LinAlgFailure>(&err.detail());
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->batch_index, (std::vector<std::int64_t>{0}));
    const auto err2 = expect_error([&] { s.sum(s.real(la::svd(z).u)).backward(); });
    EXPECT_EQ(err2.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(err2.op(), "svd");
  });
  // The traced gradient reports it when it runs.
  auto a = TracedTensor::input("a", DType::C128, {3, 3});
  const TracedTensor loss = la::eigh(a.add(a.conj().transpose(-2, -1))).eigenvectors.real().sum();
  const auto g = ta::grad(loss, {a});
  const auto program = ta::GraphCompiler().compile({g[0]}, {a});
  const Tensor av = re.slice(0, 0, 1).reshape({3, 3}).convert(DType::C128, e)
                        .add(im.slice(0, 0, 1).reshape({3, 3}).convert(DType::C128, e).mul(
                                 Tensor::full({}, cd(0, 1), {ta::Device::cpu(), DType::C128}), e), e);
  const auto err = expect_error([&] { (void)ta::Runtime().run(program, e, {av}); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(err.op(), "eigh");
}

TEST(LinalgFactorAutodiff, NonDifferentiableCasesAreErrors) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor wide = rt.variable_from(rnd({2, 4}, 30));
    // The forward pass works; differentiating it does not.
    const EagerTensor r = la::qr(wide).r;
    EXPECT_EQ(r.shape(), (ta::Shape{2, 4}));
    auto err = expect_error([&] { s.sum(r).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(err.what()).find("qr is differentiable for tall or square matrices"), std::string::npos);
    const auto full = la::svd(wide, la::SvdOptions{.full_matrices = true});
    EXPECT_EQ(full.vh.shape(), (ta::Shape{4, 4}));
    err = expect_error([&] { s.sum(full.s).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(err.what()).find("full_matrices"), std::string::npos);
  });
  // A traced svd's shapes are fixed when it is built: no cutoff.
  const auto err = expect_error([&] {
    (void)la::svd(TracedTensor::input("a", DType::F64, {4, 3}), la::SvdOptions{.cutoff = 1e-3});
  });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(err.what()).find("use max_rank"), std::string::npos);
  const auto bad = expect_error([&] { (void)la::svd(TracedTensor::input("a", DType::F64, {4, 3}), {.max_rank = 0}); });
  EXPECT_EQ(bad.kind(), ta::ErrorKind::InvalidArgument);
  const auto square = expect_error([&] { (void)la::eigh(TracedTensor::input("a", DType::F64, {4, 3})); });
  EXPECT_EQ(square.kind(), ta::ErrorKind::Validation);
}

TEST(LinalgFactorTraced, EqualsEagerAndDifferentiates) {
  const Tensor av = rnd({2, 4, 3}, 60);
  auto a = TracedTensor::input("a", DType::F64, {2, 4, 3});
  const TracedTensor h = a.transpose(-2, -1).matmul(a);
  const auto w = la::eigh(h);
  auto [u, sv, vh] = la::svd(a, la::SvdOptions{.max_rank = 2});
  const auto qr = la::qr(a);
  const Tensor c1 = rnd({2, 3, 3}, 61), c2 = rnd({2, 4, 2}, 62), c3 = rnd({2, 4, 3}, 63);
  const TracedTensor loss = w.eigenvectors.mul(TracedTensor::constant(c1)).sum().add(w.eigenvalues.sum())
                                .add(u.mul(TracedTensor::constant(c2)).sum()).add(sv.sum()).add(vh.sum())
                                .add(qr.q.mul(TracedTensor::constant(c3)).sum()).add(qr.r.sum());
  EXPECT_EQ(sv.shape(), (ta::Shape{2, 2}));
  const auto g = ta::grad(loss, {a});
  auto e = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({loss, g[0], u}, {a}), e, {av});
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor ea = rt.variable_from(av);
    const auto ew = la::eigh(s.matmul(mT(ea), ea));
    const auto et = la::svd(ea, la::SvdOptions{.max_rank = 2});
    const auto eq = la::qr(ea);
    EXPECT_EQ(out[2].to_vec<double>(), et.u.value().to_vec<double>());
    EagerTensor el = s.add(s.sum(s.mul(ew.eigenvectors, s.constant(c1))), s.sum(ew.eigenvalues));
    el = s.add(el, s.add(s.sum(s.mul(et.u, s.constant(c2))), s.add(s.sum(et.s), s.sum(et.vh))));
    el = s.add(el, s.add(s.sum(s.mul(eq.q, s.constant(c3))), s.sum(eq.r)));
    EXPECT_NEAR(out[0].item<double>(), el.value().item<double>(), 1e-12 * (1 + std::abs(el.value().item<double>())));
    el.backward();
    const auto ge = ea.grad().to_vec<double>(), gt = out[1].to_vec<double>();
    for (std::size_t i = 0; i < ge.size(); ++i) EXPECT_NEAR(gt[i], ge[i], 1e-10 * (1 + std::abs(ge[i])));
  });
  // Forward mode in the graph: the jvp of the packed node matches eager's.
  const Tensor t = rnd({2, 4, 3}, 64);
  const auto jt = ta::jvp({sv.sum()}, {a}, {TracedTensor::constant(t)});
  const auto jout = ta::Runtime().run(ta::GraphCompiler().compile({jt[0]}, {a}), e, {av});
  ta::EagerRuntime rt2;
  rt2.with_eager_session(e, [&](EagerSession& s) {
    const auto r = ta::jvp(s, [](EagerSession& s2, const std::vector<EagerTensor>& x) {
      return std::vector<EagerTensor>{s2.sum(la::svd(x[0], la::SvdOptions{.max_rank = 2}).s)};
    }, {av}, {t});
    EXPECT_NEAR(jout[0].item<double>(), r.tangents[0].item<double>(), 1e-10);
  });
}

}  // namespace
