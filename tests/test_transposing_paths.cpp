// The transposing paths of elementwise ops (src/cpu/elementwise_loop.hpp): an allocating op
// on transposed or permuted inputs writes a column-major result through tiles (in-register
// transposes, staged buffers, or the SIMD tile kernels). Those results must be bitwise the
// flat path's: the same op on the inputs' own (contiguous) layout, transposed back as a view.
// Sizes are odd, so every tile edge and every block edge is hit, and above one kernel grain
// (65536 elements), where the tiles start; every element size (1, 2, 4, 8, 16 bytes); serial
// and 3 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensora/dlpack.hpp"
#include "tensora/tensora.hpp"
#include "simd_targets.hpp"
#include "test_support.hpp"

namespace {

using tensora::CpuEngine;
using tensora::DType;
using tensora::Tensor;

using tensora_test::bytes_of;

// Values with signs, fractions, NaN and signed zeros (test_support.hpp).
Tensor values(DType d, std::uint64_t seed, std::int64_t n) { return tensora_test::mixed_values(d, seed, n); }

// A layout of `flat` (column-major base of shape `base`) viewed through `axes`, with the base
// itself: op(view) must equal op(base) viewed through the same axes.
struct Layout {
  const char* name;
  tensora::Shape base;
  std::vector<std::int64_t> axes;
};
const std::vector<Layout> kLayouts = {
    {"transposed 233x301", {233, 301}, {1, 0}},
    {"reversed 97x101x7", {97, 101, 7}, {2, 1, 0}},
    {"inner pair swapped 97x101x7", {97, 101, 7}, {1, 0, 2}},
};

std::vector<CpuEngine> engines() { return tensora_test::serial_and_three_threads(); }

// f(target, engine) on every x86 target for large tests, serially, and on 3 threads on the best
// target only (threads and targets are independent choices; their product would be minutes).
template <class F>
void for_each_target_and_engine(F&& f) {
  for (const std::int64_t target : tensora_test::x86_targets_for_large_tests()) {
    const tensora_test::TargetMock mock(target);
    for (CpuEngine& e : engines())
      if (e.threads() == 1 || target == tensora_test::x86_targets().front()) f(target, e);
  }
}

void expect_same(const Tensor& want, const Tensor& got, const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_TRUE(got.is_contiguous()) << "the allocating form promises a column-major result";
  EXPECT_TRUE(bytes_of(got) == bytes_of(want));
}

const std::vector<DType> kBinaryDtypes = {DType::I8,  DType::U8,  DType::I16, DType::F16, DType::BF16, DType::I32,
                                          DType::F32, DType::I64, DType::F64, DType::C64, DType::C128};

}  // namespace

TEST(TransposingPaths, BinaryOpsOnTransposedInputsEqualTheFlatPath) {
  for (CpuEngine& e : engines())
    for (const Layout& lay : kLayouts)
      for (DType d : kBinaryDtypes)
        for (const char* op : {"add", "sub", "mul", "maximum"}) {
          if (std::string(op) == "maximum" && tensora::is_complex(d)) continue;
          const std::int64_t n = tensora::numel(lay.base);
          const Tensor a = values(d, 1, n).reshape(lay.base), b = values(d, 2, n).reshape(lay.base);
          const Tensor at = a.permute(lay.axes), bt = b.permute(lay.axes);
          auto apply = [&](const Tensor& x, const Tensor& y) {
            const std::string o = op;
            return o == "add"   ? x.add(y, e)
                   : o == "sub" ? x.sub(y, e)
                   : o == "mul" ? x.mul(y, e)
                                : x.maximum(y, e);
          };
          const std::string label = std::string(op) + " " + std::string(tensora::name(d)) + " " + lay.name + " threads " +
                                    std::to_string(e.threads());
          // Both operands transposed: the flat path is the op on the bases.
          expect_same(apply(a, b).permute(lay.axes), apply(at, bt), label + ", both transposed");
          // One operand transposed, one column-major; and a broadcast scalar.
          const Tensor c = values(d, 3, n).reshape(at.shape());
          expect_same(apply(at.contiguous(), c), apply(at, c), label + ", one transposed");
          expect_same(apply(c, at.contiguous()), apply(c, at), label + ", the other one transposed");
          const Tensor s = values(d, 4, 1).reshape({});
          expect_same(apply(a, s).permute(lay.axes), apply(at, s), label + ", with a scalar");
        }
}

