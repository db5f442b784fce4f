// Graph-level autodiff: grad / vjp / jvp build traced gradients with the eager rules; they agree
// with eager and with finite differences, and they compose (Hessian-vector products).
#include <gtest/gtest.h>

#include <cmath>

#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::Tensor;
using ta::TracedTensor;

ta::TensorOptions opts(DType d) { return ta::TensorOptions(ta::Device::cpu(), d); }

// Runs `outs` with the placeholders `ins` fed by `inputs` (listed explicitly: a gradient may not
// depend on every placeholder, e.g. the gradient of a linear function).
std::vector<Tensor> run(const std::vector<TracedTensor>& outs, const std::vector<TracedTensor>& ins,
                        const std::vector<Tensor>& inputs) {
  auto engine = ta::CpuEngine::serial();
  return ta::Runtime().run(ta::GraphCompiler().compile(outs, ins), engine, inputs);
}

std::vector<double> f64(const Tensor& t) {
  auto engine = ta::CpuEngine::serial();
  return t.cast(DType::F64, engine).to_vec<double>();
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << "at " << i;
}

TEST(TracedAutodiff, HessianVectorProductOfAQuadraticForm) {
  // f(x) = x^T A x; grad f = (A + A^T) x; d/dt grad f(x + t v) = (A + A^T) v.
  const Tensor a = Tensor::uniform({4, 4}, 11, opts(DType::F64), -1, 1);
  const Tensor xv = Tensor::uniform({4}, 12, opts(DType::F64), -1, 1);
  const Tensor vv = Tensor::uniform({4}, 13, opts(DType::F64), -1, 1);
  auto x = TracedTensor::input("x", DType::F64, {4});
  auto v = TracedTensor::input("v", DType::F64, {4});
  auto A = TracedTensor::constant(a);
  auto f = x.matmul(A.matmul(x));
  auto g = ta::grad(f, {x})[0];
  auto hvp = ta::jvp({g}, {x}, {v})[0];
  EXPECT_EQ(hvp.dtype(), DType::F64);
  EXPECT_EQ(hvp.shape(), (ta::Shape{4}));
  const auto out = run({g, hvp}, {x, v}, {xv, vv});
  auto engine = ta::CpuEngine::serial();
  const Tensor sym = a.add(a.transpose(), engine);
  expect_near(f64(out[0]), f64(sym.matmul(xv, engine)), 1e-14);
  expect_near(f64(out[1]), f64(sym.matmul(vv, engine)), 1e-14);
}

TEST(TracedAutodiff, MlpLossGradientEqualsEager) {
  // A two-layer MLP with mixed dtypes: x is F32 data, the weights F64; promotion converts x.
  const Tensor xv = Tensor::uniform({8, 3}, 1, opts(DType::F32), -1, 1);
  const Tensor yv = Tensor::uniform({8, 2}, 2, opts(DType::F64), -1, 1);
  const Tensor w1v = Tensor::uniform({3, 5}, 3, opts(DType::F64), -0.5, 0.5);
  const Tensor b1v = Tensor::uniform({1, 5}, 4, opts(DType::F64), -0.5, 0.5);
  const Tensor w2v = Tensor::uniform({5, 2}, 5, opts(DType::F64), -0.5, 0.5);

  auto x = TracedTensor::input("x", DType::F32, {8, 3});
  auto y = TracedTensor::input("y", DType::F64, {8, 2});
  auto w1 = TracedTensor::input("w1", DType::F64, {3, 5});
  auto b1 = TracedTensor::input("b1", DType::F64, {1, 5});
  auto w2 = TracedTensor::input("w2", DType::F64, {5, 2});
  auto h = (x.matmul(w1) + b1).tanh();
  auto d = h.matmul(w2) - y;
  auto loss = (d * d).mean();
  const auto grads = ta::grad(loss, {x, w1, b1, w2});
  EXPECT_EQ(grads[0].dtype(), DType::F32);  // flows back through the convert in x's dtype
  std::vector<TracedTensor> outs{loss};
  outs.insert(outs.end(), grads.begin(), grads.end());
  const auto traced = run(outs, {x, y, w1, b1, w2}, {xv, yv, w1v, b1v, w2v});

  auto engine = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  auto ex = rt.variable_from(xv), ew1 = rt.variable_from(w1v), eb1 = rt.variable_from(b1v),
       ew2 = rt.variable_from(w2v);
  auto ey = rt.constant_from(yv);
  const Tensor eager_loss = rt.with_eager_session(engine, [&](ta::EagerSession& s) {
    auto eh = s.tanh(s.add(s.matmul(ex, ew1), eb1));
    auto ed = s.sub(s.matmul(eh, ew2), ey);
    auto l = s.mean(s.mul(ed, ed));
    l.backward();
    return l.value();
  });
  EXPECT_EQ(f64(traced[0]), f64(eager_loss));  // the forward pass is the same ops: bitwise
  const std::vector<Tensor> eager_grads{ex.grad(), ew1.grad(), eb1.grad(), ew2.grad()};
  for (std::size_t i = 0; i < eager_grads.size(); ++i) {
    EXPECT_EQ(traced[i + 1].dtype(), eager_grads[i].dtype());
    EXPECT_EQ(traced[i + 1].shape(), eager_grads[i].shape());
    // dot_general's rule is the einsum rule, eager's matmul rule transposes: same sums in
    // another order, so equal to rounding.
    expect_near(f64(traced[i + 1]), f64(eager_grads[i]), i == 0 ? 1e-6 : 1e-13);
  }
}

