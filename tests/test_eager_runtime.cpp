// The eager runtime: promotion, weak scalars, reverse mode bookkeeping, functional forms, errors.
#include <gtest/gtest.h>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::EagerSession;
using ta::EagerTensor;

ta::Tensor f64(ta::Shape shape, std::vector<double> v) {
  return ta::Tensor::from_vec_col_major(std::move(shape), std::move(v));
}
ta::Tensor f32(ta::Shape shape, std::vector<float> v) {
  return ta::Tensor::from_vec_col_major(std::move(shape), std::move(v));
}

using tensora_test::expect_error;

// The seed scenario: direct refuses mixed dtypes, eager promotes to F64.
TEST(EagerRuntime, SeedScenarioMatmulPromotes) {
  auto e = ta::CpuEngine::serial();
  const auto x = f64({2, 2}, {1, 2, 3, 4});
  const auto y = f32({2, 2}, {0.5f, 0.5f, 0.5f, 0.5f});
  const auto err = expect_error([&] { (void)x.matmul(y, e); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_NE(std::string(err.what()).find("dot_general: dtype mismatch: expected F64, actual F32"),
            std::string::npos)
      << err.what();
  ta::EagerRuntime rt;
  const auto ex = rt.constant_from(x);
  const auto ey = rt.constant_from(y);
  const ta::Tensor r =
      rt.with_eager_session(e, [&](EagerSession& s) { return s.matmul(ex, ey).value(); });
  EXPECT_EQ(r.dtype(), DType::F64);
  EXPECT_EQ(r.to_vec<double>(), (std::vector<double>{2, 3, 2, 3}));
}

TEST(EagerRuntime, DesignSection7SpellingsCompile) {
  ta::EagerRuntime rt;
  auto engine = ta::CpuEngine::serial();
  auto x = rt.constant_from(f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto w = rt.variable_from(f64({3, 1}, {1, 1, 1}));
  rt.with_eager_session(engine, [&](ta::EagerSession& s) {
    auto loss = s.sum(s.matmul(x, w));
    EXPECT_EQ(loss.value().dtype(), DType::F64);
    loss.backward();
  });
  const ta::Tensor g = w.grad();
  EXPECT_EQ(g.dtype(), DType::F64);
  EXPECT_EQ(g.to_vec<double>(), (std::vector<double>{3, 7, 11}));
}

TEST(EagerRuntime, PromotionPlanFollowsLatticeAndOpPolicy) {
  const auto cpu = ta::Device::cpu(0);  // default settings: F32 / I64
  using V = std::vector<DType>;
  EXPECT_EQ(ta::eager_input_promotion_plan("add", {DType::I32, DType::F32}, cpu),
            (V{DType::F32, DType::F32}));
  EXPECT_EQ(ta::eager_input_promotion_plan("add", {DType::U8, DType::I8}, cpu),
            (V{DType::I16, DType::I16}));
  EXPECT_EQ(ta::eager_input_promotion_plan("mul", {DType::F64, DType::C64}, cpu),
            (V{DType::C128, DType::C128}));
  // U64 with a signed int joins at the float bottom: the device's default float.
  EXPECT_EQ(ta::eager_input_promotion_plan("add", {DType::U64, DType::I8}, cpu),
            (V{DType::F32, DType::F32}));
  // Comparisons join their inputs (the result is Bool by the op).
  EXPECT_EQ(ta::eager_input_promotion_plan("lt", {DType::I32, DType::F64}, cpu),
            (V{DType::F64, DType::F64}));
  // Float-only ops send ints to the default float; div of ints is true division.
  EXPECT_EQ(ta::eager_input_promotion_plan("div", {DType::I32, DType::I64}, cpu),
            (V{DType::F32, DType::F32}));
  EXPECT_EQ(ta::eager_input_promotion_plan("exp", {DType::I64}, cpu), (V{DType::F32}));
  EXPECT_EQ(ta::eager_input_promotion_plan("mean", {DType::I16}, cpu), (V{DType::F32}));
  // abs of complex keeps the complex input (the op returns the real dtype).
  EXPECT_EQ(ta::eager_input_promotion_plan("abs", {DType::C64}, cpu), (V{DType::C64}));
  // Arithmetic on Bool counts in the default int.
  EXPECT_EQ(ta::eager_input_promotion_plan("add", {DType::Bool, DType::Bool}, cpu),
            (V{DType::I64, DType::I64}));
  // select keeps its predicate.
  EXPECT_EQ(ta::eager_input_promotion_plan("select", {DType::Bool, DType::F16, DType::BF16}, cpu),
            (V{DType::Bool, DType::F32, DType::F32}));
  // The device's default float resolves F*: cpu:1 is configured to F64 by the test environment.
  EXPECT_EQ(ta::eager_input_promotion_plan("div", {DType::I32}, ta::Device::cpu(1)),
            (V{DType::F64}));
  const auto err = expect_error(
      [] { (void)ta::eager_input_promotion_plan("frobnicate", {DType::F32}, ta::Device::cpu(0)); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
}

TEST(EagerRuntime, WeakScalarsFollowSection2) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  const auto i32 = rt.constant_from(ta::Tensor::from_vec_col_major<std::int32_t>({2}, {1, 2}));
  const auto u8 = rt.constant_from(ta::Tensor::from_vec_col_major<std::uint8_t>({2}, {1, 2}));
  const auto h =
      rt.constant_from(ta::Tensor::from_vec_col_major<ta::Float16>({1}, {ta::Float16(1.0f)}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    EXPECT_EQ(s.add(i32, 2).dtype(), DType::I32);
    const auto half = s.add(i32, 0.5);  // higher kind: the device's default float
    EXPECT_EQ(half.dtype(), DType::F32);
    EXPECT_EQ(half.value().to_vec<float>(), (std::vector<float>{1.5f, 2.5f}));
    EXPECT_EQ(s.sub(1.0, i32).value().to_vec<float>(), (std::vector<float>{0, -1}));
    EXPECT_EQ(s.add(h, 2.0).dtype(), DType::F16);
    EXPECT_EQ(s.div(i32, 2).value().to_vec<float>(), (std::vector<float>{0.5f, 1.0f}));
    EXPECT_EQ(s.mul(i32, std::complex<double>(0, 1)).dtype(), DType::C64);
    EXPECT_EQ(s.gt(i32, 1.5).dtype(), DType::Bool);
    EXPECT_EQ((i32 + 1).value().to_vec<std::int32_t>(), (std::vector<std::int32_t>{2, 3}));
    const auto clamped = s.clamp(i32, 0.5, 1.5);  // float bounds promote the int tensor
    EXPECT_EQ(clamped.dtype(), DType::F32);
    EXPECT_EQ(clamped.value().to_vec<float>(), (std::vector<float>{1.0f, 1.5f}));
    const auto err = expect_error([&] { (void)s.add(u8, 300); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(err.what()).find("add: scalar 300 (int) does not fit tensor dtype U8"),
              std::string::npos)
        << err.what();
  });
}

TEST(EagerRuntime, GradientsAccumulateUntilCleared) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({2}, {1, 2}));
  auto run = [&] { rt.with_eager_session(e, [&](EagerSession& s) { s.sum(x * x).backward(); }); };
  EXPECT_FALSE(x.has_grad());
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{0, 0}));
  run();
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{2, 4}));
  run();
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{4, 8}));
  rt.clear_grads();
  EXPECT_FALSE(x.has_grad());
  run();
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{2, 4}));
  x.clear_grad();
  EXPECT_FALSE(x.has_grad());
}