TEST(TransposingPaths, UnaryOpsOnTransposedInputsEqualTheFlatPath) {
  for (CpuEngine& e : engines())
    for (const Layout& lay : kLayouts)
      for (DType d : kBinaryDtypes) {
        const std::int64_t n = tensora::numel(lay.base);
        const Tensor a = values(d, 5, n).reshape(lay.base);
        const Tensor at = a.permute(lay.axes);
        const std::string label =
            std::string(tensora::name(d)) + " " + lay.name + " threads " + std::to_string(e.threads());
        if (d != DType::U8) expect_same(a.neg(e).permute(lay.axes), at.neg(e), "neg " + label);
        expect_same(a.abs(e).permute(lay.axes), at.abs(e), "abs " + label);
        if (tensora::is_complex(d)) expect_same(a.conj(e).permute(lay.axes), at.conj(e), "conj " + label);
        if (tensora::is_floating(d) || tensora::is_complex(d)) {
          // The SIMD polynomial ops: the tile kernels must round like the flat kernels.
          expect_same(a.exp(e).permute(lay.axes), at.exp(e), "exp " + label);
          expect_same(a.tanh(e).permute(lay.axes), at.tanh(e), "tanh " + label);
        }
      }
}

// Copies (cpu::copy, src/cpu/copy_kernel.cpp): the Tensor methods that copy (duplicate,
// contiguous, to_device, reshape's copy, copy_to_buffer in both orders) run on a serial engine
// of the device, the direct ops' copies (concat here) on the caller's engine. Every element
// size, odd sizes, permutations that cross the fastest axis in tiles (transposed, batch moved
// first or last as the contraction layer does), a reversed view (negative strides) and a
// broadcast one (stride 0); compared with the reference engine's element-by-element copy.
TEST(TransposingPaths, CopiesOfPermutedViewsEqualTheReferenceCopy) {
  const std::vector<Layout> views = {
      {"transposed 233x301", {233, 301}, {1, 0}},
      {"reversed axes 97x101x7", {97, 101, 7}, {2, 1, 0}},
      {"batch first 33x45x19", {33, 45, 19}, {2, 0, 1}},
      {"batch last 19x33x45", {19, 33, 45}, {1, 2, 0}},
      {"inner pair swapped 97x101x7", {97, 101, 7}, {1, 0, 2}},
  };
  tensora::ReferenceEngine ref;
  for (CpuEngine& e : engines())
    for (DType d : {DType::Bool, DType::I8, DType::F16, DType::F32, DType::F64, DType::C128})
      for (const Layout& v : views) {
        const std::int64_t n = tensora::numel(v.base);
        const Tensor base = d == DType::Bool ? values(DType::I32, 21, n).cast(d, e).reshape(v.base)
                                             : values(d, 21, n).reshape(v.base);
        std::vector<Tensor> sources = {base.permute(v.axes), base.permute(v.axes).reverse({0})};
        if (v.base.size() == 2) sources.push_back(base.slice(1, 0, 1).expand({233, 301}).transpose());
        for (const Tensor& src : sources) {
          const std::string label = std::string(tensora::name(d)) + " " + v.name + " " + tensora::to_string(src.strides()) +
                                    " threads " + std::to_string(e.threads());
          const Tensor want = tensora::concat({src}, 0, ref);
          expect_same(want, src.duplicate(), "duplicate " + label);
          expect_same(want, src.contiguous(), "contiguous " + label);
          expect_same(want, src.to_device(src.device()), "to_device " + label);
          expect_same(want, tensora::concat({src}, 0, e), "concat " + label);
          expect_same(want.reshape({n}), src.reshape({n}), "reshape " + label);
          std::vector<unsigned char> row_major(bytes_of(want).size());
          src.copy_to_buffer(row_major.data(), tensora::Layout::RowMajor);
          std::vector<std::int64_t> reversed(src.shape().size());
          for (std::size_t k = 0; k < reversed.size(); ++k) reversed[k] = static_cast<std::int64_t>(reversed.size() - 1 - k);
          EXPECT_TRUE(row_major == bytes_of(tensora::concat({src.permute(reversed)}, 0, ref))) << "row-major " << label;
        }
      }
}

