// dot_general, matmul and their _into forms against a naive long double (or wrapping integer)
// reference, over many dim configurations, every numeric dtype, strided operands, and the
// serial/parallel engines; every validation error with its kind, detail and message.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "cpu/blas_provider.hpp"
#include "cpu/gemm.hpp"
#include "cpu/gemm_kernels.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace ta = tensora;
using ta::DotGeneralConfig;
using ta::DType;
using ta::Shape;
using ta::Tensor;
using tensora_test::expect_error;

namespace {

// Tensors live on cpu:1 with explicit dtypes; the engines run there.
ta::Device dev() { return ta::Device::cpu(1); }
ta::CpuEngine& serial() {
  static ta::CpuEngine e = ta::CpuEngine::serial(dev());
  return e;
}
ta::CpuEngine& parallel(int threads) {
  static ta::CpuEngine e1 = ta::CpuEngine::parallel(1, dev());
  static ta::CpuEngine e2 = ta::CpuEngine::parallel(2, dev());
  static ta::CpuEngine e3 = ta::CpuEngine::parallel(3, dev());
  static ta::CpuEngine e8 = ta::CpuEngine::parallel(8, dev());
  switch (threads) {
    case 1: return e1;
    case 2: return e2;
    case 3: return e3;
    default: return e8;
  }
}

const std::vector<DType> kFloatDTypes{DType::F16, DType::BF16, DType::F32, DType::F64, DType::C64, DType::C128};
const std::vector<DType> kIntDTypes{DType::I8, DType::I16, DType::I32, DType::I64,
                                    DType::U8, DType::U16, DType::U32, DType::U64};

std::uint64_t lcg(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

// Deterministic values: floats in [-2, 2) (complex with both parts), integers in [-11, 11]
// (wrapped into unsigned dtypes), made exactly representable in the dtype.
Tensor make(const Shape& shape, DType dtype, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(ta::numel(shape));
  std::uint64_t s = seed * 7919 + 17;
  if (ta::is_integer(dtype)) {
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = static_cast<std::int64_t>(lcg(s) % 23) - 11;
    return Tensor::from_vec_col_major<std::int64_t>(shape, v, {dev(), DType::I64}).cast(dtype, serial());
  }
  auto next = [&] { return static_cast<double>(lcg(s) % 4096) / 1024.0 - 2.0; };
  if (ta::kind(dtype) == ta::DTypeKind::Complex) {
    std::vector<std::complex<double>> v(n);
    for (auto& x : v) x = {next(), next()};
    return Tensor::from_vec_col_major<std::complex<double>>(shape, v, {dev(), dtype});
  }
  std::vector<double> v(n);
  for (auto& x : v) x = next();
  return Tensor::from_vec_col_major<double>(shape, v, {dev(), dtype});
}

using CLD = std::complex<long double>;

// Values of any tensor as complex<long double> (column-major order).
std::vector<CLD> values(const Tensor& t) {
  const Tensor c = t.cast(DType::C128, serial());
  const auto v = c.to_vec<std::complex<double>>();
  std::vector<CLD> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = {v[i].real(), v[i].imag()};
  return out;
}
std::vector<std::uint64_t> int_values(const Tensor& t) {
  const auto v = t.cast(DType::I64, serial()).to_vec<std::int64_t>();
  return {v.begin(), v.end()};
}

std::int64_t norm(std::int64_t d, std::int64_t rank) { return d < 0 ? d + rank : d; }

// Column-major flat offset of `idx` in `shape`.
std::int64_t flat(const std::vector<std::int64_t>& idx, const Shape& shape) {
  std::int64_t o = 0, mul = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    o += idx[d] * mul;
    mul *= shape[d];
  }
  return o;
}

// The naive contraction: for every output index, the sum over every contracted index.
// `mul_add(acc, i, j)` accumulates lhs element i times rhs element j.
template <class Acc, class MulAdd>
std::vector<Acc> reference(const Shape& as, const Shape& bs, const DotGeneralConfig& c, Shape& out_shape,
                           MulAdd mul_add) {
  const auto ra = static_cast<std::int64_t>(as.size()), rb = static_cast<std::int64_t>(bs.size());
  std::vector<std::int64_t> lb, rbd, lc, rc, lf, rf;
  for (auto d : c.lhs_batch_dims) lb.push_back(norm(d, ra));
  for (auto d : c.rhs_batch_dims) rbd.push_back(norm(d, rb));
  for (auto d : c.lhs_contracting_dims) lc.push_back(norm(d, ra));
  for (auto d : c.rhs_contracting_dims) rc.push_back(norm(d, rb));
  auto in = [](const std::vector<std::int64_t>& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (std::int64_t d = 0; d < ra; ++d)
    if (!in(lb, d) && !in(lc, d)) lf.push_back(d);
  for (std::int64_t d = 0; d < rb; ++d)
    if (!in(rbd, d) && !in(rc, d)) rf.push_back(d);
  out_shape.clear();
  for (auto d : lb) out_shape.push_back(as[static_cast<std::size_t>(d)]);
  for (auto d : lf) out_shape.push_back(as[static_cast<std::size_t>(d)]);
  for (auto d : rf) out_shape.push_back(bs[static_cast<std::size_t>(d)]);
  Shape kshape;
  for (auto d : lc) kshape.push_back(as[static_cast<std::size_t>(d)]);
  const std::int64_t n_out = ta::numel(out_shape), n_k = ta::numel(kshape);
  std::vector<Acc> out(static_cast<std::size_t>(n_out), Acc{});
  std::vector<std::int64_t> ai(as.size()), bi(bs.size()), oi(out_shape.size()), ki(kshape.size());
  for (std::int64_t o = 0; o < n_out; ++o) {
    std::int64_t rest = o;
    for (std::size_t d = 0; d < out_shape.size(); ++d) {
      oi[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    std::size_t pos = 0;
    for (std::size_t i = 0; i < lb.size(); ++i, ++pos) {
      ai[static_cast<std::size_t>(lb[i])] = oi[pos];
      bi[static_cast<std::size_t>(rbd[i])] = oi[pos];
    }
    for (auto d : lf) ai[static_cast<std::size_t>(d)] = oi[pos++];
    for (auto d : rf) bi[static_cast<std::size_t>(d)] = oi[pos++];
    for (std::int64_t kk = 0; kk < n_k; ++kk) {
      std::int64_t r = kk;
      for (std::size_t i = 0; i < lc.size(); ++i) {
        const std::int64_t v = r % kshape[i];
        r /= kshape[i];
        ai[static_cast<std::size_t>(lc[i])] = v;
        bi[static_cast<std::size_t>(rc[i])] = v;
      }
      mul_add(out[static_cast<std::size_t>(o)], flat(ai, as), flat(bi, bs));
    }
  }
  return out;
}

// Relative tolerance of a float dtype's product (F16/BF16: one rounding of the F32 result).
double tolerance(DType d) {
  switch (d) {
    case DType::F16: return 2e-3;
    case DType::BF16: return 1.6e-2;
    case DType::F32:
    case DType::C64: return 2e-5;
    default: return 1e-12;
  }
}

// Checks lhs.dot_general(rhs, c) against the reference; `what` names the case.
void check_dot_general(const Tensor& lhs, const Tensor& rhs, const DotGeneralConfig& c, const std::string& what,
                       ta::Engine& e = serial()) {
  SCOPED_TRACE(what + " " + std::string(ta::name(lhs.dtype())) + " lhs " + ta::to_string(lhs.shape()) + " rhs " +
               ta::to_string(rhs.shape()));
  const Tensor out = lhs.dot_general(rhs, c, e);
  EXPECT_EQ(out.dtype(), lhs.dtype());
  EXPECT_TRUE(out.device() == dev());
  EXPECT_TRUE(out.is_contiguous(ta::Layout::ColMajor));
  Shape shape;
  if (ta::is_integer(lhs.dtype())) {
    const auto a = int_values(lhs), b = int_values(rhs);
    auto ref = reference<std::uint64_t>(lhs.shape(), rhs.shape(), c, shape,
                                        [&](std::uint64_t& acc, std::int64_t i, std::int64_t j) {
                                          acc += a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(j)];
                                        });
    ASSERT_EQ(out.shape(), shape);
    // The exact result modulo 2^bits, read back through I64 (sign- or zero-extended).
    const int bits = static_cast<int>(ta::size_of(lhs.dtype()) * 8);
    const bool is_signed = ta::kind(lhs.dtype()) == ta::DTypeKind::SignedInt;
    const auto got = int_values(out);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      std::uint64_t r = ref[i];
      if (bits < 64) {
        r &= (std::uint64_t{1} << bits) - 1;
        if (is_signed && (r >> (bits - 1)) != 0) r |= ~((std::uint64_t{1} << bits) - 1);
      }
      ASSERT_EQ(got[i], r) << "element " << i;
    }
    return;
  }
  const auto a = values(lhs), b = values(rhs);
  std::vector<long double> bound;
  auto ref = reference<CLD>(lhs.shape(), rhs.shape(), c, shape, [&](CLD& acc, std::int64_t i, std::int64_t j) {
    acc += a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(j)];
  });
  auto mag = reference<long double>(lhs.shape(), rhs.shape(), c, shape,
                                    [&](long double& acc, std::int64_t i, std::int64_t j) {
                                      acc += std::abs(a[static_cast<std::size_t>(i)]) * std::abs(b[static_cast<std::size_t>(j)]);
                                    });
  ASSERT_EQ(out.shape(), shape);
  const auto got = values(out);
  // Plus the worst case of summing k products one after another in the compute type (a
  // broadcast operand makes every product equal, so the rounding errors do not cancel).
  long double k = 1;
  for (auto d : c.lhs_contracting_dims) k *= lhs.shape()[static_cast<std::size_t>(norm(d, lhs.rank()))];
  const bool f64 = lhs.dtype() == DType::F64 || lhs.dtype() == DType::C128;
  const long double tol = tolerance(lhs.dtype()) + 2 * k * (f64 ? 0x1p-53L : 0x1p-24L);
  for (std::size_t i = 0; i < ref.size(); ++i)
    ASSERT_LE(std::abs(got[i] - ref[i]), tol * mag[i] + 1e-300L)
        << "element " << i << ": got " << double(got[i].real()) << "+" << double(got[i].imag()) << "i, want "
        << double(ref[i].real()) << "+" << double(ref[i].imag()) << "i";
}

// The BLAS thresholds of the small "blas ..." cases below, for the duration of a test.
class SmallBlasThresholds {
 public:
  SmallBlasThresholds() : old_(ta::cpu::set_blas_thresholds({32.0 * 32 * 32, 16.0 * 16 * 16})) {}
  ~SmallBlasThresholds() { ta::cpu::set_blas_thresholds(old_); }
  SmallBlasThresholds(const SmallBlasThresholds&) = delete;
  SmallBlasThresholds& operator=(const SmallBlasThresholds&) = delete;

