// CpuEngine: construction, parallel_for, and bitwise equality of serial and parallel results
// for every elementwise op family and for cast, on sizes that are split into several chunks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using ::testing::HasSubstr;
using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::Engine;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Shape;
using tensora::Tensor;
using tensora_test::expect_error;

const Device kCpu = Device::cpu();

// 3 * 65536 + 17: four chunks of the kernels' fixed grain, the last one short.
constexpr std::int64_t kN = 3 * 65536 + 17;

using tensora_test::bytes_of;

Tensor mixed(DType d, std::uint64_t seed, std::int64_t n = kN) { return tensora_test::mixed_values(d, seed, n); }

using BinFn = Tensor (Tensor::*)(const Tensor&, Engine&, tensora::SourceLocation) const;
using UnFn = Tensor (Tensor::*)(Engine&, tensora::SourceLocation) const;

struct BinCase {
  const char* name;
  BinFn fn;
  std::vector<DType> dtypes;
};
struct UnCase {
  const char* name;
  UnFn fn;
  std::vector<DType> dtypes;
};

#define TA_B(m, ...) BinCase{#m, static_cast<BinFn>(&Tensor::m), {__VA_ARGS__}}
#define TA_U(m, ...) UnCase{#m, &Tensor::m, {__VA_ARGS__}}
const std::vector<BinCase>& bin_cases() {
  static const std::vector<BinCase> c = {
      TA_B(add, DType::F32, DType::I32, DType::F16), TA_B(sub, DType::F64, DType::U8),
      TA_B(mul, DType::F32, DType::C64, DType::I64), TA_B(div, DType::F32, DType::F64, DType::BF16),
      TA_B(floor_div, DType::F32, DType::I16), TA_B(rem, DType::F64, DType::I32),
      TA_B(pow, DType::F32, DType::I8), TA_B(maximum, DType::F32, DType::U16),
      TA_B(minimum, DType::F64, DType::I32), TA_B(atan2, DType::F32),
      TA_B(eq, DType::F32), TA_B(ne, DType::C128), TA_B(lt, DType::F64), TA_B(le, DType::I32),
      TA_B(gt, DType::F16), TA_B(ge, DType::U32), TA_B(logical_and, DType::F32),
      TA_B(logical_or, DType::I8), TA_B(logical_xor, DType::F64),
  };
  return c;
}
const std::vector<UnCase>& un_cases() {
  static const std::vector<UnCase> c = {
      TA_U(neg, DType::F32, DType::I32), TA_U(abs, DType::F64, DType::C64), TA_U(sign, DType::F32),
      TA_U(exp, DType::F32, DType::F64), TA_U(expm1, DType::F32), TA_U(log, DType::F32, DType::F64),
      TA_U(log1p, DType::F64), TA_U(sqrt, DType::F32, DType::C128), TA_U(rsqrt, DType::F32),
      TA_U(sin, DType::F32, DType::F64), TA_U(cos, DType::F32), TA_U(tan, DType::F32),
      TA_U(tanh, DType::F32), TA_U(sigmoid, DType::F32, DType::F16), TA_U(erf, DType::F32),
      TA_U(floor, DType::F32), TA_U(ceil, DType::F64), TA_U(round, DType::F32, DType::BF16),
      TA_U(conj, DType::C64), TA_U(real, DType::C128), TA_U(imag, DType::C64),
      TA_U(logical_not, DType::F32), TA_U(isnan, DType::F32), TA_U(isinf, DType::F64),
      TA_U(isfinite, DType::F16),
  };
  return c;
}
#undef TA_B
#undef TA_U

std::vector<CpuEngine> parallel_engines() {
  std::vector<CpuEngine> out;
  for (int n : {1, 2, 3, 8}) out.push_back(CpuEngine::parallel(n));
  return out;
}

// Layouts: contiguous (kN elements); transposed (2-D) and negative step over kStrided elements,
// fewer so that the slow strided scalar loops of a Debug build stay quick, but still 3 chunks.
constexpr std::int64_t kStrided = 2 * 65536 + 25;  // = 89 * 1473
std::vector<std::pair<const char*, Tensor>> layouts(const Tensor& flat) {
  std::vector<std::pair<const char*, Tensor>> out;
  out.emplace_back("contiguous", flat);
  out.emplace_back("transposed", flat.slice(0, 0, kStrided).reshape({89, 1473}).transpose());
  out.emplace_back("negstep", flat.slice(0, kStrided - 1, std::nullopt, -1));
  return out;
}

