// GraphCompiler / Program / Runtime: the seed example, reuse, concurrent runs, input checks,
// conversions, and buffer lifetimes (peak memory of a long elementwise chain).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>

#include <hwy/targets.h>

#include "cpu/simd_program.hpp"
#include "simd_targets.hpp"
#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::Tensor;
using ta::TracedTensor;

ta::TensorOptions opts(DType d) { return ta::TensorOptions(ta::Device::cpu(), d); }

// Bitwise the same values (a NaN where `want` has one), element by element; `what` names the case.
void expect_same_values(const Tensor& got, const Tensor& want, const std::string& what) {
  auto e = ta::CpuEngine::serial();
  const auto a = got.cast(DType::F64, e).to_vec<double>(), b = want.cast(DType::F64, e).to_vec<double>();
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(b[i])) EXPECT_TRUE(std::isnan(a[i])) << what << " i=" << i;
    else EXPECT_EQ(a[i], b[i]) << what << " i=" << i;
  }
}

using tensora_test::TargetMock;

TEST(TracedRuntime, SeedExampleConvertsTheF32ConstantAndRunsInF64) {
  auto a = TracedTensor::input("a", DType::F64, {2, 2});
  auto b = TracedTensor::from_vec_col_major({2, 2}, std::vector<float>{2, 3, 2, 3});
  const unsigned line = __LINE__ + 1;
  auto y = a.matmul(b);
  EXPECT_EQ(y.dtype(), DType::F64);
  EXPECT_EQ(y.op(), "dot_general");
  ta::GraphCompiler compiler;
  ta::Program program = compiler.compile({y});
  ASSERT_EQ(program.conversions().size(), 1u);
  const ta::Conversion c = program.conversions()[0];
  EXPECT_EQ(c.op, "convert");
  EXPECT_EQ(c.from, DType::F32);
  EXPECT_EQ(c.to, DType::F64);
  EXPECT_EQ(c.where.line(), line);  // the a.matmul(b) line above
  const std::string ir = program.to_string();
  EXPECT_NE(ir.find("convert(%1) {to=F64} : F64[2, 2]  // test_traced_runtime.cpp:" + std::to_string(line)),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("dot_general(%0, %2)"), std::string::npos) << ir;
  auto engine = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(program, engine, {Tensor::eye(2, opts(DType::F64))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::F64);
  EXPECT_EQ(out[0].shape(), (ta::Shape{2, 2}));
  EXPECT_EQ(out[0].to_vec<double>(), (std::vector<double>{2, 3, 2, 3}));
}

TEST(TracedRuntime, ProgramsAreReusableAndRunConcurrently) {
  auto x = TracedTensor::input("x", DType::F32, {3000});
  auto s = TracedTensor::input("s", DType::F32, {});
  auto y = ((x * s).exp() + 1.0).log().sum();
  const ta::Program program = ta::GraphCompiler().compile({y});
  const Tensor xv = Tensor::uniform({3000}, 7, opts(DType::F32), -1, 1);
  auto expected = [&](float scale) {
    auto engine = ta::CpuEngine::serial();
    const Tensor sv = Tensor::from_vec_col_major({}, std::vector<float>{scale});
    return xv.mul(sv, engine).exp(engine).add(1.0, engine).log(engine).sum(engine).item<float>();
  };
  std::vector<float> got(8), want(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    want[static_cast<std::size_t>(t)] = expected(0.25f * static_cast<float>(t));
    threads.emplace_back([&, t] {
      auto engine = ta::CpuEngine::serial();
      const Tensor sv = Tensor::from_vec_col_major({}, std::vector<float>{0.25f * static_cast<float>(t)});
      for (int rep = 0; rep < 20; ++rep)
        got[static_cast<std::size_t>(t)] = ta::Runtime().run(program, engine, {xv, sv})[0].item<float>();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(got, want);  // fused, reused, concurrent: bitwise the eager direct result
}

TEST(TracedRuntime, InputsAreCheckedAgainstThePlaceholders) {
  auto x = TracedTensor::input("weights", DType::F64, {2, 3});
  const ta::Program program = ta::GraphCompiler().compile({x.sum()});
  ASSERT_EQ(program.inputs().size(), 1u);
  EXPECT_EQ(program.inputs()[0].name, "weights");
  auto engine = ta::CpuEngine::serial();
  auto expect_error = [&](std::vector<Tensor> in, ta::ErrorKind kind, const std::string& text) {
    try {
      (void)ta::Runtime().run(program, engine, std::move(in));
      FAIL() << "no error for " << text;
    } catch (const ta::Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_EQ(e.op(), "run");
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("test_traced_runtime.cpp"), std::string::npos) << e.what();
    }
  };
  expect_error({}, ta::ErrorKind::InvalidArgument, "takes 1 inputs ('weights'), got 0: missing 'weights'");
  expect_error({Tensor::zeros({2, 3}, opts(DType::F32))}, ta::ErrorKind::Validation,
               "input 0 ('weights'): dtype mismatch: expected F64, actual F32");
  expect_error({Tensor::zeros({3, 2}, opts(DType::F64))}, ta::ErrorKind::Validation,
               "input 0 ('weights'): shape mismatch: expected [2, 3], actual [3, 2]");
  expect_error({Tensor::zeros({2, 3}, ta::TensorOptions(ta::Device::cpu(6), DType::F64))},
               ta::ErrorKind::DeviceMismatch, "input 0 ('weights'): device mismatch: expected cpu:0, actual cpu:6");
  auto other = ta::CpuEngine::serial(ta::Device::cpu(7));
  try {
    (void)ta::Runtime().run(program, other, {Tensor::zeros({2, 3}, opts(DType::F64))});
    FAIL() << "engine on another device";
  } catch (const ta::Error& e) {
    EXPECT_EQ(e.kind(), ta::ErrorKind::DeviceMismatch);
  }
}

TEST(TracedRuntime, CompileChecksItsArguments) {
  auto a = TracedTensor::input("a", DType::F32, {2});
  auto b = TracedTensor::input("a", DType::F32, {2});
  auto expect_invalid = [](auto&& fn, const std::string& text) {
    try {
      fn();
      FAIL() << "no error for " << text;
    } catch (const ta::Error& e) {
      EXPECT_EQ(e.kind(), ta::ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { (void)ta::GraphCompiler().compile({}); }, "at least one output");
  expect_invalid([&] { (void)ta::GraphCompiler().compile({a + b}); }, "two placeholders are named 'a'");
  expect_invalid([&] { (void)ta::GraphCompiler().compile({a.exp()}, {b}); }, "which the inputs do not list");
  expect_invalid([&] { (void)ta::GraphCompiler().compile({TracedTensor()}); }, "empty");
  // An explicit input order is kept, including placeholders the outputs do not read.
  auto c = TracedTensor::input("c", DType::F32, {2});
  const ta::Program p = ta::GraphCompiler().compile({a.exp()}, {c, a});
  ASSERT_EQ(p.inputs().size(), 2u);
  EXPECT_EQ(p.inputs()[0].name, "c");
  EXPECT_EQ(p.inputs()[1].name, "a");
}

TEST(TracedRuntime, FusedResultsDoNotDependOnThreadsAndStridedTranscendentalsStayClose) {
  auto x = TracedTensor::input("x", DType::F32, {300, 257});
  // Contiguous input: the fused chain is bitwise the direct ops, on 1 or 3 threads.
  auto y = ((x * 0.75 + 0.5).exp() - x).tanh();
  // A stepped slice is a strided view: exp runs densely in the fused kernel and through the
  // scalar loop directly; docs/traced.md allows the last bits to differ there.
  auto z = x.slice(1, 0, std::nullopt, 2).exp() * 0.5 + 1.0;
  const ta::Program program = ta::GraphCompiler().compile({y, z});
  EXPECT_EQ(program.count("fused"), 2u);
  const Tensor xv = Tensor::uniform({300, 257}, 9, opts(DType::F32), -2, 2);
  auto serial = ta::CpuEngine::serial();
  auto three = ta::CpuEngine::parallel(3);
  const auto a = ta::Runtime().run(program, serial, {xv});
  const auto b = ta::Runtime().run(program, three, {xv});
  EXPECT_EQ(a[0].to_vec<float>(), b[0].to_vec<float>());
  EXPECT_EQ(a[1].to_vec<float>(), b[1].to_vec<float>());
  const Tensor direct = xv.mul(0.75, serial).add(0.5, serial).exp(serial).sub(xv, serial).tanh(serial);
  EXPECT_EQ(a[0].to_vec<float>(), direct.to_vec<float>());
  const auto strided =
      xv.slice(1, 0, std::nullopt, 2).exp(serial).mul(0.5, serial).add(1.0, serial).to_vec<float>();
  const auto fused = a[1].to_vec<float>();
  ASSERT_EQ(fused.size(), strided.size());
  for (std::size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], strided[i], 4e-7f * strided[i]);
}

// The fused kernel's vector-program path (every step an F32 or F64 op with a vector form) runs
// chunks of 32 to 256 elements (by vector width) through all steps; each length below ends
// differently against them, and the unary ops include lanes that take the scalar special-value
// path.
TEST(TracedRuntime, VectorProgramsMatchTheDirectOpsBitForBit) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const std::int64_t n : {1, 7, 255, 256, 257, 5000}) {
      auto x = TracedTensor::input("x", dtype, {n});
      auto y = TracedTensor::input("y", dtype, {n});
      auto s = TracedTensor::input("s", dtype, {});
      auto out = ((x * s + y).exp() / (y * y + 1.0)).tanh().maximum(x.sqrt()).minimum(3.0) - (-x).sigmoid();
      const ta::Program program = ta::GraphCompiler().compile({out});
      ASSERT_EQ(program.count("fused"), 1u);
      auto e = ta::CpuEngine::serial();
      Tensor xv = Tensor::uniform({n}, 21, opts(dtype), -3, 3), yv = Tensor::uniform({n}, 22, opts(dtype), -3, 3);
      if (n > 3) {  // NaN, infinity and an exp overflow take the special-value lanes
        std::vector<double> v = xv.cast(DType::F64, e).to_vec<double>();
        v[0] = std::nan("");
        v[1] = INFINITY;
        v[2] = 100.0;
        xv = Tensor::from_vec_col_major({n}, v).cast(dtype, e);
      }
      const Tensor sv = Tensor::full({}, 1.25, opts(dtype));
      const Tensor got = ta::Runtime().run(program, e, {xv, yv, sv})[0];
      const Tensor want = xv.mul(sv, e)
                              .add(yv, e)
                              .exp(e)
                              .div(yv.mul(yv, e).add(1.0, e), e)
                              .tanh(e)
                              .maximum(xv.sqrt(e), e)
                              .minimum(3.0, e)
                              .sub(xv.neg(e).sigmoid(e), e);
      expect_same_values(got, want, std::string(name(dtype)) + " n=" + std::to_string(n));
    }
  }
}

// compile_program: which operand is the accumulator (the previous step's result) and which
// results are stored because a later step reads them from memory.
TEST(TracedRuntime, VectorProgramsKeepOnlyWhatLaterStepsReadInMemory) {
  namespace simd = ta::simd;
  using enum simd::StepCode;
  using ta::BinaryOp;
  using ta::UnaryOp;
  // Inputs r0, r1; temporaries r2..r4; result r5.
  const std::vector<simd::VectorOp> ops = {
      {true, {}, UnaryOp::Exp, 2, 0, 0},     // r2 = exp(r0): read from memory; r2 is read again at step 3
      {false, BinaryOp::Mul, {}, 3, 2, 2},   // r3 = r2 * r2: both operands the accumulator; read at step 4
      {false, BinaryOp::Div, {}, 4, 1, 3},   // r4 = r1 / r3: the accumulator on the right
      {false, BinaryOp::Add, {}, 4, 4, 2},   // r4 = r4 + r2: r2 from memory; only the next step reads r4
      {false, BinaryOp::Sub, {}, 5, 3, 4}};  // r5 = r3 - r4: the result is stored
  const auto program = simd::compile_program(ops, 2, 5);
  ASSERT_TRUE(program.has_value());
  ASSERT_EQ(program->steps.size(), 5u);
  const std::vector<simd::StepCode> codes = {ExpMem, MulAccAcc, DivMemAcc, AddAccMem, SubMemAcc};
  const std::vector<int> saves = {2, 3, -1, -1, 5};
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(program->steps[k].code, codes[k]) << "step " << k;
    EXPECT_EQ(program->steps[k].save, saves[k]) << "step " << k;
  }
  // No vector program: an op without a vector form, a step that writes an input, a register
  // beyond the result, a last step that is not the result.
  auto with = [&](std::size_t k, simd::VectorOp op) {
    auto changed = ops;
    changed[k] = op;
    return simd::compile_program(changed, 2, 5).has_value();
  };
  EXPECT_FALSE(with(2, {false, BinaryOp::FloorDiv, {}, 4, 1, 3}));
  EXPECT_FALSE(with(2, {false, BinaryOp::Div, {}, 1, 1, 3}));
  EXPECT_FALSE(with(2, {false, BinaryOp::Div, {}, 4, 1, 6}));
  EXPECT_FALSE(with(4, {false, BinaryOp::Sub, {}, 4, 3, 4}));
}

