// The reference engine (plain serial loops behind the backend seam) against the CPU engine:
// bitwise where the CPU engine promises it (integer ops, exactly rounded ops, copies, casts,
// structural ops), within the tolerances of docs/architecture.md for transcendental SIMD, float
// reductions and BLAS products. Ops are walked over the catalog's enums, so new ops join in.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "ops/elementwise_catalog.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::Tensor;

ta::TensorOptions opts(DType d) { return ta::TensorOptions(ta::Device::cpu(), d); }

// Documented tolerances (docs/architecture.md, "The reference engine").
struct Tolerance {
  double rtol = 0, atol = 0;
};
constexpr Tolerance kExact{};

Tolerance transcendental(DType d) {
  return d == DType::F64 ? Tolerance{1e-14, 1e-14} : Tolerance{1e-6, 1e-6};
}
Tolerance reduction(DType d) {
  switch (d) {
    case DType::F16: return {1e-3, 1e-3};
    case DType::BF16: return {8e-3, 8e-3};
    case DType::F32: case DType::C64: return {1e-6, 1e-6};
    default: return {1e-12, 1e-12};
  }
}
Tolerance product(DType d) {
  switch (d) {
    case DType::F16: return {2e-3, 2e-3};
    case DType::BF16: return {1.6e-2, 1.6e-2};
    case DType::F32: case DType::C64: return {1e-5, 1e-5};
    default: return {1e-12, 1e-12};
  }
}

bool inexact(DType d) { return ta::is_floating(d) || ta::is_complex(d); }

// Element values of any dtype as complex<double> (lossless for every float dtype).
std::vector<std::complex<double>> values(const Tensor& t) {
  auto e = ta::CpuEngine::serial();
  return t.cast(DType::C128, e).to_vec<std::complex<double>>();
}

std::vector<unsigned char> bytes(const Tensor& t) {
  const Tensor d = t.duplicate();
  std::vector<unsigned char> b(static_cast<std::size_t>(d.numel()) * ta::size_of(d.dtype()));
  if (!b.empty()) std::memcpy(b.data(), d.element_ptr(), b.size());
  return b;
}

bool close(std::complex<double> a, std::complex<double> b, Tolerance tol) {
  auto part = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::abs(x - y) <= tol.atol + tol.rtol * std::abs(y);
  };
  return part(a.real(), b.real()) && part(a.imag(), b.imag());
}

// got (reference engine) against want (CPU engine): same dtype and shape; then bitwise (a NaN
// may differ in payload) or within `tol`.
void expect_match(const Tensor& got, const Tensor& want, Tolerance tol, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const bool exact = tol.rtol == 0 && tol.atol == 0;
  if (exact && bytes(got) == bytes(want)) return;
  if (exact && !inexact(got.dtype())) {
    ADD_FAILURE() << what << ": integer/bool results differ";
    return;
  }
  const auto g = values(got), w = values(want);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const bool ok = exact ? (g[i] == w[i] || close(g[i], w[i], {})) : close(g[i], w[i], tol);
    if (!ok && bad++ < 3)
      ADD_FAILURE() << what << ": element " << i << ": reference " << g[i] << ", cpu " << w[i];
  }
}

// Deterministic test data of any dtype: uniform values in [lo, hi), floored for integer dtypes.
Tensor data(DType d, ta::Shape shape, std::uint64_t seed, double lo = -3, double hi = 3) {
  auto e = ta::CpuEngine::serial();
  if (d == DType::C64 || d == DType::C128) {
    const Tensor re = Tensor::uniform(shape, seed, opts(DType::F64), lo, hi);
    const Tensor im = Tensor::uniform(shape, seed + 1000, opts(DType::F64), lo, hi);
    return re.cast(DType::C128, e).add(im.cast(DType::C128, e).mul(std::complex<double>(0, 1), e), e).cast(d, e);
  }
  const Tensor u = Tensor::uniform(shape, seed, opts(DType::F64), lo, hi);
  if (d == DType::Bool) return u.gt(0.0, e);
  if (ta::is_integer(d)) return u.floor(e).cast(d, e);
  return u.cast(d, e);
}