// ---- construction --------------------------------------------------------------------------------

TEST(Engine, SerialAndParallelReportDeviceAndThreads) {
  const CpuEngine s = CpuEngine::serial();
  EXPECT_EQ(s.device(), kCpu);
  EXPECT_EQ(s.threads(), 1);
  const CpuEngine s1 = CpuEngine::serial(Device::cpu(1));
  EXPECT_EQ(s1.device(), Device::cpu(1));
  for (int n : {1, 2, 3, 8}) {
    const CpuEngine p = CpuEngine::parallel(n);
    EXPECT_EQ(p.device(), kCpu);
    EXPECT_EQ(p.threads(), n);
  }
  const CpuEngine p7 = CpuEngine::parallel(4, Device::cpu(7));
  EXPECT_EQ(p7.device(), Device::cpu(7));
  EXPECT_EQ(p7.threads(), 4);
  // Usable through the interface.
  const Engine& base = p7;
  EXPECT_EQ(base.threads(), 4);
}

TEST(Engine, ParallelNeedsAtLeastOneThread) {
  for (int n : {0, -1, -100}) {
    const Error e = expect_error([&] { (void)CpuEngine::parallel(n); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "CpuEngine::parallel");
    EXPECT_THAT(std::string(e.message()), HasSubstr("threads must be >= 1, got " + std::to_string(n)));
    const auto* det = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->argument, "threads");
    EXPECT_THAT(e.what(), HasSubstr("test_engine.cpp:"));
  }
}

// ---- parallel_for ----------------------------------------------------------------------------------

TEST(Engine, ParallelForCoversEveryChunkExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    CpuEngine e = CpuEngine::parallel(threads);
    for (std::int64_t n : {0L, 1L, 7L, 64L, 1000L, 1003L}) {
      for (std::int64_t grain : {1L, 3L, 64L, 5000L}) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
        std::atomic<int> calls{0};
        e.parallel_for(n, grain, [&](std::int64_t b, std::int64_t end) {
          ++calls;
          // The chunks are [k * grain, min((k + 1) * grain, n)).
          EXPECT_EQ(b % grain, 0);
          EXPECT_EQ(end, std::min(n, b + grain));
          for (std::int64_t i = b; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
        });
        EXPECT_EQ(calls.load(), (n + grain - 1) / grain) << threads << " " << n << " " << grain;
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << i;
      }
    }
  }
}