 private:
  ta::cpu::BlasThresholds old_;
};

struct Case {
  std::string name;
  Shape lhs, rhs;
  DotGeneralConfig config;
};

// Batch / contracting / free combinations up to rank 4, with sizes that reach every path.
std::vector<Case> cases() {
  return {
      {"matrix product", {5, 7}, {7, 3}, {{}, {}, {1}, {0}}},
      {"transposed lhs", {7, 5}, {7, 3}, {{}, {}, {0}, {0}}},
      {"transposed both", {7, 5}, {3, 7}, {{}, {}, {0}, {1}}},
      {"outer product", {4}, {3}, {{}, {}, {}, {}}},
      {"dot product", {6}, {6}, {{}, {}, {0}, {0}}},
      {"full contraction", {3, 4}, {3, 4}, {{}, {}, {0, 1}, {0, 1}}},
      {"batched", {3, 4, 5}, {3, 5, 2}, {{0}, {0}, {2}, {1}}},
      {"batch elsewhere", {4, 3, 5}, {5, 2, 3}, {{1}, {2}, {2}, {0}}},
      {"two contracting", {4, 3, 5}, {5, 2, 3}, {{}, {}, {1, 2}, {2, 0}}},
      {"two batch rank 4", {2, 4, 3, 5}, {5, 3, 2, 6}, {{0, 2}, {2, 1}, {3}, {0}}},
      {"two free each", {3, 5, 2}, {4, 5, 2}, {{}, {}, {1}, {1}}},
      {"batch only", {6, 3}, {6, 2}, {{0}, {0}, {}, {}}},
      {"negative dims", {2, 3, 4}, {2, 4, 5}, {{-3}, {0}, {-1}, {-2}}},
      {"extent 1 dims", {1, 4, 1}, {4, 1, 3}, {{}, {}, {1}, {0}}},
      {"blas sized", {40, 50}, {50, 36}, {{}, {}, {1}, {0}}},
      {"blas dot product", {33000}, {33000}, {{}, {}, {0}, {0}}},
      {"blas matrix-vector", {200, 170}, {170}, {{}, {}, {1}, {0}}},
      {"blas vector-matrix", {170}, {170, 200}, {{}, {}, {0}, {0}}},
      {"blas transposed both", {40, 30}, {35, 40}, {{}, {}, {0}, {1}}},
      {"blas sized batched", {2, 33, 40}, {40, 2, 34}, {{0}, {1}, {2}, {0}}},
      {"lanes", {40, 3, 4}, {40, 4, 2}, {{0}, {0}, {2}, {1}}},
      {"lanes rank 4", {5, 8, 4, 4}, {4, 5, 8, 4}, {{0, 1}, {1, 2}, {3}, {0}}},
  };
}

// The same values (or, for "broadcast", other values) in other layouts.
std::vector<std::pair<std::string, Tensor>> layouts(const Tensor& x, std::uint64_t seed) {
  std::vector<std::pair<std::string, Tensor>> out{{"contiguous", x}};
  if (x.rank() == 0) return out;
  std::vector<std::int64_t> rev(static_cast<std::size_t>(x.rank()));
  std::iota(rev.rbegin(), rev.rend(), 0);
  out.emplace_back("transposed", x.permute(rev).contiguous().permute(rev));
  out.emplace_back("negative step", x.slice(0, {}, {}, -1).contiguous().slice(0, {}, {}, -1));
  Shape wide = x.shape();
  wide.back() *= 2;
  out.emplace_back("step 2", make(wide, x.dtype(), seed + 99).slice(x.rank() - 1, {}, {}, 2));
  // Broadcast along the largest axis.
  const auto axis = std::max_element(x.shape().begin(), x.shape().end()) - x.shape().begin();
  out.emplace_back("broadcast", x.slice(axis, 0, 1).broadcast_to(x.shape()));
  return out;
}

}  // namespace

