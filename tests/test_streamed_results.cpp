// Flat results of simd::kStreamFlatBytes (16 MiB) and more are written with non-temporal stores
// (docs/ops.md, "Streaming stores"), by the op-by-op SIMD kernels and by fused vector programs.
// Their values must be bitwise those of the same ops on pieces small enough to be stored
// ordinarily: on every x86 target Highway built (the best alone in Debug builds), serial and with
// 3 threads, with a tail that is not a whole vector, into a destination that is not aligned
// (streaming skipped) and in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "cpu/simd.hpp"
#include "simd_targets.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
using ta::CpuEngine;
using ta::DType;
using ta::Tensor;

using tensora_test::bytes_of;

// The smallest streamed length plus an odd tail.
std::int64_t streamed_length(DType d) {
  return ta::simd::kStreamFlatBytes / static_cast<std::int64_t>(ta::size_of(d)) + 77;
}

// f on the whole of x (and y) against f on four pieces, each below the streaming threshold.
template <class F>
void expect_same_as_pieces(const Tensor& x, const Tensor& y, F f, const std::string& label) {
  SCOPED_TRACE(label);
  const Tensor whole = f(x, y);
  ASSERT_EQ(whole.shape(), x.shape());
  ASSERT_GE(whole.numel() * static_cast<std::int64_t>(ta::size_of(whole.dtype())), ta::simd::kStreamFlatBytes);
  const std::int64_t n = x.numel(), piece = n / 4 + 1;
  for (std::int64_t lo = 0; lo < n; lo += piece) {
    const std::int64_t hi = std::min(n, lo + piece);
    const Tensor part = f(x.slice(0, lo, hi), y.slice(0, lo, hi));
    ASSERT_LT(part.numel() * static_cast<std::int64_t>(ta::size_of(part.dtype())), ta::simd::kStreamFlatBytes);
    EXPECT_TRUE(bytes_of(whole.slice(0, lo, hi)) == bytes_of(part)) << "elements " << lo << ".." << hi;
  }
}

std::vector<CpuEngine> engines() { return tensora_test::serial_and_three_threads(); }

TEST(StreamedResults, FlatOpsEqualTheirUnstreamedPieces) {
  for (const std::int64_t target : tensora_test::x86_targets_for_large_tests()) {
    const tensora_test::TargetMock mock(target);
    for (CpuEngine& e : engines()) {
      if (e.threads() > 1 && target != tensora_test::x86_targets().front()) continue;  // threads: best target
      for (const DType d : {DType::F32, DType::F64}) {
        const std::int64_t n = streamed_length(d);
        const Tensor x = tensora_test::mixed_values(d, 31, n), y = tensora_test::mixed_values(d, 32, n);
        const Tensor two = Tensor::full({}, 2.0, ta::TensorOptions(ta::Device::cpu(), d));
        const std::string label = std::string(hwy::TargetName(target)) + " " + std::string(ta::name(d)) +
                                  " threads " + std::to_string(e.threads());
        expect_same_as_pieces(x, y, [&](const Tensor& a, const Tensor& b) { return a.add(b, e); }, "add " + label);
        expect_same_as_pieces(x, y, [&](const Tensor& a, const Tensor&) { return a.mul(1.5, e); }, "mul " + label);
        expect_same_as_pieces(x, y, [&](const Tensor& a, const Tensor&) { return two.sub(a, e); }, "rsub " + label);
        expect_same_as_pieces(x, y, [&](const Tensor& a, const Tensor&) { return a.neg(e); }, "neg " + label);
        expect_same_as_pieces(x, y, [&](const Tensor& a, const Tensor&) { return a.exp(e); }, "exp " + label);
      }
    }
  }
}