TEST(Engine, ExceptionsInsideParallelForReachTheCaller) {
  for (int threads : {1, 2, 8}) {
    CpuEngine e = CpuEngine::parallel(threads);
    // A standard exception from one chunk.
    EXPECT_THROW(e.parallel_for(100, 1,
                                [](std::int64_t b, std::int64_t) {
                                  if (b == 57) throw std::runtime_error("chunk 57 failed");
                                }),
                 std::runtime_error);
    // A tensora::Error keeps its type and contents.
    try {
      e.parallel_for(64, 4, [](std::int64_t b, std::int64_t) {
        if (b == 0) throw Error(ErrorKind::InvalidArgument, "inner", "bad chunk", tensora::InvalidArgument{"b"});
      });
      ADD_FAILURE() << "nothing was thrown";
    } catch (const Error& err) {
      EXPECT_EQ(err.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(err.op(), "inner");
      EXPECT_EQ(std::string(err.message()), "bad chunk");
    }
    // Every chunk throwing still gives exactly one exception.
    EXPECT_THROW(e.parallel_for(1000, 1, [](std::int64_t, std::int64_t) { throw std::logic_error("all"); }),
                 std::logic_error);
    // The engine keeps working afterwards.
    std::atomic<std::int64_t> sum{0};
    e.parallel_for(1000, 7, [&](std::int64_t b, std::int64_t end) {
      for (std::int64_t i = b; i < end; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 999 * 1000 / 2);
    const Tensor x = Tensor::ones({kN}, {kCpu, DType::F32});
    EXPECT_EQ(x.add(x, e).to_vec<float>()[kN - 1], 2.0f);
  }
}

TEST(Engine, OpsOnTheSameEngineInsideParallelForRunInline) {
  // An op on the engine from inside one of its own chunks must not wait for the busy workers.
  CpuEngine e = CpuEngine::parallel(4);
  const Tensor x = Tensor::ones({kN}, {kCpu, DType::F32});
  const auto want = bytes_of(x.add(x, e));
  std::atomic<int> ok{0};
  e.parallel_for(6, 1, [&](std::int64_t, std::int64_t) {
    if (bytes_of(x.add(x, e)) == want) ++ok;
    std::atomic<int> inner{0};
    e.parallel_for(5, 1, [&](std::int64_t, std::int64_t) { ++inner; });
    if (inner.load() == 5) ++ok;
  });
  EXPECT_EQ(ok.load(), 12);
  // Exceptions from the nested level still reach the outer caller.
  EXPECT_THROW(e.parallel_for(3, 1,
                              [&](std::int64_t b, std::int64_t) {
                                e.parallel_for(3, 1, [&](std::int64_t c, std::int64_t) {
                                  if (b == 1 && c == 2) throw std::runtime_error("nested");
                                });
                              }),
               std::runtime_error);
  EXPECT_TRUE(bytes_of(x.add(x, e)) == want);
}

TEST(Engine, ErrorsFromKernelsOnAParallelEngineReachTheCaller) {
  CpuEngine e = CpuEngine::parallel(4);
  // Integer division by zero is found by a parallel scan of the divisor.
  std::vector<std::int32_t> d(static_cast<std::size_t>(kN), 3);
  d[static_cast<std::size_t>(kN - 5)] = 0;
  const Tensor a = Tensor::ones({kN}, {kCpu, DType::I32});
  const Tensor b = Tensor::from_vec_col_major({kN}, d);
  EXPECT_EQ(expect_error([&] { (void)a.floor_div(b, e); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)a.rem(b.slice(0, std::nullopt, std::nullopt, -1), e); }).kind(),
            ErrorKind::InvalidArgument);
}

TEST(Engine, EngineForAnotherDeviceThrowsDeviceMismatch) {
  CpuEngine e1 = CpuEngine::parallel(2, Device::cpu(1));
  CpuEngine e0 = CpuEngine::serial();
  const Tensor x = Tensor::ones({4}, {kCpu, DType::F32});
  const std::vector<std::function<void()>> calls = {
      [&] { (void)x.add(x, e1); },
      [&] { (void)x.add(1.0, e1); },
      [&] { x.add_into(x, e1, x); },
      [&] { (void)x.exp(e1); },
      [&] { (void)x.eq(x, e1); },
      [&] { (void)x.cast(DType::F64, e1); },
      [&] { (void)x.convert(DType::F64, e1); },
      [&] { (void)x.clamp(0.0, 1.0, e1); },
      [&] { (void)tensora::select(x.gt(0.0, e0), x, x, e1); },
  };
  for (const auto& call : calls) {
    const Error e = expect_error(call);
    EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch);
    const auto* det = std::get_if<tensora::DeviceMismatch>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->expected, "cpu:1");
    EXPECT_EQ(det->actual, "cpu:0");
    EXPECT_THAT(std::string(e.message()), HasSubstr("cpu:1"));
    EXPECT_THAT(std::string(e.message()), HasSubstr("cpu:0"));
  }
  // The engine works for its own device.
  const Tensor y = Tensor::ones({4}, {Device::cpu(1), DType::F32});
  const Tensor r = y.add(y, e1);
  EXPECT_EQ(r.device(), Device::cpu(1));
  EXPECT_EQ(r.to_vec<float>(), std::vector<float>(4, 2.0f));
}

// ---- serial == parallel, bitwise ----------------------------------------------------------------------

