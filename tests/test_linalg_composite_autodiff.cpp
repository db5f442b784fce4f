// The composite linalg functions (vector_norm, matrix_norm, pinv, lstsq) and matrix_exp in the
// eager and traced front doors: values against the direct forms, gradients against central
// finite differences and <w, J u> both ways, traced equal to eager, and bad input.
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

void expect_close(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  auto e = ta::CpuEngine::serial();
  const auto g = got.cast(DType::C128, e).to_vec<cd>();
  const auto w = want.cast(DType::C128, e).to_vec<cd>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_LE(std::abs(g[i] - w[i]), tol * (1 + std::abs(w[i]))) << i;
}


TEST(LinalgCompositeAutodiff, ValuesEqualTheDirectForms) {
  auto e = ta::CpuEngine::serial();
  const Tensor a = rnd({2, 5, 3}, 1), b = rnd({2, 5, 2}, 2), h = rnd({4, 4}, 3);
  const Tensor spd = h.matmul(h.transpose(), e).add(Tensor::eye(4, eager_test::f64()), e);
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession&) {
    const EagerTensor ea = rt.variable_from(a);
    for (const la::Ord& ord : {la::Ord(2), la::Ord(1), la::Ord(3.5), la::Ord(0), la::Ord(la::inf), la::Ord(-la::inf)})
      expect_close(la::vector_norm(ea, {.ord = ord, .axes = {-1}}).value(), la::vector_norm(a, {.ord = ord, .axes = {-1}}, e), 1e-14);
    for (const la::Ord& ord : {la::Ord("fro"), la::Ord("nuc"), la::Ord(2), la::Ord(-2), la::Ord(1), la::Ord(-1),
                               la::Ord(la::inf), la::Ord(-la::inf)})
      expect_close(la::matrix_norm(ea, {.ord = ord, .keepdims = true}).value(), la::matrix_norm(a, {.ord = ord, .keepdims = true}, e),
                   1e-14);
    expect_close(la::pinv(ea).value(), la::pinv(a, e), 1e-13);
    expect_close(la::pinv(rt.variable_from(spd), {.hermitian = true}).value(), la::pinv(spd, {.hermitian = true}, e), 1e-13);
    const auto l = la::lstsq(ea, rt.variable_from(b));
    const la::Lstsq d = la::lstsq(a, b, e);
    expect_close(l.solution.value(), d.solution, 1e-13);
    expect_close(l.residuals.value(), d.residuals, 1e-12);
    EXPECT_EQ(l.rank.value().to_vec<std::int64_t>(), d.rank.to_vec<std::int64_t>());
    expect_close(l.singular_values.value(), d.singular_values, 1e-14);
    // A rank-deficient a: no residuals, as in the direct form.
    const Tensor deficient = a.slice(-1, 0, 1).broadcast_to({2, 5, 3});
    EXPECT_EQ(la::lstsq(rt.variable_from(deficient), rt.variable_from(b)).residuals.shape(), (ta::Shape{0}));
    EXPECT_EQ(la::matrix_exp(rt.variable_from(h)).value().to_vec<double>(), la::matrix_exp(h, e).to_vec<double>());
  });
}

TEST(LinalgCompositeAutodiff, RulesAgainstFiniteDifferences) {
  for (double p : {2.0, 1.0, 3.0})
    check_gradients("vector_norm p=" + std::to_string(p), [p](EagerSession&, const Args& x) {
      return la::vector_norm(x[0], {.ord = p, .axes = {-1}});
    }, {rnd({2, 4}, 10)});
  for (const char* ord : {"fro", "nuc"})
    check_gradients(std::string("matrix_norm ") + ord, [ord](EagerSession&, const Args& x) {
      return la::matrix_norm(x[0], {.ord = ord});
    }, {rnd({2, 4, 3}, 11)});
  for (double p : {2.0, 1.0, la::inf})
    check_gradients("matrix_norm p=" + std::to_string(p), [p](EagerSession&, const Args& x) {
      return la::matrix_norm(x[0], {.ord = p});
    }, {rnd({3, 3}, 12)});
  check_gradients("pinv tall", [](EagerSession&, const Args& x) { return la::pinv(x[0]); }, {rnd({4, 3}, 13)});
  check_gradients("pinv wide, batched", [](EagerSession&, const Args& x) { return la::pinv(x[0]); }, {rnd({2, 2, 3}, 14)});
  check_gradients("pinv hermitian", [](EagerSession& s, const Args& x) {
    return la::pinv(s.add(x[0], x[0].transpose()), {.hermitian = true});
  }, {rnd({3, 3}, 15)});
  check_gradients("lstsq", [](EagerSession& s, const Args& x) {
    const auto r = la::lstsq(x[0], x[1]);
    return s.add(s.sum(r.solution), s.sum(r.residuals));
  }, {rnd({5, 3}, 16), rnd({5, 2}, 17)});
  check_gradients("lstsq vector b", [](EagerSession&, const Args& x) { return la::lstsq(x[0], x[1]).solution; },
                  {rnd({4, 2}, 18), rnd({4}, 19)});
  check_gradients("matrix_exp", [](EagerSession&, const Args& x) { return la::matrix_exp(x[0]); }, {rnd({2, 3, 3}, 20)});
  check_gradients("matrix_exp C128", [](EagerSession& s, const Args& x) {
    return parts(s, la::matrix_exp(complex_of(s, x[0], x[1])));
  }, {rnd({3, 3}, 21), rnd({3, 3}, 22)});
}