TEST(EagerRuntime, ConvertedLeafGetsGradientInItsOwnDtype) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto a = rt.variable_from(f32({2}, {1, 2}));
  auto b = rt.variable_from(f64({2}, {3, 4}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    auto y = a * b;  // a is converted to F64 by a recorded step
    EXPECT_EQ(y.dtype(), DType::F64);
    s.sum(y).backward();
  });
  EXPECT_EQ(a.grad().dtype(), DType::F32);
  EXPECT_EQ(a.grad().to_vec<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(b.grad().dtype(), DType::F64);
  EXPECT_EQ(b.grad().to_vec<double>(), (std::vector<double>{1, 2}));
}

TEST(EagerRuntime, HalfPrecisionLeavesGetHalfPrecisionGradients) {
  // F16 and BF16 compute in F32 and round once; their gradients come back in their own dtype,
  // through their own math and through a promotion to F32.
  auto e = ta::CpuEngine::serial();
  for (const DType dt : {DType::F16, DType::BF16}) {
    SCOPED_TRACE(std::string(ta::name(dt)));
    ta::EagerRuntime rt;
    const ta::Tensor values = f64({4}, {0.5, -1.25, 2, 3.5});
    auto h = rt.variable_from(values.cast(dt, e));
    auto w = rt.variable_from(f32({4}, {1, 2, 3, 4}));
    rt.with_eager_session(e, [&](EagerSession& s) {
      auto own = s.sum(s.mul(h, h));      // in dt: d/dh = 2h (exact in dt here)
      EXPECT_EQ(own.dtype(), dt);
      own.backward();
      EXPECT_EQ(h.grad().dtype(), dt);
      EXPECT_EQ(h.grad().cast(DType::F64, e).to_vec<double>(), (std::vector<double>{1, -2.5, 4, 7}));
      h.clear_grad();
      auto mixed = s.sum(s.mul(h, w));    // h converted to F32 by a recorded step
      EXPECT_EQ(mixed.dtype(), DType::F32);
      mixed.backward();
      EXPECT_EQ(h.grad().dtype(), dt);
      EXPECT_EQ(h.grad().cast(DType::F64, e).to_vec<double>(), (std::vector<double>{1, 2, 3, 4}));
      EXPECT_EQ(w.grad().to_vec<float>(), (std::vector<float>{0.5f, -1.25f, 2, 3.5f}));
    });
  }
}