// Every op runs contiguous and (for its first dtype) in one strided layout, transposed or
// negative-step by turns, plus a broadcast for binary ops; each result on 1, 2, 3 and 8
// threads must equal the serial one byte for byte.
TEST(Engine, BinaryOpsAreBitwiseIdenticalAcrossThreadCounts) {
  CpuEngine serial = CpuEngine::serial();
  auto engines = parallel_engines();
  std::uint64_t seed = 100;
  int turn = 0;
  for (const BinCase& c : bin_cases()) {
    bool first = true;
    for (DType d : c.dtypes) {
      Tensor a = mixed(d, seed++), b = mixed(d, seed++);
      if ((std::string(c.name) == "floor_div" || std::string(c.name) == "rem") && tensora::is_integer(d))
        b = tensora::where(b.eq(0, serial), Tensor::ones({}, {kCpu, d}), b, serial);
      if (std::string(c.name) == "pow" && tensora::is_integer(d)) b = b.rem(7, serial);
      const auto la = layouts(a), lb = layouts(b);
      std::vector<std::pair<std::string, std::pair<Tensor, Tensor>>> cases = {{"contiguous", {a, b}}};
      if (first) {
        const std::size_t l = 1 + static_cast<std::size_t>(turn++ % 2);  // transposed or negstep
        cases.push_back({la[l].first, {la[l].second, lb[3 - l].second.reshape(la[l].second.shape())}});
        // A column against a row: broadcasting in a result of kN elements.
        cases.push_back({"broadcast", {a.slice(0, 0, 1573).reshape({1573, 1}), b.slice(0, 0, 125).reshape({1, 125})}});
      }
      first = false;
      for (const auto& [name, xy] : cases) {
        const auto& [x, y] = xy;
        const auto want = bytes_of((x.*c.fn)(y, serial, tensora::SourceLocation::current()));
        for (CpuEngine& p : engines)
          EXPECT_TRUE(bytes_of((x.*c.fn)(y, p, tensora::SourceLocation::current())) == want)
              << c.name << " " << tensora::name(d) << " " << name << " threads=" << p.threads();
      }
    }
  }
}

TEST(Engine, UnaryOpsAreBitwiseIdenticalAcrossThreadCounts) {
  CpuEngine serial = CpuEngine::serial();
  auto engines = parallel_engines();
  std::uint64_t seed = 500;
  int turn = 0;
  for (const UnCase& c : un_cases()) {
    bool first = true;
    for (DType d : c.dtypes) {
      Tensor x = mixed(d, seed++);
      if (tensora::is_complex(d)) x = x.add(mixed(d, seed++).mul(std::complex<double>(0, 1), serial), serial);
      // Mostly inside the domain (the out-of-domain lanes take a slower exact path; the NaNs
      // every 1000 elements still exercise it).
      const std::string op = c.name;
      if (!tensora::is_complex(d) && (op == "log" || op == "log1p" || op == "sqrt" || op == "rsqrt")) x = x.abs(serial);
      const auto lx = layouts(x);
      std::vector<std::pair<const char*, Tensor>> cases = {lx[0]};
      if (first) cases.push_back(lx[1 + static_cast<std::size_t>(turn++ % 2)]);
      first = false;
      for (const auto& [name, v] : cases) {
        const auto want = bytes_of((v.*c.fn)(serial, tensora::SourceLocation::current()));
        for (CpuEngine& p : engines) {
          // parallel(1) has no workers and runs the serial code; the strided runs skip it.
          if (p.threads() == 1 && !v.is_contiguous()) continue;
          EXPECT_TRUE(bytes_of((v.*c.fn)(p, tensora::SourceLocation::current())) == want)
              << c.name << " " << tensora::name(d) << " " << name << " threads=" << p.threads();
        }
      }
    }
  }
}