TEST(LinalgCompositeTraced, EqualsEagerAndDifferentiates) {
  const Tensor av = rnd({5, 3}, 30), bv = rnd({5, 2}, 31), mv = rnd({3, 3}, 32);
  auto a = TracedTensor::input("a", DType::F64, {5, 3});
  auto b = TracedTensor::input("b", DType::F64, {5, 2});
  auto m = TracedTensor::input("m", DType::F64, {3, 3});
  const auto l = la::lstsq(a, b);
  const TracedTensor loss = l.solution.sum().add(l.residuals.sum()).add(la::pinv(a).sum())
                                .add(la::matrix_norm(a, {.ord = "nuc"})).add(la::vector_norm(b))
                                .add(la::matrix_exp(m).sum());
  const auto g = ta::grad(loss, {a, b, m});
  auto e = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({loss, g[0], g[1], g[2]}, {a, b, m}), e, {av, bv, mv});
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor ea = rt.variable_from(av), eb = rt.variable_from(bv), em = rt.variable_from(mv);
    const auto el = la::lstsq(ea, eb);
    EagerTensor loss_e = s.add(s.sum(el.solution), s.sum(el.residuals));
    loss_e = s.add(loss_e, s.add(s.sum(la::pinv(ea)), la::matrix_norm(ea, {.ord = "nuc"})));
    loss_e = s.add(loss_e, s.add(la::vector_norm(eb), s.sum(la::matrix_exp(em))));
    EXPECT_NEAR(out[0].item<double>(), loss_e.value().item<double>(), 1e-11 * (1 + std::abs(loss_e.value().item<double>())));
    loss_e.backward();
    expect_close(out[1], ea.grad(), 1e-9);
    expect_close(out[2], eb.grad(), 1e-9);
    expect_close(out[3], em.grad(), 1e-9);
  });
}

TEST(LinalgCompositeTraced, MatrixExpHasSecondDerivatives) {
  // The Hessian-vector product of sum(c o exp(m)) (the jvp of its traced gradient) against a
  // central difference of the gradient.
  const Tensor mv = rnd({3, 3}, 50), c = rnd({3, 3}, 51), v = rnd({3, 3}, 52);
  auto m = TracedTensor::input("m", DType::F64, {3, 3});
  const TracedTensor g = ta::grad(la::matrix_exp(m).mul(TracedTensor::constant(c)).sum(), {m})[0];
  const TracedTensor hv = ta::jvp({g}, {m}, {TracedTensor::constant(v)})[0];
  auto e = ta::CpuEngine::serial();
  const auto grad_program = ta::GraphCompiler().compile({g}, {m});
  const auto hv_out = ta::Runtime().run(ta::GraphCompiler().compile({hv}, {m}), e, {mv});
  const double h = 1e-5;
  const Tensor gp = ta::Runtime().run(grad_program, e, {mv.add(v.mul(ta::Scalar(h), e), e)})[0];
  const Tensor gm = ta::Runtime().run(grad_program, e, {mv.sub(v.mul(ta::Scalar(h), e), e)})[0];
  expect_close(hv_out[0], gp.sub(gm, e).mul(ta::Scalar(0.5 / h), e), 1e-6);
}

TEST(LinalgCompositeAutodiff, BadInputIsAStructuredError) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession&) {
    const EagerTensor a = rt.variable_from(rnd({3, 3}, 40));
    auto err = expect_error([&] { (void)la::vector_norm(a, {.ord = "fro"}); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.op(), "vector_norm");
    err = expect_error([&] { (void)la::matrix_norm(a, {.ord = 3}); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(err.what()).find("ord must be \"fro\", \"nuc\""), std::string::npos);
    err = expect_error([&] { (void)la::matrix_norm(a, {.axes = {0, 0}}); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    err = expect_error([&] { (void)la::pinv(a, {.rtol = -1.0}); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.op(), "pinv");
    err = expect_error([&] { (void)la::lstsq(a, rt.variable_from(rnd({4, 2}, 41))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "lstsq");
    err = expect_error([&] { (void)la::matrix_exp(rt.variable_from(rnd({3, 2}, 42))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  });
  const auto traced = expect_error([&] { (void)la::matrix_exp(TracedTensor::input("x", DType::F64, {2, 3})); });
  EXPECT_EQ(traced.kind(), ta::ErrorKind::Validation);
  EXPECT_EQ(traced.op(), "matrix_exp");
}

}  // namespace
