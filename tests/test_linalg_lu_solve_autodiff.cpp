// lu_factor and lu_solve in the eager and traced front doors: values equal to the direct forms
// bit for bit, the rules against central finite differences (F64, C128, vector and broadcast
// right-hand sides), <w, J u> both ways, the traced graph against eager, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
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

EagerTensor weighted(EagerSession& s, const EagerTensor& x, std::uint64_t seed) {
  return s.sum(s.mul(x, s.constant(rnd(x.shape(), seed))));
}

TEST(LinalgLuSolveAutodiff, EagerEqualsDirect) {
  auto e = ta::CpuEngine::serial();
  const Tensor a = rnd({2, 4, 4}, 1), b = rnd({2, 4, 3}, 2), v = rnd({4}, 3);
  const la::LUFactor d = la::lu_factor(a, e);
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession&) {
    const auto f = la::lu_factor(rt.variable_from(a));
    EXPECT_EQ(f.lu.value().to_vec<double>(), d.lu.to_vec<double>());
    EXPECT_EQ(f.pivots.dtype(), DType::I32);
    EXPECT_EQ(f.pivots.value().to_vec<std::int32_t>(), d.pivots.to_vec<std::int32_t>());
    const EagerTensor x = la::lu_solve(f, rt.variable_from(b));
    EXPECT_EQ(x.value().to_vec<double>(), la::lu_solve(d, b, e).to_vec<double>());
    // A vector right-hand side, broadcast over the factor's batch.
    const EagerTensor xv = la::lu_solve(f, rt.variable_from(v));
    EXPECT_EQ(xv.shape(), (ta::Shape{2, 4}));
    EXPECT_EQ(xv.value().to_vec<double>(), la::lu_solve(d, v, e).to_vec<double>());
  });
}

TEST(LinalgLuSolveAutodiff, AgainstFiniteDifferences) {
  check_gradients("lu_factor's packed lu", [](EagerSession& s, const Args& x) {
    return weighted(s, la::lu_factor(x[0]).lu, 10);
  }, {rnd({2, 3, 3}, 11)});
  check_gradients("lu_solve through lu_factor", [](EagerSession&, const Args& x) {
    return la::lu_solve(la::lu_factor(x[0]), x[1]);
  }, {rnd({2, 4, 4}, 12), rnd({2, 4, 2}, 13)});
  check_gradients("lu_solve, vector rhs broadcast over the batch", [](EagerSession&, const Args& x) {
    return la::lu_solve(la::lu_factor(x[0]), x[1]);
  }, {rnd({3, 3, 3}, 15), rnd({3}, 16)});
  check_gradients("lu_solve C128", [](EagerSession& s, const Args& x) {
    const auto f = la::lu_factor(complex_of(s, x[0], x[1]));
    return parts(s, la::lu_solve(f, complex_of(s, x[2], x[3])));
  }, {rnd({3, 3}, 17), rnd({3, 3}, 18), rnd({3, 2}, 19), rnd({3, 2}, 20)});
}

TEST(LinalgLuSolveAutodiff, TracedEqualsEager) {
  auto e = ta::CpuEngine::serial();
  const Tensor av = rnd({2, 4, 4}, 30), bv = rnd({2, 4, 2}, 31), c = rnd({2, 4, 2}, 32), t = rnd({2, 4, 4}, 33);
  auto a = TracedTensor::input("a", DType::F64, {2, 4, 4});
  auto b = TracedTensor::input("b", DType::F64, {2, 4, 2});
  const auto f = la::lu_factor(a);
  EXPECT_EQ(f.pivots.dtype(), DType::I32);
  EXPECT_EQ(f.pivots.shape(), (ta::Shape{2, 4}));
  const TracedTensor x = la::lu_solve(f, b);
  const TracedTensor loss = x.mul(TracedTensor::constant(c)).sum().add(f.lu.sum());
  const auto g = ta::grad(loss, {a, b});
  const auto jt = ta::jvp({loss}, {a}, {TracedTensor::constant(t)});
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({x, g[0], g[1], jt[0], f.pivots}, {a, b}), e, {av, bv});
  const la::LUFactor d = la::lu_factor(av, e);
  EXPECT_EQ(out[0].to_vec<double>(), la::lu_solve(d, bv, e).to_vec<double>());
  EXPECT_EQ(out[4].to_vec<std::int32_t>(), d.pivots.to_vec<std::int32_t>());
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto fn = [&](EagerSession& s2, const std::vector<EagerTensor>& xs) {
      const auto ef = la::lu_factor(xs[0]);
      return std::vector<EagerTensor>{s2.add(s2.sum(s2.mul(la::lu_solve(ef, xs[1]), s2.constant(c))), s2.sum(ef.lu))};
    };
    const EagerTensor ea = rt.variable_from(av), eb = rt.variable_from(bv);
    fn(s, {ea, eb})[0].backward();
    for (auto [traced, eager] : {std::pair{out[1], ea.grad()}, std::pair{out[2], eb.grad()}}) {
      const auto gt = traced.to_vec<double>(), ge = eager.to_vec<double>();
      ASSERT_EQ(gt.size(), ge.size());
      for (std::size_t i = 0; i < ge.size(); ++i) EXPECT_NEAR(gt[i], ge[i], 1e-12 * (1 + std::abs(ge[i])));
    }
    const auto jr = ta::jvp(s, fn, {av, bv}, {t, Tensor::zeros({2, 4, 2}, eager_test::f64())});
    EXPECT_NEAR(out[3].item<double>(), jr.tangents[0].item<double>(), 1e-10 * (1 + std::abs(jr.tangents[0].item<double>())));
  });
}