TEST(Engine, CastSelectAndClampAreBitwiseIdenticalAcrossThreadCounts) {
  CpuEngine serial = CpuEngine::serial();
  auto engines = parallel_engines();
  const std::vector<std::pair<DType, DType>> pairs = {
      {DType::F64, DType::F16}, {DType::F32, DType::I32}, {DType::F64, DType::U8},
      {DType::I64, DType::BF16}, {DType::C128, DType::F32}, {DType::F32, DType::Bool}};
  std::uint64_t seed = 900;
  for (const auto& [from, to] : pairs) {
    const Tensor x = mixed(from, seed++);
    for (const auto& [name, v] : layouts(x)) {
      const auto want = bytes_of(v.cast(to, serial));
      for (CpuEngine& p : engines)
        EXPECT_TRUE(bytes_of(v.cast(to, p)) == want)
            << tensora::name(from) << "->" << tensora::name(to) << " " << name << " threads=" << p.threads();
    }
  }
  const Tensor a = mixed(DType::F32, seed++), b = mixed(DType::F32, seed++);
  const Tensor pred = a.gt(b, serial);
  const auto want_sel = bytes_of(tensora::select(pred, a, b, serial));
  const auto want_clamp = bytes_of(a.clamp(-1.0, 2.0, serial));
  const auto want_conv = bytes_of(a.transpose().convert(DType::F64, serial));
  for (CpuEngine& p : engines) {
    EXPECT_TRUE(bytes_of(tensora::select(pred, a, b, p)) == want_sel) << p.threads();
    EXPECT_TRUE(bytes_of(a.clamp(-1.0, 2.0, p)) == want_clamp) << p.threads();
    EXPECT_TRUE(bytes_of(a.transpose().convert(DType::F64, p)) == want_conv) << p.threads();
  }
}

TEST(Engine, IntoVariantsAreBitwiseIdenticalAcrossThreadCounts) {
  CpuEngine serial = CpuEngine::serial();
  const Tensor a = mixed(DType::F64, 1234), b = mixed(DType::F64, 1235);
  const Tensor want = a.mul(b, serial);
  for (CpuEngine& p : parallel_engines()) {
    // A strided destination and an in-place one.
    const Tensor base = Tensor::zeros({2 * kN}, {kCpu, DType::F64});
    const Tensor dest = base.slice(0, std::nullopt, std::nullopt, -2);
    a.mul_into(b, p, dest);
    EXPECT_TRUE(bytes_of(dest) == bytes_of(want)) << p.threads();
    const Tensor inplace = a.duplicate();
    inplace.mul_into(b, p, inplace);
    EXPECT_TRUE(bytes_of(inplace) == bytes_of(want)) << p.threads();
  }
}

// ---- stress ---------------------------------------------------------------------------------------------

TEST(Engine, ManyConsecutiveParallelCallsWork) {
  CpuEngine e = CpuEngine::parallel(8);
  // Direct: 2000 jobs with tiny chunks keep every worker busy starting and finishing jobs.
  for (int rep = 0; rep < 2000; ++rep) {
    std::atomic<int> count{0};
    e.parallel_for(16, 1, [&](std::int64_t, std::int64_t) { ++count; });
    ASSERT_EQ(count.load(), 16) << rep;
  }
  // 200 small ops, each split into two chunks, chained on the same engine.
  Tensor x = Tensor::zeros({65537}, {kCpu, DType::I64});
  const Tensor one = Tensor::ones({65537}, {kCpu, DType::I64});
  for (int rep = 0; rep < 200; ++rep) x = x.add(one, e);
  const auto v = x.to_vec<std::int64_t>();
  EXPECT_EQ(v.front(), 200);
  EXPECT_EQ(v.back(), 200);
  // Two threads sharing one parallel engine.
  std::vector<std::thread> users;
  std::atomic<int> failures{0};
  for (int t = 0; t < 2; ++t)
    users.emplace_back([&, t] {
      const Tensor y = Tensor::full({65537}, t + 1, {kCpu, DType::I32});
      for (int rep = 0; rep < 25; ++rep) {
        const auto r = y.mul(y, e).to_vec<std::int32_t>();
        if (r[0] != (t + 1) * (t + 1) || r.back() != (t + 1) * (t + 1)) ++failures;
      }
    });
  for (auto& u : users) u.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Engine, CopiesOfAnEngineShareItsWorkers) {
  CpuEngine a = CpuEngine::parallel(3);
  CpuEngine b = a;  // a copy runs on the same pool
  EXPECT_EQ(b.threads(), 3);
  const Tensor x = Tensor::ones({kN}, {kCpu, DType::F32});
  EXPECT_TRUE(bytes_of(x.add(x, a)) == bytes_of(x.add(x, b)));
}

}  // namespace