// Central differences of a scalar traced function of one F64 input, against grad.
void check_grad_fd(const std::function<TracedTensor(const TracedTensor&)>& f, const Tensor& at) {
  auto x = TracedTensor::input("x", DType::F64, at.shape());
  auto y = f(x);
  auto g = ta::grad(y, {x})[0];
  auto engine = ta::CpuEngine::serial();
  const ta::Program value = ta::GraphCompiler().compile({y});
  const auto analytic = f64(run({g}, {x}, {at})[0]);
  const auto base = at.to_vec<double>();
  const double h = 1e-6;
  for (std::size_t i = 0; i < base.size(); ++i) {
    auto plus = base, minus = base;
    plus[i] += h;
    minus[i] -= h;
    const double fp =
        ta::Runtime().run(value, engine, {Tensor::from_vec_col_major(at.shape(), plus)})[0].item<double>();
    const double fm =
        ta::Runtime().run(value, engine, {Tensor::from_vec_col_major(at.shape(), minus)})[0].item<double>();
    EXPECT_NEAR(analytic[i], (fp - fm) / (2 * h), 1e-6 * (1 + std::abs(analytic[i]))) << "element " << i;
  }
}

TEST(TracedAutodiff, GradientsMatchFiniteDifferences) {
  const Tensor at = Tensor::uniform({2, 3}, 21, opts(DType::F64), 0.5, 1.5);
  check_grad_fd([](const TracedTensor& x) { return (x.exp() * x.sin()).sum(); }, at);
  check_grad_fd([](const TracedTensor& x) { return x.logsumexp({1}).prod(); }, at);
  check_grad_fd([](const TracedTensor& x) { return ta::einsum("ii->", {x.transpose().matmul(x)}); }, at);
  check_grad_fd([](const TracedTensor& x) { return x.var({0}).sum() + x.cumsum(1).max(); }, at);
  check_grad_fd([](const TracedTensor& x) { return (x.pad({{1, 0}, {0, 2}}).reverse({0}).slice(1, 1, 4) * 2.0).sum(); },
                at);
  check_grad_fd([](const TracedTensor& x) { return ta::concat({x, x.sqrt()}, 0).std({0, 1}); }, at);
}

TEST(TracedAutodiff, VjpAndJvpAgree) {
  // <w, J u> == <J^T w, u> for f(x) = tanh(x) @ x^T, a non-scalar output.
  const auto o = opts(DType::F64);
  const Tensor xv = Tensor::uniform({3, 2}, 31, o, -1, 1), uv = Tensor::uniform({3, 2}, 32, o, -1, 1),
               wv = Tensor::uniform({3, 3}, 33, o, -1, 1);
  auto x = TracedTensor::input("x", DType::F64, {3, 2});
  auto u = TracedTensor::input("u", DType::F64, {3, 2});
  auto w = TracedTensor::input("w", DType::F64, {3, 3});
  auto y = x.tanh().matmul(x.transpose());
  auto ju = ta::jvp({y}, {x}, {u})[0];
  auto jtw = ta::vjp({y}, {x}, {w})[0];
  const auto out = run({(w * ju).sum(), (jtw * u).sum()}, {x, u, w}, {xv, uv, wv});
  EXPECT_NEAR(out[0].item<double>(), out[1].item<double>(), 1e-13);
}

TEST(TracedAutodiff, UnrelatedInputsGetZerosAndGradientProgramsAreFusedAndPruned) {
  auto x = TracedTensor::input("x", DType::F32, {1000});
  auto unused = TracedTensor::input("unused", DType::F32, {2});
  auto y = ((x * 3.0).exp() * x).sum();
  const auto g = ta::grad(y, {x, unused});
  ta::Program p = ta::GraphCompiler().compile({g[0], g[1]}, {x, unused});
  EXPECT_GE(p.count("fused"), 1u);
  EXPECT_EQ(p.count("sum"), 0u);  // the forward sum is not needed for the gradient: pruned
  const Tensor xv = Tensor::uniform({1000}, 41, opts(DType::F32), -1, 1);
  auto engine = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(p, engine, {xv, Tensor::zeros({2}, opts(DType::F32))});
  EXPECT_EQ(out[1].to_vec<float>(), (std::vector<float>{0, 0}));
  // d/dx sum(exp(3x) x) = exp(3x) (3x + 1)
  const auto xs = xv.to_vec<float>();
  const auto gs = out[0].to_vec<float>();
  for (std::size_t i = 0; i < xs.size(); i += 97)
    EXPECT_NEAR(gs[i], std::exp(3 * xs[i]) * (3 * xs[i] + 1), 1e-4f * (1 + std::abs(gs[i])));
}

TEST(TracedAutodiff, BadArgumentsAreClearErrors) {
  auto x = TracedTensor::input("x", DType::F64, {3});
  auto i = TracedTensor::input("i", DType::I64, {3});
  try {
    (void)ta::grad(x.exp(), {x});
    FAIL() << "grad of a non-scalar";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "grad");
    EXPECT_NE(std::string(e.what()).find("vjp"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test_traced_autodiff.cpp"), std::string::npos) << e.what();
  }
  try {
    (void)ta::grad(x.sum(), {i});
    FAIL() << "grad with respect to an integer";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::InvalidArgument);
  }
  try {
    (void)ta::vjp({x.exp()}, {x}, {TracedTensor::input("ct", DType::F64, {4})});
    FAIL() << "cotangent of the wrong shape";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::Validation);
    EXPECT_TRUE(std::holds_alternative<ta::ShapeMismatch>(e.detail()));
  }
  try {
    (void)ta::jvp({x.exp()}, {x}, {TracedTensor::input("t", DType::F32, {3})});
    FAIL() << "tangent of the wrong dtype";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::Validation);
    EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(e.detail()));
  }
}

}  // namespace