// Every operand form, on every SIMD target the library is built for that this CPU runs (the
// chunk is 8 or 16 vectors by register count): bitwise the direct ops on the same target.
TEST(TracedRuntime, VectorProgramOperandFormsMatchTheDirectOpsOnEveryTarget) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const std::int64_t n : {1, 31, 33, 64, 65, 127, 129, 255, 256, 257, 1000}) {
      auto x = TracedTensor::input("x", dtype, {n});
      auto y = TracedTensor::input("y", dtype, {n});
      const auto h = x.exp();       // a long op reading memory
      const auto g = h * h;         // both operands the accumulator
      const auto k = 2.0 - g;       // a scalar on the left of the accumulator
      const auto m = 3.0 / (y / k) + h;  // the accumulator on the right of an input and of a scalar;
                                         // h read back from memory
      // a scalar on the right of the accumulator; a long op on the accumulator
      const auto out = (m.abs().sqrt() * k * 0.5).copysign(x).maximum(g.tanh());
      const ta::Program program = ta::GraphCompiler().compile({out});
      ASSERT_EQ(program.count("fused"), 1u);
      const Tensor xv = Tensor::uniform({n}, 5, opts(dtype), -2, 2), yv = Tensor::uniform({n}, 6, opts(dtype), -2, 2);
      for (const std::int64_t target : tensora_test::x86_targets()) {
        Tensor got, want;
        {
          const TargetMock mock(target);
          auto e = ta::CpuEngine::serial();
          got = ta::Runtime().run(program, e, {xv, yv})[0];
          const Tensor hv = xv.exp(e), gv = hv.mul(hv, e), kv = Tensor::full({}, 2.0, opts(dtype)).sub(gv, e);
          const Tensor mv = Tensor::full({}, 3.0, opts(dtype)).div(yv.div(kv, e), e).add(hv, e);
          want = mv.abs(e).sqrt(e).mul(kv, e).mul(0.5, e).copysign(xv, e).maximum(gv.tanh(e), e);
        }
        expect_same_values(got, want, std::string(hwy::TargetName(target)) + " " + std::string(name(dtype)) + " n=" + std::to_string(n));
      }
    }
  }
}