TEST(Contraction, BackendIsReported) {
  const std::string name = ta::blas_backend();
  RecordProperty("blas", name);
  RecordProperty("kernel_isa", ta::cpu::gemm::kernel_isa());
  EXPECT_FALSE(name.empty());
}

TEST(Contraction, DotGeneralMatchesReferenceForEveryFloatDType) {
  const SmallBlasThresholds small;  // the "blas ..." cases reach the BLAS
  for (const DType dt : kFloatDTypes)
    for (const auto& c : cases())
      check_dot_general(make(c.lhs, dt, 1), make(c.rhs, dt, 2), c.config, c.name);
}

TEST(Contraction, DotGeneralMatchesReferenceForEveryIntDType) {
  for (const DType dt : kIntDTypes)
    for (const auto& c : cases())
      check_dot_general(make(c.lhs, dt, 3), make(c.rhs, dt, 4), c.config, c.name);
}

TEST(Contraction, StridedOperandsMatchReference) {
  const SmallBlasThresholds small;
  for (const DType dt : {DType::F64, DType::F32, DType::C128, DType::BF16, DType::I32, DType::U8})
    for (const auto& c : cases()) {
      const auto ls = layouts(make(c.lhs, dt, 5), 5), rs = layouts(make(c.rhs, dt, 6), 6);
      for (const auto& [ln, l] : ls)
        for (const auto& [rn, r] : rs)
          if (ln == rn || ln == "contiguous" || rn == "contiguous")
            check_dot_general(l, r, c.config, c.name + " [" + ln + " x " + rn + "]");
    }
}

TEST(Contraction, ZeroSizedDims) {
  auto& e = serial();
  // k == 0: zeros.
  const Tensor z = make({3, 0}, DType::F64, 1).dot_general(make({0, 2}, DType::F64, 2), {{}, {}, {1}, {0}}, e);
  EXPECT_EQ(z.shape(), (Shape{3, 2}));
  EXPECT_EQ(z.to_vec<double>(), std::vector<double>(6, 0.0));
  const Tensor zi = make({3, 0}, DType::I16, 1).matmul(make({0, 2}, DType::I16, 2), e);
  EXPECT_EQ(zi.to_vec<std::int16_t>(), std::vector<std::int16_t>(6, 0));
  // m == 0 or an empty batch: an empty result of the right shape.
  EXPECT_EQ(make({0, 4}, DType::F32, 1).matmul(make({4, 5}, DType::F32, 2), e).shape(), (Shape{0, 5}));
  EXPECT_EQ(make({0, 2, 4}, DType::F32, 1).matmul(make({0, 4, 5}, DType::F32, 2), e).shape(), (Shape{0, 2, 5}));
}

TEST(Contraction, IntegerOverflowWrapsModulo2PowBits) {
  auto& e = serial();
  // I8: 100 * 100 + 100 * 100 = 20000 = 78 * 256 + 32 -> 32.
  const Tensor a = Tensor::from_vec_col_major<std::int8_t>({1, 2}, {100, 100}, {dev(), DType::I8});
  const Tensor b = Tensor::from_vec_col_major<std::int8_t>({2, 1}, {100, 100}, {dev(), DType::I8});
  EXPECT_EQ(a.matmul(b, e).to_vec<std::int8_t>(), std::vector<std::int8_t>{32});
  // I8: 127 * 127 = 16129 = 63 * 256 + 1 -> 1; -128 * 127 = -16256 = -64 * 256 + 128 -> -128.
  const Tensor c = Tensor::from_vec_col_major<std::int8_t>({2, 1}, {127, -128}, {dev(), DType::I8});
  const Tensor d = Tensor::from_vec_col_major<std::int8_t>({1, 1}, {127}, {dev(), DType::I8});
  EXPECT_EQ(c.matmul(d, e).to_vec<std::int8_t>(), (std::vector<std::int8_t>{1, -128}));
  // U16: 65535 * 65535 = 2^32 - 2^17 + 1 -> 1 (mod 2^16).
  const Tensor u = Tensor::from_vec_col_major<std::uint16_t>({1}, {65535}, {dev(), DType::U16});
  EXPECT_EQ(u.matmul(u, e).item<std::uint16_t>(), 1);
  // I64: 2^62 * 4 = 2^64 -> 0; (2^63 - 1) * 2 = 2^64 - 2 -> -2.
  const Tensor big = Tensor::from_vec_col_major<std::int64_t>({2}, {std::int64_t{1} << 62, INT64_MAX}, {dev(), DType::I64});
  const Tensor f = Tensor::from_vec_col_major<std::int64_t>({2}, {4, 2}, {dev(), DType::I64});
  EXPECT_EQ(big.matmul(f, e).item<std::int64_t>(), -2);
  // I32 on the lane kernel (a batch of 64 products) wraps the same way.
  const Tensor x = Tensor::full({64, 1, 2}, 65536, {dev(), DType::I32});
  const Tensor y = Tensor::full({64, 2, 1}, 65536, {dev(), DType::I32});
  EXPECT_EQ(x.matmul(y, e).to_vec<std::int32_t>(), std::vector<std::int32_t>(64, 0));
  const Tensor x2 = Tensor::full({64, 1, 1}, 46341, {dev(), DType::I32});  // 46341^2 = 2147488281
  EXPECT_EQ(x2.matmul(x2, e).to_vec<std::int32_t>(), std::vector<std::int32_t>(64, -2147479015));
}

TEST(Contraction, HalfPrecisionRoundsOnceFromF32) {
  auto& e = serial();
  // 1 + 2^-11 + 2^-11: rounding to F16 after each addition would tie back to 1 twice; in F32
  // the sum 1 + 2^-10 survives and is exact in F16.
  const Tensor a = Tensor::from_vec_col_major<double>({1, 3}, {1.0, 1.0, 1.0}, {dev(), DType::F16});
  const Tensor b = Tensor::from_vec_col_major<double>({3, 1}, {1.0, std::ldexp(1.0, -11), std::ldexp(1.0, -11)},
                                                      {dev(), DType::F16});
  EXPECT_EQ(a.matmul(b, e).cast(DType::F64, e).to_vec<double>(), std::vector<double>{1.0 + std::ldexp(1.0, -10)});
  // BF16 keeps 8 significant bits: 1 + 2^-10 rounds to 1 once, at the end.
  const Tensor ab = a.cast(DType::BF16, e), bb = b.cast(DType::BF16, e);
  EXPECT_EQ(ab.matmul(bb, e).cast(DType::F64, e).to_vec<double>(), std::vector<double>{1.0});
  // Many small terms: F32 accumulation gives 1 + 64 * 2^-11 = 1.03125 (exact in F16).
  const Tensor ones = Tensor::ones({1, 65}, {dev(), DType::F16});
  std::vector<double> terms(65, std::ldexp(1.0, -11));
  terms[0] = 1.0;
  const Tensor t = Tensor::from_vec_col_major<double>({65, 1}, terms, {dev(), DType::F16});
  EXPECT_EQ(ones.matmul(t, e).cast(DType::F64, e).item<double>(), 1.03125);
}

