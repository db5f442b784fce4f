// Finite-difference and JVP/VJP checks of the elementwise AD rules (F64).
#include <random>

#include "test_eager_check.hpp"

namespace {

using namespace eager_test;
using ta::EagerSession;
using ta::EagerTensor;
using Xs = std::vector<EagerTensor>;

struct UnaryCase {
  const char* name;
  EagerTensor (EagerSession::*op)(const EagerTensor&, ta::SourceLocation);
  double lo, hi;  // input domain
};

TEST(EagerGradElementwise, UnaryOpsMatchFiniteDifferences) {
  const UnaryCase cases[] = {
      {"neg", &EagerSession::neg, -1, 1},        {"abs", &EagerSession::abs, 0.1, 1},
      {"abs_neg", &EagerSession::abs, -1, -0.1}, {"exp", &EagerSession::exp, -1, 1},
      {"expm1", &EagerSession::expm1, -1, 1},    {"log", &EagerSession::log, 0.5, 2},
      {"log1p", &EagerSession::log1p, 0, 1},     {"sqrt", &EagerSession::sqrt, 0.5, 2},
      {"rsqrt", &EagerSession::rsqrt, 0.5, 2},   {"sin", &EagerSession::sin, -1, 1},
      {"cos", &EagerSession::cos, -1, 1},        {"tan", &EagerSession::tan, -1, 1},
      {"tanh", &EagerSession::tanh, -1, 1},      {"sigmoid", &EagerSession::sigmoid, -2, 2},
      {"erf", &EagerSession::erf, -1, 1},        {"conj", &EagerSession::conj, -1, 1},
      {"real", &EagerSession::real, -1, 1},      {"imag", &EagerSession::imag, -1, 1},
  };
  std::uint64_t seed = 1;
  for (const auto& c : cases) {
    auto op = c.op;
    // A transposed (strided) input as well as a compact one.
    const ta::Tensor x = rnd({3, 2}, seed++, c.lo, c.hi).transpose();
    check_gradients(
        c.name,
        [op](EagerSession& s, const Xs& v) { return (s.*op)(v[0], ta::SourceLocation::current()); },
        {x});
  }
}

struct BinaryCase {
  const char* name;
  EagerTensor (EagerSession::*op)(const EagerTensor&, const EagerTensor&, ta::SourceLocation);
  double lo, hi;
};

TEST(EagerGradElementwise, BinaryOpsWithBroadcastingMatchFiniteDifferences) {
  const BinaryCase cases[] = {
      {"add", &EagerSession::add, -1, 1},         {"sub", &EagerSession::sub, -1, 1},
      {"mul", &EagerSession::mul, -1, 1},         {"div", &EagerSession::div, 0.5, 2},
      {"pow", &EagerSession::pow, 0.5, 2},        {"maximum", &EagerSession::maximum, -1, 1},
      {"minimum", &EagerSession::minimum, -1, 1}, {"atan2", &EagerSession::atan2, 0.2, 1},
      {"rem", &EagerSession::rem, 0.5, 2},
  };
  std::uint64_t seed = 100;
  for (const auto& c : cases) {
    auto op = c.op;
    auto f = [op](EagerSession& s, const Xs& v) {
      return (s.*op)(v[0], v[1], ta::SourceLocation::current());
    };
    check_gradients(std::string(c.name) + " same shape", f,
                    {rnd({2, 3}, seed, c.lo, c.hi), rnd({2, 3}, seed + 1, c.lo, c.hi)});
    // [2, 3] with [3] and [2, 1]: the cotangents sum over the broadcast axes.
    check_gradients(std::string(c.name) + " broadcast", f,
                    {rnd({2, 3}, seed + 2, c.lo, c.hi), rnd({3}, seed + 3, c.lo, c.hi)});
    check_gradients(std::string(c.name) + " broadcast lhs", f,
                    {rnd({2, 1}, seed + 4, c.lo, c.hi), rnd({2, 3}, seed + 5, c.lo, c.hi)});
    seed += 10;
  }
}

TEST(EagerGradElementwise, ScalarsOnEitherSide) {
  check_gradients("2 - x / 3",
                  [](EagerSession& s, const Xs& v) { return s.sub(2.0, s.div(v[0], 3)); },
                  {rnd({4}, 7)});
  check_gradients("x ** 3", [](EagerSession& s, const Xs& v) { return s.pow(v[0], 3); },
                  {rnd({4}, 8, 0.5, 1.5)});
  check_gradients(
      "operators",
      [](EagerSession&, const Xs& v) { return -(v[0] * v[1] + 1.0) / (v[1] + 3.0) - 2.0 * v[0]; },
      {rnd({2, 2}, 9), rnd({2, 2}, 10)});
}

TEST(EagerGradElementwise, ClampSelectAndCasts) {
  check_gradients("clamp scalars",
                  [](EagerSession& s, const Xs& v) { return s.clamp(v[0], -0.5, 0.5); },
                  {rnd({3, 3}, 11)});
  check_gradients("clamp tensors",
                  [](EagerSession& s, const Xs& v) { return s.clamp(v[0], v[1], v[2]); },
                  {rnd({3, 3}, 12), rnd({3, 3}, 13, -1, -0.2), rnd({3}, 14, 0.2, 1)});
  check_gradients("select",
                  [](EagerSession& s, const Xs& v) {
                    return s.select(s.gt(v[0], 0.0), v[0], s.mul(v[1], v[1]));
                  },
                  {rnd({2, 3}, 15), rnd({3}, 16)});
  // Through F32 and back: the F64 -> F32 -> F64 round trip has slope 1 (to F32 precision).
  check_gradients(
      "cast round trip",
      [](EagerSession& s, const Xs& v) {
        return s.convert(s.mul(s.cast(v[0], ta::DType::F32), 2.0), ta::DType::F64);
      },
      {rnd({3}, 17)}, 1e-3, 1e-3);
}

TEST(EagerGradElementwise, MaximumTiesSplitEvenly) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(ta::Tensor::from_vec_col_major<double>({2}, {1, 2}));
  auto y = rt.variable_from(ta::Tensor::from_vec_col_major<double>({2}, {1, 1}));
  rt.with_eager_session(e, [&](EagerSession& s) { s.sum(s.maximum(x, y)).backward(); });
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{0.5, 1}));
  EXPECT_EQ(y.grad().to_vec<double>(), (std::vector<double>{0.5, 0}));
}