TEST(TransposingPaths, CastsOfTransposedInputsEqualTheFlatPath) {
  const std::vector<std::pair<DType, DType>> pairs = {
      {DType::Bool, DType::F32}, {DType::F32, DType::Bool}, {DType::I8, DType::C128}, {DType::F16, DType::F64},
      {DType::F32, DType::F64},  {DType::F64, DType::F32},  {DType::C128, DType::C64}, {DType::I64, DType::F16}};
  for (CpuEngine& e : engines())
    for (const Layout& lay : kLayouts)
      for (auto [from, to] : pairs) {
        const std::int64_t n = tensora::numel(lay.base);
        const Tensor a = values(from == DType::Bool ? DType::I32 : from, 6, n).cast(from, e).reshape(lay.base);
        const std::string label = std::string(tensora::name(from)) + " -> " + std::string(tensora::name(to)) + " " + lay.name +
                                  " threads " + std::to_string(e.threads());
        expect_same(a.cast(to, e).permute(lay.axes), a.permute(lay.axes).cast(to, e), label);
      }
}

// The tile kernels' wide blocks (N x N, N = the target's F32 or F64 lanes; the casts between
// the two convert as they load) on every x86 target Highway built: results of 8 MiB and more
// are written with non-temporal stores when their columns are aligned (kStreamBytes in
// elementwise_loop.hpp): 1200 rows are (4800 and 9600 bytes a column), 1201 are not; 1799
// columns leave a partial strip of blocks; 233 x 301 stays in the caches. With a column-major
// input beside the transposed one, and for the 1201-row results that cannot be streamed,
// tiles are 2 KiB of rows tall, so those rows span several tiles with a partial one at the end.
TEST(TransposingPaths, WideBlocksAndStreamedResultsEqualTheFlatPath) {
  const std::vector<tensora::Shape> bases = {{1799, 1200}, {1799, 1201}, {301, 233}};
  for_each_target_and_engine([&](std::int64_t target, CpuEngine& e) {
    for (DType d : {DType::F32, DType::F64})
      for (const tensora::Shape& base : bases) {
        const std::int64_t n = tensora::numel(base);
        const Tensor a = values(d, 11, n).reshape(base), b = values(d, 12, n).reshape(base);
        const Tensor at = a.transpose(), bt = b.transpose();
        const std::string label = std::string(hwy::TargetName(target)) + " " + std::string(tensora::name(d)) + " " +
                                  tensora::to_string(base) + " threads " + std::to_string(e.threads());
        expect_same(a.add(b, e).transpose(), at.add(bt, e), "add, both transposed, " + label);
        const Tensor c = values(d, 13, n).reshape(at.shape());
        expect_same(at.contiguous().mul(c, e), at.mul(c, e), "mul, one transposed, " + label);
        expect_same(c.sub(at.contiguous(), e), c.sub(at, e), "sub, the other one transposed, " + label);
        expect_same(a.neg(e).transpose(), at.neg(e), "neg " + label);
        expect_same(a.exp(e).transpose(), at.exp(e), "exp " + label);
        const DType other = d == DType::F32 ? DType::F64 : DType::F32;  // converted in the tile kernel
        expect_same(a.cast(other, e).transpose(), at.cast(other, e), "cast " + label);
      }
  });
}