// A traced lu_factor reads its pivots back from the permutation matrix it packs beside lu
// (one factorization per graph): they must be LAPACK's own, for tall, wide, complex, batched and
// singular inputs and for permutations that move rows more than once.
TEST(LinalgLuSolveAutodiff, TracedPivotsAreLapacksPivots) {
  auto e = ta::CpuEngine::serial();
  std::vector<Tensor> cases = {rnd({5, 5}, 50), rnd({3, 6, 4}, 51), rnd({2, 4, 7}, 52),
                               rnd({2, 5, 5}, 53).cast(DType::C128, e).add(
                                   rnd({2, 5, 5}, 54).cast(DType::C128, e).mul(std::complex<double>(0, 1), e), e)};
  // Anti-diagonal (every row moves), a zero column (LAPACK keeps the row: no interchange), and
  // a cyclic shift (rows move again after their first interchange).
  cases.push_back(Tensor::from_vec_col_major({4, 4}, std::vector<double>{0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 0}));
  cases.push_back(Tensor::from_vec_col_major({3, 3}, std::vector<double>{0, 0, 0, 1, 2, 3, 3, 1, 2}));
  cases.push_back(Tensor::from_vec_col_major({4, 4}, std::vector<double>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0}));
  for (const Tensor& av : cases) {
    auto a = TracedTensor::input("a", av.dtype(), av.shape());
    const auto f = la::lu_factor(a);
    const ta::Program program = ta::GraphCompiler().compile({f.pivots, f.lu}, {a});
    EXPECT_EQ(program.count("linalg.lu_factor"), 1u);
    const auto out = ta::Runtime().run(program, e, {av});
    const la::LUFactor d = la::lu_factor(av, e);
    EXPECT_EQ(out[0].dtype(), DType::I32);
    EXPECT_EQ(out[0].shape(), d.pivots.shape());
    EXPECT_EQ(out[0].to_vec<std::int32_t>(), d.pivots.to_vec<std::int32_t>()) << av.shape().size() << "-d " << ta::name(av.dtype());
  }
}

TEST(LinalgLuSolveAutodiff, Errors) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    // A wide matrix factorizes; its lu is not differentiable.
    const auto wide = la::lu_factor(rt.variable_from(rnd({2, 3}, 40)));
    EXPECT_EQ(wide.lu.shape(), (ta::Shape{2, 3}));
    auto err = expect_error([&] { s.sum(wide.lu).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.op(), "lu_factor");
    EXPECT_NE(std::string(err.what()).find("lu_factor is differentiable for square matrices; this one is 2 x 3"),
              std::string::npos);
    // A pivot out of range, and a singular factor: the direct form's errors.
    auto f = la::lu_factor(rt.variable_from(rnd({3, 3}, 41)));
    const auto bad = la::BasicLUFactor<EagerTensor>{f.lu, s.constant(Tensor::from_vec_col_major({3}, std::vector<std::int32_t>{4, 2, 3}))};
    err = expect_error([&] { la::lu_solve(bad, rt.variable_from(rnd({3}, 42))); });
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "pivots");
    const auto sing = la::lu_factor(s.constant(Tensor::zeros({2, 2}, eager_test::f64())));
    err = expect_error([&] { la::lu_solve(sing, rt.variable_from(rnd({2}, 43))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(err.op(), "lu_solve");
    err = expect_error([&] { la::lu_solve(f, rt.variable_from(rnd({4, 1}, 44))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_NE(std::string(err.what()).find("b must have 3 rows"), std::string::npos);
  });
  // Traced: shapes and dtypes are checked when the graph is built.
  auto a = TracedTensor::input("a", DType::F64, {3, 3});
  const auto f = la::lu_factor(a);
  auto err = expect_error([&] { (void)la::lu_solve(la::BasicLUFactor<TracedTensor>{f.lu, f.pivots.slice(0, 0, 2)}, a); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_EQ(std::get<ta::ShapeMismatch>(err.detail()).expected, (std::vector<std::int64_t>{3}));
  err = expect_error([&] { (void)la::lu_solve(la::BasicLUFactor<TracedTensor>{f.lu, f.pivots.convert(DType::I64)}, a); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(err.detail()));
  err = expect_error([&] { (void)la::lu_solve(f, TracedTensor::input("b", DType::F64, {4, 2})); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
}

}  // namespace