// ---- matmul (NumPy semantics) -------------------------------------------------------------

namespace {

// NumPy matmul reference through explicit dot_general-free loops on F64 values.
void check_matmul(const Shape& as, const Shape& bs, const Shape& want, DType dt = DType::F64) {
  SCOPED_TRACE("matmul " + ta::to_string(as) + " @ " + ta::to_string(bs));
  auto& e = serial();
  const Tensor a = make(as, dt, 11), b = make(bs, dt, 12);
  const Tensor out = a.matmul(b, e);
  ASSERT_EQ(out.shape(), want);
  // Promote 1-D operands, broadcast batch dims, and compare element by element.
  Shape a2 = as, b2 = bs;
  if (a2.size() == 1) a2.insert(a2.begin(), 1);
  if (b2.size() == 1) b2.push_back(1);
  const Shape ba(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  const Shape batch = ta::broadcast_shapes(ba, bb);
  const std::int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
  const auto av = values(a), bv = values(b), ov = values(out);
  std::vector<std::int64_t> bi(batch.size());
  const std::int64_t nbatch = ta::numel(batch);
  ASSERT_EQ(static_cast<std::int64_t>(ov.size()), nbatch * m * n);
  for (std::int64_t t = 0; t < nbatch; ++t) {
    std::int64_t rest = t;
    for (std::size_t d = 0; d < batch.size(); ++d) {
      bi[d] = rest % batch[d];
      rest /= batch[d];
    }
    auto index = [&](const Shape& s, std::int64_t i, std::int64_t j) {  // s: promoted shape
      std::vector<std::int64_t> idx(s.size());
      const std::size_t nbs = s.size() - 2, off = batch.size() - nbs;
      for (std::size_t d = 0; d < nbs; ++d) idx[d] = s[d] == 1 ? 0 : bi[d + off];
      idx[nbs] = i;
      idx[nbs + 1] = j;
      return flat(idx, s);
    };
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        CLD acc{};
        for (std::int64_t p = 0; p < k; ++p)
          acc += av[static_cast<std::size_t>(index(a2, i, p))] * bv[static_cast<std::size_t>(index(b2, p, j))];
        // The result's flat index: batch (col-major), then i, then j, dropping promoted axes.
        std::vector<std::int64_t> oi(bi.begin(), bi.end());
        Shape os = batch;
        if (as.size() > 1) {
          oi.push_back(i);
          os.push_back(m);
        }
        if (bs.size() > 1) {
          oi.push_back(j);
          os.push_back(n);
        }
        const auto got = ov[static_cast<std::size_t>(flat(oi, os))];
        ASSERT_LE(std::abs(got - acc), 1e-12L * (1 + std::abs(acc))) << "batch " << t << " (" << i << ", " << j << ")";
      }
  }
}

}  // namespace

TEST(ContractionMatmul, VectorsMatricesAndBroadcastBatches) {
  check_matmul({5}, {5}, {});                       // vector . vector -> 0-d
  check_matmul({3, 5}, {5}, {3});                   // matrix-vector
  check_matmul({5}, {5, 4}, {4});                   // vector-matrix
  check_matmul({3, 5}, {5, 4}, {3, 4});             // matrix-matrix
  check_matmul({2, 3, 5}, {2, 5, 4}, {2, 3, 4});    // batched
  check_matmul({2, 1, 3, 5}, {6, 5, 4}, {2, 6, 3, 4});  // batch dims broadcast both ways
  check_matmul({3, 5}, {7, 5, 4}, {7, 3, 4});       // 2-D lhs broadcast over rhs's batch
  check_matmul({7, 3, 5}, {5, 4}, {7, 3, 4});
  check_matmul({5}, {7, 5, 4}, {7, 4});             // 1-D lhs with a batch of matrices
  check_matmul({7, 3, 5}, {5}, {7, 3});             // batch of matrices times a vector
  check_matmul({64, 4, 4}, {1, 4, 4}, {64, 4, 4});  // lane kernel with a broadcast operand
  check_matmul({1, 4, 3}, {48, 3, 5}, {48, 4, 5});
  check_matmul({2, 3, 5}, {2, 5, 4}, {2, 3, 4}, DType::C64);
}