// The C128 tile kernels (complex_tile.cpp: one 128-bit vector per element) on every x86
// target: results of 8 MiB and more are streamed when the output is 16-byte aligned; 1201 rows
// leave a partial block of 4 rows (and of 8 rows, with a lone last row, in the C64 cast), 1799
// columns a partial strip of 4; straight, crossed and scalar operands.
TEST(TransposingPaths, ComplexTileKernelsEqualTheFlatPath) {
  const std::vector<tensora::Shape> bases = {{1799, 1200}, {1799, 1201}, {301, 233}};
  for_each_target_and_engine([&](std::int64_t target, CpuEngine& e) {
    for (const tensora::Shape& base : bases) {
      const std::int64_t n = tensora::numel(base);
      const Tensor a = values(DType::C128, 16, n).reshape(base), b = values(DType::C128, 17, n).reshape(base);
      const Tensor at = a.transpose(), bt = b.transpose();
      const std::string label = std::string(hwy::TargetName(target)) + " " + tensora::to_string(base) + " threads " +
                                std::to_string(e.threads());
      expect_same(a.add(b, e).transpose(), at.add(bt, e), "add, both transposed, " + label);
      const Tensor c = values(DType::C128, 18, n).reshape(at.shape());
      expect_same(c.sub(at.contiguous(), e), c.sub(at, e), "sub, the other one transposed, " + label);
      const Tensor s = values(DType::C128, 19, 1).reshape({});
      expect_same(a.sub(s, e).transpose(), at.sub(s, e), "sub a scalar, " + label);
      expect_same(a.neg(e).transpose(), at.neg(e), "neg " + label);
      expect_same(a.conj(e).transpose(), at.conj(e), "conj " + label);
      expect_same(a.cast(DType::C64, e).transpose(), at.cast(DType::C64, e), "cast to C64 " + label);
    }
  });
}

// A C128 destination need only be 8-byte aligned (each part's alignment: a DLPack import may
// start there), so the streamed stores, which need 16, must not be used: 9.4 MiB, into form.
TEST(TransposingPaths, ComplexTileKernelsWriteAnEightByteAlignedDestination) {
  CpuEngine e = CpuEngine::serial();
  const tensora::Shape base{769, 801};
  const std::int64_t n = tensora::numel(base);
  std::vector<double> buffer(2 * static_cast<std::size_t>(n) + 2);
  double* first = buffer.data() + (reinterpret_cast<std::uintptr_t>(buffer.data()) % 16 == 0 ? 1 : 0);
  std::int64_t shape[2] = {801, 769}, strides[2] = {1, 801};  // column-major, in elements
  auto* m = new DLManagedTensorVersioned{};
  m->version = DLPackVersion{1, 0};
  m->dl_tensor.data = first;
  m->dl_tensor.device = DLDevice{kDLCPU, 0};
  m->dl_tensor.ndim = 2;
  m->dl_tensor.dtype = DLDataType{kDLComplex, 128, 1};
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = strides;
  m->deleter = [](DLManagedTensorVersioned* self) { delete self; };
  const Tensor dest = tensora::from_dlpack(m);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(dest.element_ptr()) % 16, 8u);
  const Tensor a = values(DType::C128, 20, n).reshape(base);
  a.transpose().neg_into(e, dest);
  expect_same(a.neg(e).transpose().contiguous(), dest.contiguous(), "neg into an 8-byte aligned C128 tensor");
  a.transpose().add_into(a.transpose(), e, dest);
  expect_same(a.add(a, e).transpose().contiguous(), dest.contiguous(), "add into an 8-byte aligned C128 tensor");
}

// Staged tiles stream results of 64 MiB and more (kStreamStagedBytes) out of a buffer, a
// column piece at a time: 2049-row C128 columns start at every alignment, so the copies' heads
// and tails are hit; a cast to F64 and a complex op, serial and 3 threads.
TEST(TransposingPaths, LargeStagedResultsStreamedOutEqualTheFlatPath) {
  for (CpuEngine& e : engines()) {
    const tensora::Shape base{2048, 2049};
    const std::int64_t n = tensora::numel(base);
    const std::string threads = " threads " + std::to_string(e.threads());
    const Tensor a = values(DType::C128, 14, n).reshape(base);
    // mul has no C128 tile kernel (it is not part-wise): staged.
    expect_same(a.mul(a, e).transpose(), a.transpose().mul(a.transpose(), e), "mul C128" + threads);
    // Copies of 64 MiB and more take the same staged, streamed tiles (cpu::copy).
    tensora::ReferenceEngine ref;
    const Tensor want = tensora::concat({a.transpose()}, 0, ref);
    expect_same(want, tensora::concat({a.transpose()}, 0, e), "concat C128" + threads);
    if (e.threads() == 1) expect_same(want, a.transpose().contiguous(), "contiguous C128");
    const Tensor f = values(DType::F32, 15, 2 * n).reshape({4096, 2049});
    expect_same(f.cast(DType::F64, e).transpose(), f.transpose().cast(DType::F64, e), "F32 -> F64" + threads);
  }
}