TEST(EagerGradElementwise, PiecewiseConstantOpsGiveNoGradient) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(ta::Tensor::from_vec_col_major<double>({2}, {1.5, -2.5}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    EXPECT_FALSE(s.floor(x).requires_grad());
    EXPECT_FALSE(s.gt(x, 0.0).requires_grad());
    EXPECT_TRUE(s.add(s.round(x), x).requires_grad());
    s.sum(s.add(s.round(x), x)).backward();
  });
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{1, 1}));
}

// Complex: the cotangent of z = a + ib is dL/da + i dL/db for L = Re(sum(conj(w) f(z))).
TEST(EagerGradElementwise, ComplexFollowsConjugateWirtinger) {
  using C = std::complex<double>;
  const std::vector<C> zv{{0.3, -0.7}, {1.2, 0.4}};
  const std::vector<C> wv{{0.5, 0.25}, {-1.0, 2.0}};
  const std::vector<C> cv{{2.0, 1.0}, {-0.5, 0.3}};
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  using F = std::function<EagerTensor(EagerSession&, const EagerTensor&, const EagerTensor&)>;
  const std::pair<const char*, F> cases[] = {
      {"mul",
       [](EagerSession& s, const EagerTensor& z, const EagerTensor& c) { return s.mul(z, c); }},
      {"exp", [](EagerSession& s, const EagerTensor& z, const EagerTensor&) { return s.exp(z); }},
      {"div",
       [](EagerSession& s, const EagerTensor& z, const EagerTensor& c) { return s.div(c, z); }},
      {"abs", [](EagerSession& s, const EagerTensor& z,
                 const EagerTensor&) { return s.cast(s.abs(z), ta::DType::C128); }},
      {"conj", [](EagerSession& s, const EagerTensor& z, const EagerTensor&) { return s.conj(z); }},
      {"imag", [](EagerSession& s, const EagerTensor& z,
                  const EagerTensor&) { return s.cast(s.imag(z), ta::DType::C128); }},
      {"var", [](EagerSession& s, const EagerTensor& z,
                 const EagerTensor& c) { return s.mul(s.cast(s.var(z), ta::DType::C128), c); }},
      {"std", [](EagerSession& s, const EagerTensor& z,
                 const EagerTensor& c) { return s.mul(s.cast(s.std(z), ta::DType::C128), c); }},
      {"prod", [](EagerSession& s, const EagerTensor& z,
                  const EagerTensor& c) { return s.mul(s.prod(z), c); }},
      {"matmul",
       [](EagerSession& s, const EagerTensor& z, const EagerTensor& c) {
         return s.sum(s.matmul(s.reshape(z, {2, 1}), s.reshape(c, {1, 2})), {1});
       }},
  };
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto w = ta::Tensor::from_vec_col_major<C>({2}, wv);
    const auto c = s.constant(ta::Tensor::from_vec_col_major<C>({2}, cv));
    for (const auto& [label, op] : cases) {
      SCOPED_TRACE(label);
      const auto& f = op;  // clang 14 cannot capture a structured binding
      auto loss = [&](const std::vector<C>& z) {
        ta::NoGradGuard g;
        const auto out =
            f(s, s.constant(ta::Tensor::from_vec_col_major<C>({2}, z)), c).value().to_vec<C>();
        double acc = 0;
        for (std::size_t i = 0; i < z.size(); ++i) acc += (std::conj(wv[i]) * out[i]).real();
        return acc;
      };
      const auto r = ta::vjp(s, [&](EagerSession& ss, const Xs& v) { return Xs{f(ss, v[0], c)}; },
                             {ta::Tensor::from_vec_col_major<C>({2}, zv)}, {w});
      const auto g = r.cotangents[0].to_vec<C>();
      const double h = 1e-6;
      for (std::size_t k = 0; k < zv.size(); ++k) {
        auto zp = zv, zm = zv;
        zp[k] += C(h, 0);
        zm[k] -= C(h, 0);
        const double da = (loss(zp) - loss(zm)) / (2 * h);
        zp = zv;
        zm = zv;
        zp[k] += C(0, h);
        zm[k] -= C(0, h);
        const double db = (loss(zp) - loss(zm)) / (2 * h);
        EXPECT_NEAR(g[k].real(), da, 1e-6);
        EXPECT_NEAR(g[k].imag(), db, 1e-6);
      }
    }
  });
}

}  // namespace

namespace {

// Random ranks and extents, with extent-1 and missing leading axes on either side.
TEST(EagerGradElementwise, RandomBroadcastShapes) {
  std::mt19937 rng(2024);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 12; ++trial) {
    const int rank = pick(1, 3);
    ta::Shape full;
    for (int d = 0; d < rank; ++d) full.push_back(pick(1, 3));
    ta::Shape a = full, b = full;
    for (int d = 0; d < rank; ++d) {
      if (pick(0, 2) == 0) a[static_cast<std::size_t>(d)] = 1;
      if (pick(0, 2) == 0) b[static_cast<std::size_t>(d)] = 1;
    }
    if (pick(0, 1) == 1) b.erase(b.begin(), b.begin() + pick(0, rank - 1));
    const auto seed = static_cast<std::uint64_t>(500 + 2 * trial);
    check_gradients("mul/div/sub trial " + std::to_string(trial),
                    [](ta::EagerSession& s, const std::vector<ta::EagerTensor>& v) {
                      return s.sub(s.div(s.mul(v[0], v[1]), s.add(s.mul(v[1], v[1]), 1.0)), v[0]);
                    },
                    {rnd(a, seed), rnd(b, seed + 1)});
  }
}

}  // namespace