TEST(EagerRuntime, ProdGradientIsTheProductOfTheOthersEvenWithZeros) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  // Columns (axis 0 reduced): [2, 0, 3] has one zero, [0, 5, 0] two, [1, 4, 2] none.
  auto x = rt.variable_from(f64({3, 3}, {2, 0, 3, 0, 5, 0, 1, 4, 2}));
  rt.with_eager_session(e, [&](EagerSession& s) { s.sum(s.prod(x, {0})).backward(); });
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{0, 6, 0, 0, 0, 0, 8, 2, 4}));
  x.clear_grad();
  rt.with_eager_session(e, [&](EagerSession& s) { s.prod(x).backward(); });  // every axis: all zero
  EXPECT_EQ(x.grad().to_vec<double>(), std::vector<double>(9, 0.0));
}

TEST(EagerRuntime, RealLeafInComplexMathGetsTheRealPart) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({1}, {2}));
  const auto c =
      rt.constant_from(ta::Tensor::from_vec_col_major<std::complex<double>>({1}, {{0, 1}}));
  rt.with_eager_session(e,
                        [&](EagerSession& s) { s.sum(s.real(s.mul(s.mul(x, x), c))).backward(); });
  EXPECT_EQ(x.grad().dtype(), DType::F64);
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{0}));  // Re(i x^2) = 0
}

TEST(EagerRuntime, NoGradGuardAndDetachCutTheTape) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({2}, {1, 2}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    {
      ta::NoGradGuard guard;
      EXPECT_FALSE(ta::grad_enabled());
      EXPECT_FALSE((x * x).requires_grad());
    }
    EXPECT_TRUE(ta::grad_enabled());
    EXPECT_TRUE((x * x).requires_grad());
    const auto d = x.detach();
    EXPECT_FALSE(d.requires_grad());
    // d/dx of x * detach(x) is detach(x).
    s.sum(x * d).backward();
  });
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{1, 2}));
}

TEST(EagerRuntime, NonDifferentiableInputsHaveOneRule) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  const auto ints = ta::Tensor::from_vec_col_major<std::int32_t>({2}, {1, 2});
  const auto err = expect_error([&] { (void)rt.variable_from(ints); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_EQ(err.op(), "variable_from");
  EXPECT_NE(std::string(err.what()).find("dtype I32 has no gradient"), std::string::npos)
      << err.what();
  auto x = rt.variable_from(f64({2}, {1, 2}));
  const auto k = rt.constant_from(ints);
  rt.with_eager_session(e, [&](EagerSession& s) {
    // Int and Bool values flow through as constants; x still gets its gradient.
    auto y = s.mul(x, s.cast(s.gt(k, 1), DType::F64));
    s.sum(s.add(y, k)).backward();
  });
  EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{0, 1}));
}

TEST(EagerRuntime, BackwardErrorsNameTheProblem) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({2, 2}, {1, 2, 3, 4}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto err = expect_error([&] { (x * 2.0).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "backward");
    EXPECT_NE(std::string(err.what()).find("needs a one-element result, got shape [2, 2]"),
              std::string::npos)
        << err.what();
    const auto c = expect_error([&] { s.sum(rt.constant_from(f64({1}, {1}))).backward(); });
    EXPECT_EQ(c.kind(), ta::ErrorKind::InvalidArgument);
    const auto g = expect_error([&] { (void)(x * 2.0).grad(); });
    EXPECT_EQ(g.op(), "grad");
  });
  const auto outside = expect_error([&] { (void)(x + x); });
  EXPECT_EQ(outside.kind(), ta::ErrorKind::InvalidArgument);
}

TEST(EagerRuntime, MismatchedDevicesInASessionThrow) {
  auto e = ta::CpuEngine::serial(ta::Device::cpu(0));
  ta::EagerRuntime rt;
  const auto a = rt.constant_from(f64({1}, {1}));
  const auto b =
      rt.constant_from(ta::Tensor::zeros({1}, ta::TensorOptions(ta::Device::cpu(6), DType::F32)));
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto err = expect_error([&] { (void)s.add(a, b); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
    EXPECT_EQ(err.op(), "add");
    EXPECT_NE(std::string(err.what()).find("cpu:6"), std::string::npos) << err.what();
  });
}