// Spot values, so that the comparisons above cannot pass on two equally wrong paths.
TEST(TransposingPaths, ATransposedAddHasTheRightValues) {
  CpuEngine e = CpuEngine::parallel(3);
  const Tensor a = values(DType::F32, 7, 233 * 301).reshape({233, 301});
  const Tensor b = values(DType::F32, 8, 233 * 301).reshape({233, 301});
  const Tensor got = a.transpose().add(b.transpose(), e);
  ASSERT_EQ(got.shape(), (tensora::Shape{301, 233}));
  std::vector<float> av(233 * 301), bv(233 * 301), gv(233 * 301);
  a.copy_to_buffer(av.data(), tensora::Layout::ColMajor);
  b.copy_to_buffer(bv.data(), tensora::Layout::ColMajor);
  got.copy_to_buffer(gv.data(), tensora::Layout::ColMajor);
  for (std::int64_t i : {0, 1, 7, 128, 300})
    for (std::int64_t j : {0, 3, 64, 232}) {
      const float want = av[j + 233 * i] + bv[j + 233 * i];  // got(i, j) = a(j, i) + b(j, i)
      const float have = gv[i + 301 * j];
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(have)) << i << ", " << j;
      else EXPECT_EQ(have, want) << i << ", " << j;
    }
}

// Contiguous runs of complex, integer and cast kernels take a typed loop the compiler
// vectorizes; strided runs (here every other element) take the byte-pointer loop. Both must
// give the same bits, NaN and signed zeros included.
TEST(TransposingPaths, StridedRunsEqualTheContiguousTypedLoop) {
  CpuEngine e = CpuEngine::serial();
  for (DType d : kBinaryDtypes) {
    const Tensor a = values(d, 8, 2 * 1001).reshape({2 * 1001});
    const Tensor strided = a.slice(0, 0, std::nullopt, 2), dense = strided.contiguous();
    ASSERT_FALSE(strided.is_contiguous());
    const std::string label = std::string(tensora::name(d));
    expect_same(dense.abs(e), strided.abs(e), "abs " + label);
    if (d != DType::U8) expect_same(dense.neg(e), strided.neg(e), "neg " + label);
    if (tensora::is_complex(d)) {
      expect_same(dense.exp(e), strided.exp(e), "exp " + label);
      expect_same(dense.real(e), strided.real(e), "real " + label);
    }
    for (DType to : {DType::F64, DType::C64, DType::I32, DType::Bool})  // the same dtype: the view itself
      if (to != d) expect_same(dense.cast(to, e), strided.cast(to, e), "cast " + label + " -> " + std::string(tensora::name(to)));
  }
}

// copy_to_buffer borrows the caller's buffer as a tensor's storage; an empty tensor's buffer
// may be null (an empty std::vector's data()), which a borrowing storage could mistake for one
// of its own to free (it did: bytes_in_use wrapped and every later allocation failed).
TEST(TransposingPaths, CopyingAnEmptyTensorLeavesTheAllocatorAlone) {
  const tensora::Device cpu = tensora::Device::cpu();
  const std::size_t before = tensora::memory_stats(cpu).bytes_in_use;
  for (const tensora::Layout layout : {tensora::Layout::ColMajor, tensora::Layout::RowMajor})
    Tensor::empty({0, 3}, DType::F32, cpu).transpose().copy_to_buffer(nullptr, layout);
  EXPECT_EQ(tensora::memory_stats(cpu).bytes_in_use, before);
  EXPECT_EQ(Tensor::zeros({2}, tensora::TensorOptions(DType::F32)).to_vec<float>(), (std::vector<float>{0.0f, 0.0f}));
}