// Bytes of one 64 MiB buffer as the caching allocator counts it (its size class).
std::size_t held_bytes(const Tensor& t) {
  return ta::memory_stats(t.device()).bytes_in_use;
}

TEST(TracedRuntime, ALongElementwiseChainHoldsAtMostThreeBuffers) {
  constexpr std::int64_t n = std::int64_t{1} << 24;  // 16M F32 = 64 MiB
  auto x = TracedTensor::input("x", DType::F32, {n});
  TracedTensor y = x;
  for (int i = 0; i < 20; ++i) y = i % 2 == 0 ? y * 1.0001 : y + 0.5;
  const ta::Device dev = ta::Device::cpu();
  auto engine = ta::CpuEngine::serial();
  for (const bool fuse : {true, false}) {
    ta::CompileOptions o;
    o.fuse_elementwise = fuse;
    const ta::Program program = ta::GraphCompiler(o).compile({y});
    EXPECT_EQ(program.count("fused"), fuse ? 1u : 0u);
    ta::release_cached_memory(dev);
    const std::size_t before = ta::memory_stats(dev).bytes_in_use;
    ta::reset_peak_memory(dev);
    std::size_t one_buffer = 0;
    {
      const Tensor xv = Tensor::zeros({n}, opts(DType::F32));
      one_buffer = held_bytes(xv) - before;
      const auto out = ta::Runtime().run(program, engine, {xv});
      EXPECT_EQ(out[0].shape(), (ta::Shape{n}));
    }
    const std::size_t peak = ta::memory_stats(dev).peak_bytes_in_use - before;
    // input + result when fused; input + two live intermediates (one of them the result) unfused.
    EXPECT_LE(peak, (fuse ? 2 : 3) * one_buffer + (std::size_t{1} << 20)) << "fuse=" << fuse;
  }
}

}  // namespace