const std::vector<DType> kDtypes = {DType::Bool, DType::I8,  DType::I32,  DType::I64, DType::U8,
                                    DType::U64,  DType::F16, DType::BF16, DType::F32, DType::F64,
                                    DType::C64,  DType::C128};

// The input layouts every elementwise op is run over, as [6, 40] views: dense, transposed,
// strided, broadcast.
struct Layout {
  std::string name;
  std::function<Tensor(DType, std::uint64_t, double, double)> make;
};
std::vector<Layout> layouts() {
  return {
      {"dense", [](DType d, std::uint64_t s, double lo, double hi) { return data(d, {6, 40}, s, lo, hi); }},
      {"transposed",
       [](DType d, std::uint64_t s, double lo, double hi) { return data(d, {40, 6}, s, lo, hi).transpose(); }},
      {"strided",
       [](DType d, std::uint64_t s, double lo, double hi) {
         return data(d, {12, 40}, s, lo, hi).slice(0, 0, std::nullopt, 2);
       }},
      {"broadcast",
       [](DType d, std::uint64_t s, double lo, double hi) {
         return data(d, {1, 40}, s, lo, hi).broadcast_to({6, 40});
       }},
  };
}

// Unary ops whose CPU kernel is a SIMD approximation for F32/F64 (cpu/simd_op_lists.hpp).
bool approximate_unary(ta::UnaryOp op, DType d) {
  using U = ta::UnaryOp;
  if (d != DType::F32 && d != DType::F64) return false;
  for (U a : {U::Exp, U::Expm1, U::Log, U::Log1p, U::Rsqrt, U::Sin, U::Cos, U::Tanh, U::Sigmoid})
    if (op == a) return true;
  return false;
}

TEST(ReferenceEngine, TheComparisonCatchesOneUlpAndOneBit) {
  auto cpu = ta::CpuEngine::serial();
  const Tensor x = Tensor::from_vec_col_major<float>({2}, {1.0f, 2.0f});
  const Tensor y = Tensor::from_vec_col_major<float>({2}, {1.0f, std::nextafter(2.0f, 3.0f)});
  EXPECT_NONFATAL_FAILURE(expect_match(x, y, kExact, "ulp"), "element 1");
  const Tensor i = Tensor::from_vec_col_major<std::int32_t>({2}, {1, 2});
  EXPECT_NONFATAL_FAILURE(expect_match(i, i.add(1, cpu), kExact, "int"), "integer/bool results differ");
  expect_match(x, y, transcendental(DType::F32), "within tolerance");
}

TEST(ReferenceEngine, HasTheDesignSpellings) {
  ta::ReferenceEngine r;
  ta::ReferenceEngine on1(ta::Device::cpu(1));
  EXPECT_EQ(r.device(), ta::Device::cpu());
  EXPECT_EQ(on1.device(), ta::Device::cpu(1));
  EXPECT_EQ(r.threads(), 1);
  ta::Engine& base = r;
  auto cpu = ta::CpuEngine::serial();
  EXPECT_NE(&base.backend(), &cpu.backend());
  const Tensor x = Tensor::from_vec_col_major<double>({3}, {1, 2, 3});
  EXPECT_EQ(x.add(x, r).to_vec<double>(), (std::vector<double>{2, 4, 6}));
}

TEST(ReferenceEngine, EveryBinaryOpOverDtypesAndLayouts) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::serial();
  for (int o = 0; o < ta::kNumBinaryOps; ++o) {
    const auto op = static_cast<ta::BinaryOp>(o);
    const auto& inf = ta::info(op);
    for (DType d : kDtypes) {
      if (!ta::accepts(inf, d)) continue;
      for (const auto& l : layouts()) {
        // Positive divisors and small exponents keep integer ops defined.
        const Tensor a = l.make(d, 1, -3, 3);
        const Tensor b = ta::is_integer(d) ? l.make(d, 2, 1, 4) : l.make(d, 2, -3, 3);
        const Tensor out_ref = Tensor::empty({6, 40}, ta::result_dtype(inf, d), ta::Device::cpu());
        const Tensor out_cpu = Tensor::empty({6, 40}, ta::result_dtype(inf, d), ta::Device::cpu());
        ref.backend().binary(op, out_ref, a, b, ta::backend::Output::Fresh, ref);
        cpu.backend().binary(op, out_cpu, a, b, ta::backend::Output::Fresh, cpu);
        expect_match(out_ref, out_cpu, kExact, std::string(inf.name) + " " + std::string(ta::name(d)) + " " + l.name);
      }
    }
  }
}