TEST(EagerRuntime, FunctionalFormsAgree) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const ta::EagerFunction f = [](EagerSession& ss, const std::vector<EagerTensor>& v) {
      return std::vector<EagerTensor>{ss.sum(ss.mul(ss.sin(v[0]), v[1]))};
    };
    const auto x = f64({2}, {0.5, 1.0});
    const auto y = f64({2}, {2.0, 3.0});
    const auto gr = ta::grad(f)(s, {x, y});
    ASSERT_EQ(gr.size(), 2u);
    EXPECT_NEAR(gr[0].to_vec<double>()[0], std::cos(0.5) * 2, 1e-14);
    EXPECT_NEAR(gr[1].to_vec<double>()[1], std::sin(1.0), 1e-14);
    const auto r = ta::vjp(s, f, {x, y}, {f64({}, {2.0})});
    EXPECT_NEAR(r.cotangents[0].to_vec<double>()[1], 2 * std::cos(1.0) * 3, 1e-14);
    const auto j = ta::jvp(s, f, {x, y}, {f64({2}, {1, 0}), f64({2}, {0, 0})});
    EXPECT_NEAR(j.tangents[0].item<double>(), std::cos(0.5) * 2, 1e-14);
    EXPECT_NEAR(j.outputs[0].item<double>(), std::sin(0.5) * 2 + std::sin(1.0) * 3, 1e-14);
    const auto err = expect_error([&] { (void)ta::vjp(s, f, {x, y}, {f64({2}, {1, 1})}); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  });
}

TEST(EagerRuntime, EdgeAndReflectPadGradientsCountEachCopy) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({3}, {1, 2, 3}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto edge = s.pad(x, {{1, 1}}, {ta::PadMode::Edge, 0});
    EXPECT_EQ(edge.value().to_vec<double>(), (std::vector<double>{1, 1, 2, 3, 3}));
    s.sum(edge).backward();
    EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{2, 1, 2}));
    x.clear_grad();
    const auto reflect = s.pad(x, {{2, 1}}, {ta::PadMode::Reflect, 0});
    EXPECT_EQ(reflect.value().to_vec<double>(), (std::vector<double>{3, 2, 1, 2, 3, 2}));
    s.sum(reflect).backward();
    EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{1, 3, 2}));
  });
}

}  // namespace

namespace {
TEST(EagerRuntime, EinsumWithRepeatedLabelsDifferentiatesThroughTheDiagonal) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto x = rt.variable_from(f64({2, 2}, {1, 2, 3, 4}));  // column-major: [[1, 3], [2, 4]]
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto d = s.einsum("ii->i", {x});
    EXPECT_EQ(d.value().to_vec<double>(), (std::vector<double>{1, 4}));
    s.sum(s.mul(d, d)).backward();  // d/dx sum(diag^2) = 2 diag on the diagonal
    EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{2, 0, 0, 8}));
    EXPECT_EQ(s.einsum("ii->", {x.detach()}).value().item<double>(), 5.0);
  });
}
}  // namespace

namespace {
TEST(EagerRuntime, FunctionalFormsLeaveClosedOverVariablesAlone) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto w = rt.variable_from(f64({2}, {3, 4}));
  rt.with_eager_session(e, [&](EagerSession& s) {
    const ta::EagerFunction f = [&](EagerSession& ss, const std::vector<EagerTensor>& v) {
      return std::vector<EagerTensor>{ss.mul(v[0], w), ss.sum(ss.mul(v[0], v[0]))};
    };
    const auto x = f64({2}, {1, 2});
    const auto r = ta::vjp(s, f, {x}, {f64({2}, {1, 1}), f64({}, {1})});
    EXPECT_EQ(r.cotangents[0].to_vec<double>(), (std::vector<double>{3 + 2, 4 + 4}));
    const auto j = ta::jvp(s, f, {x}, {f64({2}, {1, 0})});
    ASSERT_EQ(j.tangents.size(), 2u);
    EXPECT_EQ(j.tangents[0].to_vec<double>(), (std::vector<double>{3, 0}));  // w's tangent is 0
    EXPECT_EQ(j.tangents[1].item<double>(), 2.0);
  });
  EXPECT_FALSE(w.has_grad());
}

TEST(EagerRuntime, NestedSessionsRestoreTheActiveOne) {
  auto e1 = ta::CpuEngine::serial();
  auto e2 = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  EXPECT_EQ(EagerSession::active(), nullptr);
  rt.with_eager_session(e1, [&](EagerSession& outer) {
    EXPECT_EQ(EagerSession::active(), &outer);
    rt.with_eager_session(e2,
                          [&](EagerSession& inner) { EXPECT_EQ(EagerSession::active(), &inner); });
    EXPECT_EQ(EagerSession::active(), &outer);
  });
  EXPECT_EQ(EagerSession::active(), nullptr);
}
}  // namespace