// An `_into` destination one element past an aligned address is written with ordinary stores;
// an in-place op reads each vector before its streamed store replaces it.
TEST(StreamedResults, UnalignedAndInPlaceDestinationsHoldTheSameValues) {
  CpuEngine e = CpuEngine::parallel(3);
  const std::int64_t n = streamed_length(DType::F32);
  const Tensor x = tensora_test::mixed_values(DType::F32, 33, n), y = tensora_test::mixed_values(DType::F32, 34, n);
  const Tensor want = x.slice(0, 0, n / 2).mul(y.slice(0, 0, n / 2), e);  // unstreamed
  const Tensor buffer = Tensor::zeros({n + 1}, ta::TensorOptions(ta::Device::cpu(), DType::F32));
  const Tensor shifted = buffer.slice(0, 1, n + 1);
  x.mul_into(y, e, shifted);
  EXPECT_TRUE(bytes_of(shifted.slice(0, 0, n / 2)) == bytes_of(want));
  const Tensor inplace = x.mul(1.0, e);
  inplace.mul_into(y, e, inplace);
  EXPECT_TRUE(bytes_of(inplace.slice(0, 0, n / 2)) == bytes_of(want));
  EXPECT_TRUE(bytes_of(inplace) == bytes_of(shifted));
}

// Transposed operands into a transposed destination coalesce to one run per chunk, which
// streams like a flat pass; pieces of whole columns of the base are below the threshold.
TEST(StreamedResults, OperandsSharingATransposedLayoutEqualTheirUnstreamedPieces) {
  for (CpuEngine& e : engines()) {
    const ta::Shape base{2053, 2048};  // 16.8 MB of F32
    const std::int64_t n = ta::numel(base);
    const Tensor a = tensora_test::mixed_values(DType::F32, 36, n).reshape(base);
    const Tensor b = tensora_test::mixed_values(DType::F32, 37, n).reshape(base);
    const Tensor dest = Tensor::zeros(base, ta::TensorOptions(ta::Device::cpu(), DType::F32)).transpose();
    a.transpose().sub_into(b.transpose(), e, dest);
    const Tensor got = dest.transpose();
    for (std::int64_t lo = 0; lo < base[1]; lo += 512) {
      const Tensor want = a.slice(1, lo, lo + 512).sub(b.slice(1, lo, lo + 512), e);
      EXPECT_TRUE(bytes_of(got.slice(1, lo, lo + 512)) == bytes_of(want))
          << "columns " << lo << ".. threads " << e.threads();
    }
  }
}

// The traced division chain of docs/BENCHMARKS.md as one vector program; its result streamed.
TEST(StreamedResults, FusedProgramsEqualTheDirectOpsOnUnstreamedPieces) {
  for (const std::int64_t target : tensora_test::x86_targets_for_large_tests()) {
    const tensora_test::TargetMock mock(target);
    for (CpuEngine& e : engines()) {
      if (e.threads() > 1 && target != tensora_test::x86_targets().front()) continue;
      for (const DType d : {DType::F32, DType::F64}) {
        const std::int64_t n = streamed_length(d);
        auto xt = ta::TracedTensor::input("x", d, {n});
        const auto out = (((xt * 1.5 + 0.25) * xt - 0.5) / (xt * xt + 1.0)).maximum(-0.25);
        const ta::Program program = ta::GraphCompiler().compile({out});
        ASSERT_EQ(program.count("fused"), 1u);
        const Tensor x = tensora_test::mixed_values(d, 35, n);
        const Tensor got = ta::Runtime().run(program, e, {x})[0];
        const std::string label = std::string(hwy::TargetName(target)) + " " + std::string(ta::name(d)) +
                                  " threads " + std::to_string(e.threads());
        expect_same_as_pieces(x, x, [&](const Tensor& a, const Tensor&) {
          if (a.numel() == n) return got;
          return a.mul(1.5, e).add(0.25, e).mul(a, e).sub(0.5, e).div(a.mul(a, e).add(1.0, e), e).maximum(-0.25, e);
        }, "fused chain " + label);
      }
    }
  }
}

}  // namespace