TEST(ReferenceEngine, EveryUnaryOpOverDtypesAndLayouts) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::serial();
  for (int o = 0; o < ta::kNumUnaryOps; ++o) {
    const auto op = static_cast<ta::UnaryOp>(o);
    const auto& inf = ta::info(op);
    for (DType d : kDtypes) {
      if (!ta::accepts(inf, d)) continue;
      for (const auto& l : layouts()) {
        const Tensor x = l.make(d, 3, -3, 3);
        const Tensor out_ref = Tensor::empty({6, 40}, ta::result_dtype(inf, d), ta::Device::cpu());
        const Tensor out_cpu = Tensor::empty({6, 40}, ta::result_dtype(inf, d), ta::Device::cpu());
        ref.backend().unary(op, out_ref, x, ta::backend::Output::Fresh, ref);
        cpu.backend().unary(op, out_cpu, x, ta::backend::Output::Fresh, cpu);
        expect_match(out_ref, out_cpu, approximate_unary(op, d) ? transcendental(d) : kExact,
                     std::string(inf.name) + " " + std::string(ta::name(d)) + " " + l.name);
      }
    }
  }
}

TEST(ReferenceEngine, DirectOpsLargeTransposedAndScalarOperands) {
  // Large enough for the CPU engine's panelled transpose path and its thread pool.
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::parallel(3);
  const Tensor a = data(DType::F32, {300, 260}, 4).transpose();
  const Tensor b = data(DType::F32, {300, 260}, 5).transpose();
  expect_match(a.add(b, ref), a.add(b, cpu), kExact, "add transposed");
  expect_match(a.mul(2.5, ref), a.mul(2.5, cpu), kExact, "mul scalar");
  expect_match(a.exp(ref), a.exp(cpu), transcendental(DType::F32), "exp transposed");
  expect_match(a.clamp(-1.0, 1.0, ref), a.clamp(-1.0, 1.0, cpu), kExact, "clamp");
  const Tensor p = a.gt(0.0, cpu);
  expect_match(ta::select(p, a, b, ref), ta::select(p, a, b, cpu), kExact, "select");
  const Tensor i = data(DType::I32, {4, 5}, 6);
  const Tensor z = Tensor::zeros({4, 5}, opts(DType::I32));
  EXPECT_THROW((void)i.floor_div(z, ref), ta::Error);  // the op layer's check runs on any backend
}

TEST(ReferenceEngine, ConvertAndCastBetweenDtypes) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::serial();
  for (DType from : kDtypes) {
    const Tensor x = data(from, {5, 7}, 7, -200, 200).transpose();
    for (DType to : kDtypes) {
      expect_match(x.cast(to, ref), x.cast(to, cpu), kExact,
                   "cast " + std::string(ta::name(from)) + " -> " + std::string(ta::name(to)));
      if (ta::can_convert(from, to))
        expect_match(x.convert(to, ref), x.convert(to, cpu), kExact,
                     "convert " + std::string(ta::name(from)) + " -> " + std::string(ta::name(to)));
    }
  }
}

