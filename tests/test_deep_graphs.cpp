// Deep graphs: a chain of 100000 ops through eager (forward, backward, destruction) and traced
// (build, grad, compile with every pass, run, destruction). Nothing may recurse once per node:
// at this depth a recursive destructor or traversal overflows the stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::Tensor;
using ta::TracedTensor;

constexpr int kDepth = 100000;
const ta::TensorOptions kF64{ta::Device::cpu(), DType::F64};

TEST(DeepGraphs, EagerChainRunsBackwardAndIsDestroyed) {
  auto engine = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  const auto x = rt.variable_from(Tensor::from_floats({1.0, 2.0}, kF64));
  const auto y = rt.constant_from(Tensor::from_floats({0.5, 0.25}, kF64));
  rt.with_eager_session(engine, [&](ta::EagerSession& s) {
    {
      ta::EagerTensor h = x;
      for (int i = 0; i < kDepth; ++i) h = i % 2 == 0 ? s.add(h, y) : s.sub(h, y);
      const auto loss = s.sum(h);
      EXPECT_EQ(loss.value().item<double>(), 3.0);  // the adds and subs cancel
      loss.backward();
    }  // the 100000-node tape dies here
    EXPECT_EQ(x.grad().to_vec<double>(), (std::vector<double>{1.0, 1.0}));
  });
}

TEST(DeepGraphs, TracedChainCompilesRunsDifferentiatesAndIsDestroyed) {
  auto engine = ta::CpuEngine::serial();
  Tensor result, gradient;
  {
    const TracedTensor x = TracedTensor::input("x", DType::F64, {2});
    TracedTensor h = x;
    for (int i = 0; i < kDepth; ++i) h = i % 2 == 0 ? h.mul(1.5) : h.mul(2.0 / 3.0);
    const TracedTensor loss = h.sum();
    const auto g = ta::grad(loss, {x});
    const ta::Program p = ta::GraphCompiler().compile({h, g[0]}, {x});  // every pass on
    const auto out = ta::Runtime().run(p, engine, {Tensor::from_floats({1.0, 2.0}, kF64)});
    result = out[0];
    gradient = out[1];
  }  // graph, gradient graph and program die here
  const auto r = result.to_vec<double>();
  EXPECT_NEAR(r[0], 1.0, 1e-9);
  EXPECT_NEAR(r[1], 2.0, 1e-9);
  const auto gr = gradient.to_vec<double>();
  EXPECT_NEAR(gr[0], 1.0, 1e-9);
  EXPECT_NEAR(gr[1], 1.0, 1e-9);
}

}  // namespace