TEST(ContractionMatmul, ErrorsUseDotGeneral) {
  auto& e = serial();
  const Tensor x = make({2, 3}, DType::F64, 1), y = make({3, 2}, DType::F32, 2);
  {
    const ta::Error err = expect_error([&] { (void)x.matmul(y, e); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "dot_general");
    EXPECT_EQ(std::string(err.op()) + ": " + std::string(err.message()), "dot_general: dtype mismatch: expected F64, actual F32");
    EXPECT_EQ(std::string(err.what()).rfind("dot_general: dtype mismatch: expected F64, actual F32", 0), 0u);
    const auto* d = std::get_if<ta::DTypeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->expected, DType::F64);
    EXPECT_EQ(d->actual, DType::F32);
  }
  {
    const ta::Error err = expect_error([&] { (void)y.matmul(x, e); });
    EXPECT_EQ(std::string(err.op()) + ": " + std::string(err.message()), "dot_general: dtype mismatch: expected F32, actual F64");
  }
  // The dtype check comes first on every path: shapes that do not chain, 0-d operands, _into.
  const Tensor bad = make({5, 7}, DType::F32, 3);
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(expect_error([&] { (void)x.matmul(bad, e); }).detail()));
  const Tensor s32 = Tensor::full({}, 1.0, {dev(), DType::F32});
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(expect_error([&] { (void)x.matmul(s32, e); }).detail()));
  const Tensor d64 = Tensor::zeros({2, 2}, {dev(), DType::F64});
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(expect_error([&] { x.dot_into(y, e, d64); }).detail()));
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(
      expect_error([&] { (void)x.dot_general(y, {{}, {}, {1}, {0}}, e); }).detail()));
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(
      expect_error([&] { x.dot_general_into(y, {{}, {}, {1}, {0}}, e, d64); }).detail()));

  // Shapes that do not chain.
  {
    const Tensor z = make({5, 7}, DType::F64, 3);
    const ta::Error err = expect_error([&] { (void)x.matmul(z, e); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "matmul");  // not "dot_general: matmul: ..." (issue 11)
    EXPECT_EQ(err.message(),
              "lhs [2, 3] and rhs [5, 7] do not chain: the last axis of lhs has size 3, the second-to-last "
              "axis of rhs has size 5");
    const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->expected, (Shape{2, 3}));
    EXPECT_EQ(d->actual, (Shape{5, 7}));
  }
  // Batch dims that do not broadcast.
  {
    const ta::Error err = expect_error([&] { (void)make({2, 2, 3}, DType::F64, 1).matmul(make({3, 3, 4}, DType::F64, 2), e); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_TRUE(std::holds_alternative<ta::ShapeMismatch>(err.detail()));
    EXPECT_EQ(err.message(), "shape mismatch: [2] and [3] do not broadcast");
  }
  // 0-d operands.
  {
    const Tensor s = Tensor::full({}, 2.0, {dev(), DType::F64});
    const ta::Error err = expect_error([&] { (void)s.matmul(x, e); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.op(), "matmul");
    EXPECT_EQ(err.message(), "operands need rank >= 1, got a 0-d lhs; use mul for a product with a scalar");
  }
}

// ---- dot_into / dot_general_into ----------------------------------------------------------

TEST(ContractionInto, WritesCheckedDestinations) {
  auto& e = serial();
  const Tensor a = make({4, 6}, DType::F64, 1), b = make({6, 5}, DType::F64, 2);
  const Tensor want = a.matmul(b, e);
  // A dense destination.
  const Tensor d = Tensor::zeros({4, 5}, {dev(), DType::F64});
  a.dot_into(b, e, d);
  EXPECT_EQ(d.to_vec<double>(), want.to_vec<double>());
  // A transposed (row-major) destination and a strided one.
  const Tensor t = Tensor::zeros({5, 4}, {dev(), DType::F64});
  a.dot_into(b, e, t.transpose());
  EXPECT_EQ(t.transpose().to_vec<double>(), want.to_vec<double>());
  const Tensor wide = Tensor::zeros({4, 10}, {dev(), DType::F64});
  a.dot_into(b, e, wide.slice(1, {}, {}, 2));
  EXPECT_EQ(wide.slice(1, {}, {}, 2).to_vec<double>(), want.to_vec<double>());
  EXPECT_EQ(wide.slice(1, 1, {}, 2).to_vec<double>(), std::vector<double>(20, 0.0));
  // A row-major destination on the BLAS path (computed as C^T = B^T A^T), F32 and C128.
  for (const DType dt : {DType::F32, DType::C128}) {
    const Tensor x = make({80, 90}, dt, 7), y = make({90, 80}, dt, 8);  // 80 * 80 * 90 >= 80^3
    const Tensor rt = Tensor::zeros({80, 80}, {dev(), dt});
    x.dot_into(y, e, rt.transpose());
    const auto got = values(rt.transpose()), want_v = values(x.matmul(y, e));
    ASSERT_EQ(got.size(), want_v.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_LE(std::abs(got[i] - want_v[i]), 1e-3L) << i;
  }
  // A batch of row-major destinations (swapped operands must keep their own batch offsets),
  // on the BLAS path and on the generic one.
  for (const std::int64_t s : {80, 6}) {
    const Tensor x = make({s, s + 10, 3}, DType::F64, 9).permute({2, 0, 1});  // batch slowest
    const Tensor y = make({3, s + 10, s + 1}, DType::F64, 10);                  // batch fastest
    const Tensor rt = Tensor::zeros({s + 1, s, 3}, {dev(), DType::F64});
    x.dot_into(y, e, rt.permute({2, 1, 0}));
    const auto got = values(rt.permute({2, 1, 0})), want_v = values(x.matmul(y, e));
    ASSERT_EQ(got.size(), want_v.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_LE(std::abs(got[i] - want_v[i]), 1e-9L) << s << " " << i;
  }
  // dot_general_into with a batch.
  const Tensor x = make({3, 4, 6}, DType::F32, 3), y = make({3, 6, 2}, DType::F32, 4);
  const Tensor bd = Tensor::zeros({3, 4, 2}, {dev(), DType::F32});
  x.dot_general_into(y, {{0}, {0}, {2}, {1}}, e, bd);
  EXPECT_EQ(bd.to_vec<float>(), x.matmul(y, e).to_vec<float>());
  // Half precision into a destination rounds the same way as the allocating form.
  const Tensor h = make({5, 40}, DType::F16, 5), g = make({40, 3}, DType::F16, 6);
  const Tensor hd = Tensor::zeros({5, 3}, {dev(), DType::F16});
  h.dot_into(g, e, hd.transpose().contiguous().transpose());
  h.dot_into(g, e, hd);
  EXPECT_EQ(hd.cast(DType::F32, e).to_vec<float>(), h.matmul(g, e).cast(DType::F32, e).to_vec<float>());
}

TEST(ContractionInto, DestinationOverlappingAnInputGetsTheRightResult) {
  auto& e = serial();
  const Tensor a = make({6, 6}, DType::F64, 1), b = make({6, 6}, DType::F64, 2);
  const Tensor want = a.matmul(b, e);
  const Tensor a2 = a.duplicate();
  a2.dot_into(b, e, a2);  // in place: a2 = a2 @ b
  EXPECT_EQ(a2.to_vec<double>(), want.to_vec<double>());
  const Tensor b2 = b.duplicate();
  a.dot_into(b2, e, b2.transpose());  // the transpose of an input
  EXPECT_EQ(b2.transpose().to_vec<double>(), want.to_vec<double>());
}

TEST(ContractionInto, DestinationErrors) {
  auto& e = serial();
  const Tensor a = make({4, 6}, DType::F64, 1), b = make({6, 5}, DType::F64, 2);
  {
    const ta::Error err = expect_error([&] { a.dot_into(b, e, Tensor::zeros({5, 4}, {dev(), DType::F64})); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "dot_general_into");
    const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->expected, (Shape{4, 5}));
    EXPECT_EQ(d->actual, (Shape{5, 4}));
  }
  {
    const ta::Error err = expect_error([&] { a.dot_into(b, e, Tensor::zeros({4, 5}, {dev(), DType::F32})); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.message(), "dtype mismatch: expected F64, actual F32");
  }
  {
    const ta::Error err = expect_error([&] { a.dot_into(b, e, Tensor::zeros({4, 1}, {dev(), DType::F64}).broadcast_to({4, 5})); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  }
  {
    const ta::Error err = expect_error([&] { a.dot_into(b, e, Tensor()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  }
}

// ---- validation ---------------------------------------------------------------------------

TEST(ContractionErrors, EveryConfigErrorNamesTheBadDim) {
  auto& e = serial();
  const Tensor l = make({2, 3, 4}, DType::F64, 1), r = make({2, 4, 5}, DType::F64, 2);
  auto error_for = [&](const DotGeneralConfig& c) { return expect_error([&] { (void)l.dot_general(r, c, e); }); };
  {  // out of range
    const ta::Error err = error_for({{0}, {0}, {3}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.op(), "dot_general");
    EXPECT_EQ(err.message(), "lhs_contracting_dims: dim 3 out of range for lhs of rank 3 (valid: -3..2)");
    const auto* d = std::get_if<ta::AxisOutOfRange>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->axis, 3);
    EXPECT_EQ(d->rank, 3);
  }
  {
    const ta::Error err = error_for({{0}, {-4}, {2}, {1}});
    EXPECT_EQ(err.message(), "rhs_batch_dims: dim -4 out of range for rhs of rank 3 (valid: -3..2)");
    EXPECT_TRUE(std::holds_alternative<ta::AxisOutOfRange>(err.detail()));
  }
  {  // duplicate
    const ta::Error err = error_for({{0, 0}, {0, 0}, {2}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.message(), "lhs_batch_dims: dim 0 appears twice in [0, 0]");
    const auto* d = std::get_if<ta::InvalidArgument>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->argument, "config.lhs_batch_dims");
  }
  {
    const ta::Error err = error_for({{0}, {0}, {2}, {1, -2}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.message(),
              "lhs_contracting_dims [2] and rhs_contracting_dims [1, -2] differ in length; contracting dims pair up "
              "one to one");
  }
  {  // duplicate after normalization
    const Tensor r2 = make({4, 4, 5}, DType::F64, 2);
    const ta::Error err = expect_error([&] { (void)make({4, 4}, DType::F64, 1).dot_general(r2, {{}, {}, {0, 1}, {1, -2}}, e); });
    EXPECT_EQ(err.message(), "rhs_contracting_dims: dim 1 appears twice in [1, -2]");
  }
  {  // batch / contracting overlap
    const ta::Error err = error_for({{0}, {0}, {0}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.message(), "dim 0 of lhs is both a batch dim and a contracting dim");
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "config.lhs_contracting_dims");
  }
  {
    const ta::Error err = error_for({{0}, {0}, {2}, {0}});
    EXPECT_EQ(err.message(), "dim 0 of rhs is both a batch dim and a contracting dim");
  }
  {  // batch list length mismatch
    const ta::Error err = error_for({{0}, {}, {2}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(err.message(), "lhs_batch_dims [0] and rhs_batch_dims [] differ in length; batch dims pair up one to one");
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "config.rhs_batch_dims");
  }
  {  // contracted size mismatch
    const ta::Error err = error_for({{0}, {0}, {1}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.message(),
              "contracting dims differ in size: lhs dim 1 has size 3, rhs dim 1 has size 4 (lhs [2, 3, 4], rhs [2, 4, 5])");
    const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->expected, (Shape{2, 3, 4}));
    EXPECT_EQ(d->actual, (Shape{2, 4, 5}));
  }
  {  // batch size mismatch
    const ta::Error err = error_for({{1}, {0}, {2}, {1}});
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    EXPECT_EQ(err.message(),
              "batch dims differ in size: lhs dim 1 has size 3, rhs dim 0 has size 2 (lhs [2, 3, 4], rhs [2, 4, 5])");
    EXPECT_TRUE(std::holds_alternative<ta::ShapeMismatch>(err.detail()));
  }
}

TEST(ContractionErrors, DTypeDeviceAndEmptyOperands) {
  auto& e = serial();
  const Tensor b = Tensor::zeros({2, 2}, {dev(), DType::Bool});
  {
    const ta::Error err = expect_error([&] { (void)b.matmul(b, e); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_EQ(err.op(), "dot_general");
    EXPECT_EQ(std::get<ta::UnsupportedDType>(err.detail()).dtype, DType::Bool);
  }
  EXPECT_EQ(expect_error([&] { (void)b.dot_general(b, {{}, {}, {1}, {0}}, e); }).kind(), ta::ErrorKind::UnsupportedDType);
  // The engine runs on cpu:0, the operands are on cpu:1.
  ta::CpuEngine other = ta::CpuEngine::serial(ta::Device::cpu(0));
  const Tensor x = make({2, 2}, DType::F64, 1);
  {
    const ta::Error err = expect_error([&] { (void)x.matmul(x, other); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
    EXPECT_EQ(err.op(), "dot_general");
    EXPECT_TRUE(std::holds_alternative<ta::DeviceMismatch>(err.detail()));
  }
  EXPECT_EQ(expect_error([&] { (void)x.matmul(Tensor(), e); }).kind(), ta::ErrorKind::InvalidArgument);
}

// ---- determinism --------------------------------------------------------------------------

namespace {

std::vector<unsigned char> bytes(const Tensor& t) {
  std::vector<unsigned char> out(static_cast<std::size_t>(t.numel()) * ta::size_of(t.dtype()));
  t.copy_to_buffer(out.data(), ta::Layout::ColMajor);
  return out;
}

}  // namespace

TEST(ContractionDeterminism, ParallelEnginesAreBitwiseEqualToSerial) {
  struct Det {
    std::string name;
    Shape lhs, rhs;
    DotGeneralConfig config;
    DType dtype;
  };
  const std::vector<Det> dets{
      // One product cut into a block of columns (or rows) per thread (BLAS path); block edges
      // that fall inside the BLAS's register tiles.
      {"blocked gemm", {300, 96}, {96, 530}, {{}, {}, {1}, {0}}, DType::F64},
      {"blocked gemm odd edges", {777, 333}, {333, 1001}, {{}, {}, {1}, {0}}, DType::F64},
      {"blocked gemm odd edges f32", {1001, 333}, {333, 777}, {{}, {}, {1}, {0}}, DType::F32},
      {"blocked complex", {200, 300}, {300, 250}, {{}, {}, {1}, {0}}, DType::C128},
      {"blocked gemm rows", {530, 96}, {96, 300}, {{}, {}, {1}, {0}}, DType::F32},
      {"blocked gemm transposed", {96, 300}, {530, 96}, {{}, {}, {0}, {1}}, DType::F32},
      // Held on BLIS's large-product kernels (every extent >= 256) and cut into blocks narrower
      // than its small-matrix thresholds: 128 columns of a 256 square on 2 threads.
      {"large path square f32", {256, 256}, {256, 256}, {{}, {}, {1}, {0}}, DType::F32},
      {"large path square f64", {256, 256}, {256, 256}, {{}, {}, {1}, {0}}, DType::F64},
      {"large path odd edges", {300, 257}, {257, 383}, {{}, {}, {1}, {0}}, DType::F32},
      {"large path rows", {511, 260}, {260, 263}, {{}, {}, {1}, {0}}, DType::F64},
      {"large path complex", {256, 300}, {300, 270}, {{}, {}, {1}, {0}}, DType::C64},
      {"batched blas", {6, 80, 80}, {6, 80, 90}, {{0}, {0}, {2}, {1}}, DType::F64},
      {"complex blas", {3, 60, 50}, {3, 50, 70}, {{0}, {0}, {2}, {1}}, DType::C128},
      // Many tiny products (lane kernel), with a tail that is not a multiple of the lanes.
      {"lanes", {2001, 8, 8}, {2001, 8, 8}, {{0}, {0}, {2}, {1}}, DType::F64},
      {"lanes f32", {3003, 5, 7}, {3003, 7, 3}, {{0}, {0}, {2}, {1}}, DType::F32},
      {"lanes half", {1500, 4, 4}, {1500, 4, 4}, {{0}, {0}, {2}, {1}}, DType::BF16},
      // Integers (generic kernel) and small complex products.
      {"int generic", {16, 40, 50}, {16, 50, 40}, {{0}, {0}, {2}, {1}}, DType::I32},
      {"int lanes", {4000, 3, 3}, {4000, 3, 3}, {{0}, {0}, {2}, {1}}, DType::I16},
      {"complex generic", {400, 6, 6}, {400, 6, 6}, {{0}, {0}, {2}, {1}}, DType::C64},
      // Reported as differing between serial() and parallel(2): batched complex BLAS products.
      {"batched c64", {2, 64, 64}, {2, 64, 64}, {{0}, {0}, {2}, {1}}, DType::C64},
      {"batched c128", {2, 64, 64}, {2, 64, 64}, {{0}, {0}, {2}, {1}}, DType::C128},
  };
  for (const auto& d : dets) {
    SCOPED_TRACE(d.name);
    const Tensor l = make(d.lhs, d.dtype, 21), r = make(d.rhs, d.dtype, 22);
    const auto want = bytes(l.dot_general(r, d.config, serial()));
    for (const int threads : {1, 2, 3, 8}) EXPECT_EQ(bytes(l.dot_general(r, d.config, parallel(threads))), want) << threads;
  }
  // The broadcast batch of the same report, through matmul.
  for (const DType dt : {DType::C64, DType::C128}) {
    const Tensor l = make({2, 2, 97, 130}, dt, 23), r = make({2, 1, 130, 85}, dt, 24);
    const auto want = bytes(l.matmul(r, serial()));
    for (const int threads : {2, 3}) EXPECT_EQ(bytes(l.matmul(r, parallel(threads))), want) << ta::name(dt) << " threads " << threads;
  }
  // The big ones are also right.
  check_dot_general(make({300, 96}, DType::F64, 21), make({96, 530}, DType::F64, 22), {{}, {}, {1}, {0}}, "blocked",
                    parallel(3));
}

// ---- batched small products ---------------------------------------------------------------

TEST(ContractionBatched, SmallProductsInEveryLayoutAndSize) {
  auto& e = parallel(2);
  for (const DType dt : {DType::F64, DType::F32, DType::I32, DType::U64, DType::F16, DType::C128})
    for (const std::int64_t s : {2, 3, 4, 5, 7, 8, 16, 32}) {
      const std::int64_t batch = 41;  // >= 32 (the lane kernel), not a multiple of any lane count
      const Tensor a = make({batch, s, s}, dt, 31), b = make({batch, s, s}, dt, 32);
      const DotGeneralConfig bmm{{0}, {0}, {2}, {1}};
      const std::string size = " " + std::to_string(s) + "x" + std::to_string(s);
      // Batch fastest (tensora's natural column-major layout).
      check_dot_general(a, b, bmm, "batch fastest" + size, e);
      // One dense matrix per batch (a permuted view, like a row-major [batch, s, s] array).
      const Tensor ap = make({s, s, batch}, dt, 33).permute({2, 0, 1}), bp = make({s, s, batch}, dt, 34).permute({2, 0, 1});
      check_dot_general(ap, bp, bmm, "matrix per batch" + size, e);
      // One operand broadcast over the batch; rectangular products.
      check_dot_general(make({1, s, s}, dt, 35).broadcast_to({batch, s, s}), b, bmm, "broadcast lhs" + size, e);
      check_dot_general(make({batch, s, 3}, dt, 36), make({3, batch, s + 1}, dt, 37), {{0}, {1}, {2}, {0}},
                        "rectangular" + size, e);
    }
}

TEST(ContractionBatched, RowMajorStacksAreComputedInCacheSizedChunks) {
  // A column-major result of row-major [batch, m, n] stacks has the batch fastest, which the
  // BLAS and the generic kernel cannot write; such a batch is computed in chunks of about
  // 256 KiB of results (cpu/gemm.cpp; smaller where that would leave a thread idle), each
  // copied out while in cache. On the serial engine the shapes give several chunks and a short
  // last one: 32 x 32 F64 products go 32 to a chunk, 96 x 96 F64 (the BLAS path) 8, 12 x 12
  // C128 112, 16 x 16 I32 256, 40 x 40 F16 (computed in F32) 32.
  // (Smaller F16 stacks and broadcast operands take the lane kernel, which writes in place.)
  struct Case {
    DType dtype;
    std::int64_t batch, m, k, n;
  };
  const std::vector<Case> cases{{DType::F64, 77, 32, 32, 32}, {DType::F64, 19, 96, 96, 96},
                                {DType::F32, 150, 20, 36, 28}, {DType::C128, 250, 12, 12, 12},
                                {DType::I32, 300, 16, 16, 16}, {DType::F16, 100, 40, 40, 40}};
  const DotGeneralConfig bmm{{0}, {0}, {2}, {1}};
  for (const Case& c : cases) {
    // Row-major stacks: column-major [k, m, batch] seen as [batch, m, k].
    const Tensor a = make({c.k, c.m, c.batch}, c.dtype, 51).permute({2, 1, 0});
    const Tensor b = make({c.n, c.k, c.batch}, c.dtype, 52).permute({2, 1, 0});
    check_dot_general(a, b, bmm, "row-major stacks", serial());
    const auto want = bytes(a.dot_general(b, bmm, serial()));
    for (const int threads : {2, 3}) EXPECT_EQ(bytes(a.dot_general(b, bmm, parallel(threads))), want) << threads;
  }
  // Two batch dims that fold ([40, 3, m, k], the first fastest), the same two that do not
  // ([3, 40, m, k] of that memory: the whole-batch path), and a broadcast operand (batch
  // stride 0).
  const DotGeneralConfig two{{0, 1}, {0, 1}, {3}, {2}};
  const Tensor a = make({32, 32, 40, 3}, DType::F64, 53), b = make({32, 32, 40, 3}, DType::F64, 54);
  check_dot_general(a.permute({2, 3, 1, 0}), b.permute({2, 3, 1, 0}), two, "two batch dims that fold", parallel(2));
  check_dot_general(a.permute({3, 2, 1, 0}), b.permute({3, 2, 1, 0}), two, "two batch dims that do not fold",
                    parallel(2));
  const Tensor one = make({40, 40, 1}, DType::F64, 55).permute({2, 1, 0}).broadcast_to({100, 40, 40});
  check_dot_general(one, make({40, 40, 100}, DType::F64, 56).permute({2, 1, 0}), bmm, "broadcast lhs", parallel(2));
}

TEST(ContractionBatched, EveryKernelInstructionSetAgrees) {
  // The kernels are compiled for AVX-512, AVX2 and baseline x86-64; each must give the
  // reference result (the CPU runs those it supports).
  for (const char* isa : {"avx2", "baseline", ""}) {
    if (!ta::cpu::gemm::force_kernel_isa(isa)) continue;
    SCOPED_TRACE(isa);
    for (const DType dt : {DType::F64, DType::F32, DType::U32, DType::I64}) {
      check_dot_general(make({50, 5, 4}, dt, 41), make({50, 4, 6}, dt, 42), {{0}, {0}, {2}, {1}}, "lanes");
      check_dot_general(make({37, 29}, dt, 43), make({29, 19}, dt, 44), {{}, {}, {1}, {0}}, "generic");
    }
  }
  ta::cpu::gemm::force_kernel_isa("");
}

TEST(ContractionBatched, PathsAreChosenByShape) {
  using ta::cpu::contraction_path;
  EXPECT_STREQ(contraction_path(DType::F64, 10000, 8, 8, 8), "lanes");
  EXPECT_STREQ(contraction_path(DType::F64, 1, 2048, 2048, 2048), "blas");
  EXPECT_STREQ(contraction_path(DType::F64, 1, 4, 4, 4), "generic");
  EXPECT_STREQ(contraction_path(DType::F64, 1, 64, 64, 64), "generic");
  EXPECT_STREQ(contraction_path(DType::F64, 1, 80, 80, 80), "blas");
  EXPECT_STREQ(contraction_path(DType::C128, 1, 16, 16, 16), "generic");
  EXPECT_STREQ(contraction_path(DType::C128, 1, 24, 24, 24), "blas");
  EXPECT_STREQ(contraction_path(DType::F64, 40, 4, 5, 2), "lanes");
  // With the thresholds the reference tests use, their "blas ..." cases (vectors included)
  // reach the BLAS.
  const SmallBlasThresholds small;
  EXPECT_STREQ(contraction_path(DType::F32, 1, 1, 1, 33000), "blas");
  EXPECT_STREQ(contraction_path(DType::F32, 1, 200, 1, 170), "blas");
  EXPECT_STREQ(contraction_path(DType::F32, 1, 1, 200, 170), "blas");
  EXPECT_STREQ(contraction_path(DType::F32, 1, 30, 35, 40), "blas");
  EXPECT_STREQ(contraction_path(DType::F64, 2, 33, 34, 40), "blas");
  EXPECT_STREQ(contraction_path(DType::C64, 2, 3, 4, 5), "generic");
  EXPECT_STREQ(contraction_path(DType::I32, 1, 512, 512, 512), "generic");
  EXPECT_STREQ(contraction_path(DType::F16, 1, 512, 512, 512), "blas");
  EXPECT_STREQ(contraction_path(DType::C64, 1000, 8, 8, 8), "generic");
}

// ---- the BLAS providers -------------------------------------------------------------------

TEST(ContractionBlas, ProvidersAgreeWithTheReferenceLoops) {
  // Every library that loads on this machine computes the same products (transpose flags and
  // leading dims included) as tensora's own loops.
  ta::cpu::BlasProvider* ref = ta::cpu::blas_by_name("reference");
  ASSERT_NE(ref, nullptr);
  const std::int64_t m = 37, n = 23, k = 41, ld = 50;
  std::vector<double> a(static_cast<std::size_t>(ld * ld)), b(a.size());
  std::uint64_t s = 5;
  for (auto& x : a) x = static_cast<double>(lcg(s) % 1000) / 100.0 - 5.0;
  for (auto& x : b) x = static_cast<double>(lcg(s) % 1000) / 100.0 - 5.0;
  for (const char* which : {"blis", "openblas"}) {
    ta::cpu::BlasProvider* p = ta::cpu::blas_by_name(which);
    if (p == nullptr) continue;
    SCOPED_TRACE(p->name());
    // BLIS 0.9 is the provider that can hold a call on its large-product kernels.
    EXPECT_EQ(p->has_large_path(), p->name().rfind("BLIS 0.9", 0) == 0);
    for (const auto path : {ta::cpu::BlasPath::Any, ta::cpu::BlasPath::Large})
      for (const auto ta_ : {ta::cpu::BlasOp::N, ta::cpu::BlasOp::T})
        for (const auto tb_ : {ta::cpu::BlasOp::N, ta::cpu::BlasOp::T}) {
          std::vector<double> c1(static_cast<std::size_t>(ld * n), 7.0), c2 = c1;
          ref->gemm(ta_, tb_, m, n, k, 1.5, a.data(), ld, b.data(), ld, 0.5, c1.data(), ld);
          p->gemm(ta_, tb_, m, n, k, 1.5, a.data(), ld, b.data(), ld, 0.5, c2.data(), ld, path);
          for (std::size_t i = 0; i < c1.size(); ++i)
            ASSERT_NEAR(c1[i], c2[i], 1e-9 * (1 + std::abs(c1[i]))) << i;
          std::vector<std::complex<float>> za(a.begin(), a.end()), zb(b.begin(), b.end());
          std::vector<std::complex<float>> z1(static_cast<std::size_t>(ld * n)), z2(z1.size());
          ref->gemm(ta_, tb_, m, n, k, {1, 0}, za.data(), ld, zb.data(), ld, {0, 0}, z1.data(), ld);
          p->gemm(ta_, tb_, m, n, k, {1, 0}, za.data(), ld, zb.data(), ld, {0, 0}, z2.data(), ld,
                  path);
          for (std::size_t i = 0; i < z1.size(); ++i)
            ASSERT_LE(std::abs(z1[i] - z2[i]), 1e-3f * (1 + std::abs(z1[i]))) << i;
        }
  }
}

TEST(ContractionBlas, OpenBlasKeepsTheProvidersThreadCountWhateverAnotherLibrarySetSince) {
  // OpenBLAS's thread count is process-wide; LibTorch or NumPy in the same process may change
  // it behind the provider's back. Each GEMM puts the provider's own count back, as tensora's
  // LAPACK calls do (docs/linalg.md, "Threads").
  ta::cpu::BlasProvider* openblas = ta::cpu::blas_by_name("openblas");
  if (openblas == nullptr) GTEST_SKIP() << "no OpenBLAS";
  void* handle = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr) << "the provider loaded it";
  const auto get_threads = reinterpret_cast<int (*)()>(::dlsym(handle, "openblas_get_num_threads"));
  const auto set_threads = reinterpret_cast<void (*)(int)>(::dlsym(handle, "openblas_set_num_threads"));
  ASSERT_TRUE(get_threads != nullptr && set_threads != nullptr);
  ASSERT_EQ(openblas->threads(), 1);
  const std::vector<double> a{1, 2, 3, 4}, b{5, 6, 7, 8};
  std::vector<double> c(4);
  set_threads(2);  // what the other library does
  openblas->gemm(ta::cpu::BlasOp::N, ta::cpu::BlasOp::N, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2);
  EXPECT_EQ(get_threads(), 1);
  EXPECT_EQ(c, (std::vector<double>{23, 34, 31, 46}));
  ::dlclose(handle);
}

TEST(ContractionBlas, AutomaticChoiceRunsKernelsMadeForThisCpu) {
  // BLIS 0.9 runs its plain C "generic" kernels on CPUs it predates (AMD Zen 5: a fifth of the
  // speed of its skx kernels there). tensora gives it skx on any CPU with their AVX-512 subset,
  // and the automatic choice takes a library with kernels for this CPU over one without.
  const char* forced = std::getenv("TENSORA_BLAS");
  if (forced != nullptr && *forced != '\0') GTEST_SKIP() << "TENSORA_BLAS=" << forced;
  __builtin_cpu_init();
  const bool skx = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  const char* arch = std::getenv("BLIS_ARCH_TYPE");  // a user's choice is kept
  ta::cpu::BlasProvider* blis = ta::cpu::blas_by_name("blis");
  if (blis != nullptr && blis->name().rfind("BLIS 0.9", 0) == 0 && skx && (arch == nullptr || std::string(arch) == "0")) {
    EXPECT_TRUE(blis->tuned_for_cpu()) << blis->name();
  }
  bool any_tuned = false;
  for (const char* which : {"blis", "openblas"})
    if (ta::cpu::BlasProvider* p = ta::cpu::blas_by_name(which)) any_tuned = any_tuned || p->tuned_for_cpu();
  if (any_tuned) {
    EXPECT_TRUE(ta::cpu::blas().tuned_for_cpu()) << ta::cpu::blas().name();
  }
}