TEST(ReferenceEngine, EveryReductionAndScan) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::parallel(2);
  for (DType d : kDtypes) {
    const Tensor x = data(d, {7, 9, 300}, 8, -1, 1.5).permute({2, 0, 1});
    const auto name = std::string(ta::name(d));
    auto both = [&](const std::string& what, auto f) {
      try {
        const Tensor want = f(cpu);
        // Integer means are taken in a float dtype: that result gets the float tolerance.
        const Tolerance tol = inexact(want.dtype()) ? reduction(want.dtype()) : kExact;
        expect_match(f(ref), want, tol, what + " " + name);
      } catch (const ta::Error&) {  // a dtype the op refuses: refused on both engines
        EXPECT_THROW((void)f(ref), ta::Error) << what << " " << name;
      }
    };
    both("sum", [&](ta::Engine& e) { return x.sum({0, 2}, e); });
    both("prod", [&](ta::Engine& e) { return x.slice(0, 0, 5).prod({0}, e); });
    both("mean", [&](ta::Engine& e) { return x.mean({1}, e); });
    both("max", [&](ta::Engine& e) { return x.max({0}, e); });
    both("min", [&](ta::Engine& e) { return x.min({2, 1}, e); });
    both("all", [&](ta::Engine& e) { return x.all({0}, e); });
    both("any", [&](ta::Engine& e) { return x.any({1}, e); });
    both("argmax", [&](ta::Engine& e) { return x.argmax(0, e); });
    both("argmin", [&](ta::Engine& e) { return x.argmin(1, e); });
    both("cumsum", [&](ta::Engine& e) { return x.slice(0, 0, 20).cumsum(0, e); });
    both("cumprod", [&](ta::Engine& e) { return x.slice(0, 0, 6).cumprod(2, e); });
  }
}

TEST(ReferenceEngine, EveryStructuralOp) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::serial();
  for (DType d : {DType::Bool, DType::I16, DType::F16, DType::F32, DType::C128}) {
    const Tensor x = data(d, {4, 5, 3}, 9).permute({1, 0, 2});  // [5, 4, 3], strided
    const auto name = std::string(ta::name(d));
    const Tensor idx = Tensor::from_vec_col_major<std::int64_t>({2, 4, 3}, std::vector<std::int64_t>(24, 0));
    std::vector<std::int32_t> picks;
    for (int i = 0; i < 24; ++i) picks.push_back((i * 7) % 10 - 5);  // negative indices too
    const Tensor idx32 = Tensor::from_vec_col_major<std::int32_t>({2, 4, 3}, picks);
    auto both = [&](const std::string& what, auto f) { expect_match(f(ref), f(cpu), kExact, what + " " + name); };
    both("concat", [&](ta::Engine& e) { return ta::concat({x, x.slice(0, 1, 3)}, 0, e); });
    both("stack", [&](ta::Engine& e) { return ta::stack({x, x}, 1, e); });
    both("take_along_axis", [&](ta::Engine& e) { return x.take_along_axis(idx32, 0, e); });
    both("index_select", [&](ta::Engine& e) {
      return x.index_select(1, Tensor::from_vec_col_major<std::int64_t>({3}, {3, 1, 0}), e);
    });
    both("tril", [&](ta::Engine& e) { return x.tril(0, e); });
    both("triu", [&](ta::Engine& e) { return x.triu(-1, e); });
    both("embed_diag", [&](ta::Engine& e) { return x.embed_diag(1, e); });
    if (d != DType::Bool) {  // Bool refuses the 0 pad value and additions
      both("pad", [&](ta::Engine& e) { return x.pad({{1, 2}, {0, 1}, {2, 0}}, e); });
      const Tensor src = data(d, {2, 4, 3}, 10);
      both("scatter_add", [&](ta::Engine& e) { return x.scatter_add(0, idx32, src, e); });
      both("scatter_add dup", [&](ta::Engine& e) { return x.scatter_add(0, idx, src, e); });
    }
    // Out-of-range indices are found (and named) the same way on both engines.
    std::vector<std::int64_t> bad_picks(24, 0);
    bad_picks[5] = 9;
    bad_picks[17] = -7;
    const Tensor bad = Tensor::from_vec_col_major<std::int64_t>({2, 4, 3}, bad_picks);
    std::string m_ref, m_cpu;
    try { (void)x.take_along_axis(bad, 0, ref); } catch (const ta::Error& e) { m_ref = e.what(); }
    try { (void)x.take_along_axis(bad, 0, cpu); } catch (const ta::Error& e) { m_cpu = e.what(); }
    EXPECT_FALSE(m_ref.empty());
    EXPECT_EQ(m_ref.substr(0, m_ref.find(" (at")), m_cpu.substr(0, m_cpu.find(" (at")));
  }
}

TEST(ReferenceEngine, ContractionsAndEinsum) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::parallel(2);
  for (DType d : {DType::I8, DType::I32, DType::U64, DType::F16, DType::BF16, DType::F32, DType::F64, DType::C64,
                  DType::C128}) {
    const Tolerance tol = inexact(d) ? product(d) : kExact;
    const auto name = std::string(ta::name(d));
    const Tensor a = data(d, {33, 20}, 11, -2, 2), b = data(d, {20, 17}, 12, -2, 2);
    expect_match(a.matmul(b, ref), a.matmul(b, cpu), tol, "matmul " + name);
    const Tensor at = data(d, {20, 33}, 13, -2, 2).transpose();  // strided: transpose flags on the CPU
    expect_match(at.matmul(b, ref), at.matmul(b, cpu), tol, "matmul transposed " + name);
    const Tensor x = data(d, {3, 5, 4, 2}, 14, -2, 2), y = data(d, {4, 3, 6}, 15, -2, 2);
    const ta::DotGeneralConfig c{{0}, {1}, {2}, {0}};
    expect_match(x.dot_general(y, c, ref), x.dot_general(y, c, cpu), tol, "dot_general " + name);
    expect_match(ta::einsum("bij,jbk->bik", {x.slice(3, 0, 1).squeeze({3}), y}, ref),
                 ta::einsum("bij,jbk->bik", {x.slice(3, 0, 1).squeeze({3}), y}, cpu), tol, "einsum " + name);
  }
}

TEST(ReferenceEngine, RunsEagerSessionsWithGradients) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::serial();
  auto run = [&](ta::Engine& e) {
    ta::EagerRuntime rt;
    auto x = rt.variable_from(data(DType::F64, {4, 3}, 16));
    auto w = rt.variable_from(data(DType::F32, {3, 2}, 17));
    Tensor loss;
    rt.with_eager_session(e, [&](ta::EagerSession& s) {
      auto l = s.sum(s.tanh(s.matmul(x, w)));
      l.backward();
      loss = l.value();
    });
    return std::vector<Tensor>{loss, x.grad(), w.grad()};
  };
  const auto r = run(ref), c = run(cpu);
  for (std::size_t i = 0; i < r.size(); ++i) expect_match(r[i], c[i], product(DType::F64), "eager " + std::to_string(i));
}

TEST(ReferenceEngine, RunsTracedProgramsFusedAndUnfused) {
  ta::ReferenceEngine ref;
  auto cpu = ta::CpuEngine::parallel(2);
  for (const bool fuse : {true, false}) {
    ta::CompileOptions options;
    options.fuse_elementwise = fuse;
    for (DType d : {DType::F32, DType::F64, DType::F16}) {
      auto x = ta::TracedTensor::input("x", d, {50, 41});
      auto y = ta::TracedTensor::input("y", d, {50, 41});
      auto f = ((x * 0.75 + y).exp() - x).tanh();              // an F32/F64 vector program
      auto g = ta::where(x.gt(y), x * y, (x - y).abs()) + 1.0;  // select: the per-step path
      auto h = (x.transpose() * 2.0).sum({0});                // strided input, then a reduction
      const ta::Program program = ta::GraphCompiler(options).compile({f, g, h});
      if (fuse) {
        EXPECT_GE(program.count("fused"), 2u);
      }
      const Tensor xv = data(d, {50, 41}, 18, -1, 1), yv = data(d, {50, 41}, 19, -1, 1);
      const auto r = ta::Runtime().run(program, ref, {xv, yv});
      const auto c = ta::Runtime().run(program, cpu, {xv, yv});
      const std::string what = std::string(fuse ? "fused " : "unfused ") + std::string(ta::name(d));
      expect_match(r[0], c[0], d == DType::F16 ? kExact : transcendental(d), what + " f");
      expect_match(r[1], c[1], kExact, what + " g");
      expect_match(r[2], c[2], reduction(d), what + " h");
    }
  }
}

}  // namespace
