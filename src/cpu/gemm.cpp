// dot_general on the CPU. The operands are viewed as [batch..., M..., K...] and
// [batch..., K..., N...] (permuted views, no copy), each dim group is folded into one
// dimension where the strides allow it, and the product runs as a batch of matrix products
// C(m x n) = A(m x k) B(k x n) on one of three paths:
//   blas    F32/F64/C64/C128 products of some size: the BLAS provider, one single-threaded
//           call per (batch, block of output columns or rows);
//   lanes   many tiny products: tensora's lane kernel, vectorized across the batch;
//   generic everything else (integers, small or few products): tensora's tiled kernel.
// An operand whose layout a path cannot take (dims that do not fold, a matrix without a unit
// stride for BLAS, a batch that is not the fastest axis for lanes) or whose dtype is computed
// in another one (F16/BF16 in F32, narrow integers in U32) is copied once into the layout the
// path wants (cpu::copy, a tiled copy). Every engine computes each element with the same
// arithmetic in the same order, so serial and parallel results are bitwise equal: a BLAS
// product is cut into one block of columns per thread (a cut changes no element's sum), the
// generic kernel's blocks depend on the shapes only.
#include "cpu/gemm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <numeric>
#include <optional>

#include "core/dispatch.hpp"
#include "core/tensor_internals.hpp"
#include "cpu/blas_provider.hpp"
#include "cpu/gemm_kernels.hpp"
#include "cpu/kernels.hpp"

namespace tensora::cpu {

namespace {

using Index = std::vector<std::int64_t>;

enum class Path { Blas, Lanes, Generic };

// Tunables; docs/contractions.md has the measurements behind them.
constexpr double kLanesMaxWork = 32.0 * 32 * 32;      // m*n*k of one product on the lane kernel
constexpr std::int64_t kLanesMinBatch = 32;           // fewer products: one at a time
// Real products below 80^3 skip the BLAS (complex: 24^3): BLIS costs ~3 us per call, and the
// generic kernel is as fast up to about there (docs/contractions.md).
std::atomic<double> g_blas_min_work{80.0 * 80 * 80};
std::atomic<double> g_blas_min_work_complex{24.0 * 24 * 24};
constexpr double kTaskWork = 1 << 18;                 // multiply-adds per parallel task, at least
constexpr double kSplitMinWork = 1 << 21;             // one product is cut into blocks above this
constexpr std::int64_t kSplitMinBatch = 8;            // with this many products, never cut one
constexpr std::int64_t kSplitMinExtent = 512;         // nor a product narrower than this
constexpr std::int64_t kBlockWide = 512;              // block width from an extent of 1024
// BLAS blocks: at least this wide. BLIS computes products with an extent below its "sup"
// thresholds (up to 512 on zen) with other kernels, so a narrower block of a product that is
// above them would change bits (seen on AMD EPYC: 143-row blocks of a 1001x333x777 F32 product).
constexpr std::int64_t kBlasMinBlock = 512;
// Unless the product is held on the BLAS's large-product kernels (BlasPath::Large, where the
// provider offers it): then blocks only need to be worth a call. A product takes that path
// when it is cut-sized (kSplitMinWork) and no extent is below this, where the large kernels
// are as fast as the library's own pick (docs/contractions.md) -- the same for every engine.
constexpr std::int64_t kLargePathMinExtent = 256;
constexpr std::int64_t kLargePathMinBlock = 128;

// The dtype a product is computed in: F16/BF16 in F32 (rounded once at the end), integers in
// unsigned arithmetic of at least 32 bits (wraps modulo 2^bits, then truncates).
DType compute_dtype(DType d) {
  switch (d) {
    case DType::F16:
    case DType::BF16: return DType::F32;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::U8:
    case DType::U16:
    case DType::U32: return DType::U32;
    case DType::I64:
    case DType::U64: return DType::U64;
    default: return d;
  }
}

Path choose(DType ct, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const bool complex = ct == DType::C64 || ct == DType::C128;
  if (!complex && batch >= kLanesMinBatch && work <= kLanesMaxWork) return Path::Lanes;
  if ((ct == DType::F32 || ct == DType::F64) && work >= g_blas_min_work.load(std::memory_order_relaxed))
    return Path::Blas;
  if (complex && work >= g_blas_min_work_complex.load(std::memory_order_relaxed)) return Path::Blas;
  return Path::Generic;
}

// The same bytes read as another dtype of the same size (integers: the U32/U64 compute view).
Tensor as_dtype(const Tensor& t, DType d) {
  return TensorInternals::reinterpret(t, d);
}

bool reinterpretable(DType from, DType to) {
  return from == to || (is_integer(from) && is_integer(to) && size_of(from) == size_of(to));
}

// dst = src elementwise; dtypes may differ (a value cast), layouts may differ (a tiled copy).
void fill(const Tensor& dst, const Tensor& src, Engine& engine) {
  if (reinterpretable(src.dtype(), dst.dtype())) copy(dst, as_dtype(src, dst.dtype()), engine);
  else cast(dst, src, engine);
}

// An uninitialized dense tensor of `shape` in dtype `ct` whose dims lie in memory in `order`
// (fastest first).
Tensor alloc_in_order(const Shape& shape, const Index& order, DType ct, Device device) {
  const std::size_t r = shape.size();
  Shape mem(r);
  for (std::size_t i = 0; i < r; ++i) mem[i] = shape[static_cast<std::size_t>(order[i])];
  Index inverse(r);
  for (std::size_t i = 0; i < r; ++i) inverse[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  return Tensor::empty(mem, ct, device).permute(inverse);
}

// An uninitialized tensor of `shape` ([batch(nb)..., rest...]) in dtype `ct`, with the batch
// dims fastest in memory (the lane kernel's layout) or slowest (one dense matrix per batch).
Tensor alloc_layout(const Shape& shape, std::size_t nb, DType ct, bool batch_fastest, Device device) {
  Index order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  if (!batch_fastest) std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(nb), order.end());
  return alloc_in_order(shape, order, ct, device);
}

Tensor compact(const Tensor& view, std::size_t nb, DType ct, bool batch_fastest, Engine& engine) {
  Tensor dst = alloc_layout(view.shape(), nb, ct, batch_fastest, view.device());
  fill(dst, view, engine);
  return dst;
}

struct Dim {
  std::int64_t size = 1, stride = 0;
};

// Folds dims [begin, end) of t (first fastest) into one; nullopt when the strides do not allow
// it. Extent-1 dims are skipped; no dims gives {1, 0}.
std::optional<Dim> fold(const Tensor& t, std::size_t begin, std::size_t end) {
  Dim g;
  bool any = false;
  for (std::size_t d = begin; d < end; ++d) {
    const std::int64_t n = t.shape()[d], s = t.strides()[d];
    if (n == 1) continue;
    if (!any) {
      g = {n, s};
      any = true;
    } else {
      if (s != g.stride * g.size) return std::nullopt;
      g.size *= n;
    }
  }
  return g;
}

// BLAS form of a rows x cols matrix with strides (rs, cs): op N (column-major, ld = cs) or
// op T (row-major, ld = rs), with ld >= the extent BLAS requires.
struct BlasForm {
  bool ok = false;
  BlasOp op = BlasOp::N;
  std::int64_t ld = 1;
};
BlasForm blas_form(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs) {
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<std::int64_t>(1, rows)))
    return {true, BlasOp::N, cols == 1 ? std::max<std::int64_t>(1, rows) : cs};
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<std::int64_t>(1, cols)))
    return {true, BlasOp::T, rows == 1 ? std::max<std::int64_t>(1, cols) : rs};
  return {};
}

// Offsets of the three operands for a flat (column-major) batch index; dims that fold for all
// three are folded.
struct BatchIndex {
  Index sizes;
  std::array<Index, 3> strides;
  BatchIndex(const std::array<const Tensor*, 3>& t, std::size_t nb) {
    for (std::size_t d = 0; d < nb; ++d) {
      const std::int64_t n = t[0]->shape()[d];
      if (n == 1) continue;
      bool folds = !sizes.empty();
      for (int k = 0; k < 3 && folds; ++k)
        folds = t[k]->strides()[d] == strides[k].back() * sizes.back();
      if (folds) {
        sizes.back() *= n;
        continue;
      }
      sizes.push_back(n);
      for (int k = 0; k < 3; ++k) strides[k].push_back(t[k]->strides()[d]);
    }
  }
  std::array<std::int64_t, 3> offsets(std::int64_t b) const {
    std::array<std::int64_t, 3> off{0, 0, 0};
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      const std::int64_t i = b % sizes[d];
      b /= sizes[d];
      for (int k = 0; k < 3; ++k) off[k] += i * strides[k][d];
    }
    return off;
  }
};

// One matrix product of the batch: C(m x n) = A(m x k) B(k x n), strides in elements.
template <class T>
struct Product {
  std::int64_t m, n, k;
  gemm::Mat<T> a, b;
  gemm::MutMat<T> c;
};

// Blocks of one product on the generic path: fixed by the shapes (never by the thread count),
// since its edge tiles take other code than full ones. The cut goes along the larger of m and
// n; blocks are wide (512 from an extent of 1024, 256 from 512), smaller products run whole.
std::int64_t generic_block_width(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t d = std::max(m, n);
  if (batch >= kSplitMinBatch || static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kSplitMinWork)
    return d;
  if (d < kSplitMinExtent) return d;
  const std::int64_t w = d >= 2 * kBlockWide ? kBlockWide : kBlockWide / 2;
  return std::min(d, w);
}

// Blocks of one product on the BLAS path: one per engine thread the batch leaves idle. Every
// block is a call that packs the whole other operand again (10% of a 2048 product in 4 blocks
// on one thread), so a serial engine makes one call. The thread count may decide the cut
// because a cut of C's columns (or rows) changes no element's arithmetic as long as each block
// stays on the BLAS's large-product kernels (held there by BlasPath::Large, or by blocks of at
// least kBlasMinBlock): the BLAS blocks k from k alone and computes edge tiles with the same
// micro-kernel (docs/contractions.md; the bitwise serial/parallel tests cover products that
// split).
std::int64_t blas_block_width(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k,
                              int threads, BlasPath path) {
  const std::int64_t d = std::max(m, n);
  if (threads <= batch || static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kSplitMinWork)
    return d;
  const std::int64_t per_product = (threads + batch - 1) / batch;
  const std::int64_t min_block = path == BlasPath::Large ? kLargePathMinBlock : kBlasMinBlock;
  const std::int64_t blocks = std::min(per_product, std::max<std::int64_t>(1, d / min_block));
  const std::int64_t w = (d + blocks - 1) / blocks;
  return std::min(d, (w + 15) / 16 * 16);  // whole 16-column panels
}

template <class T>
Product<T> block_of(const Product<T>& p, std::int64_t begin, std::int64_t end) {
  Product<T> q = p;
  if (p.n >= p.m) {
    q.n = end - begin;
    q.b.p += begin * p.b.cs;
    q.c.p += begin * p.c.cs;
  } else {
    q.m = end - begin;
    q.a.p += begin * p.a.rs;
    q.c.p += begin * p.c.rs;
  }
  return q;
}

// The kernels a whole product's BLAS calls use: decided from its shape alone, so a serial
// engine's one call and a parallel engine's blocks compute every element alike.
BlasPath blas_path(std::int64_t m, std::int64_t n, std::int64_t k) {
  const bool large =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= kSplitMinWork &&
      std::min({m, n, k}) >= kLargePathMinExtent && blas().has_large_path();
  return large ? BlasPath::Large : BlasPath::Any;
}

template <class T>
void run_blas(const Product<T>& p, BlasPath path) {
  const BlasForm fa = blas_form(p.m, p.k, p.a.rs, p.a.cs), fb = blas_form(p.k, p.n, p.b.rs, p.b.cs);
  blas().gemm(fa.op, fb.op, p.m, p.n, p.k, T(1), p.a.p, fa.ld, p.b.p, fb.ld, T(0), p.c.p, p.c.cs,
              path);
}

template <class T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.element_ptr());
}
template <class T>
T* mutable_data_of(const Tensor& t) {
  return static_cast<T*>(const_cast<void*>(t.element_ptr()));
}

struct Views {
  Tensor a, b, c;  // [B.., M.., K..], [B.., K.., N..], [B.., M.., N..]
  std::size_t nb, nm, nk, nn;
  std::int64_t batch, m, n, k;
};

// BLAS and generic paths: one (batch, block) task after another, in parallel.
template <class T>
void run_matrices(Path path, const Views& v, Engine& engine) {
  const std::size_t nb = v.nb, nm = v.nm, nk = v.nk, nn = v.nn;
  const Dim am = *fold(v.a, nb, nb + nm), ak = *fold(v.a, nb + nm, nb + nm + nk);
  const Dim bk = *fold(v.b, nb, nb + nk), bn = *fold(v.b, nb + nk, nb + nk + nn);
  const Dim cm = *fold(v.c, nb, nb + nm), cn = *fold(v.c, nb + nm, nb + nm + nn);
  Product<T> base{v.m, v.n, v.k, {data_of<T>(v.a), am.stride, ak.stride}, {data_of<T>(v.b), bk.stride, bn.stride},
                  {mutable_data_of<T>(v.c), cm.stride, cn.stride}};
  // BLAS writes column-major C; a row-major C is computed as C^T = B^T A^T. The generic kernel
  // wants column-contiguous A (else it packs A per product): swap when B^T has that and A not.
  const bool swap_blas = path == Path::Blas && !(base.m == 1 || base.c.rs == 1);
  const bool swap_generic =
      path == Path::Generic && base.m > 1 && base.a.rs != 1 && (base.n == 1 || base.b.cs == 1);
  const bool swapped = swap_blas || swap_generic;
  if (swapped) {
    base = Product<T>{base.n, base.m, base.k, {base.b.p, base.b.cs, base.b.rs}, {base.a.p, base.a.cs, base.a.rs},
                      {base.c.p, base.c.cs, base.c.rs}};
  }
  if (path == Path::Blas && base.m == 1) base.c.rs = 1;
  if (path == Path::Blas && base.n == 1) base.c.cs = std::max<std::int64_t>(1, base.m);
  const BatchIndex index({&v.a, &v.b, &v.c}, nb);
  const std::int64_t split = std::max(base.m, base.n);
  const BlasPath kernels = path == Path::Blas ? blas_path(base.m, base.n, base.k) : BlasPath::Any;
  const std::int64_t width =
      path == Path::Blas
          ? blas_block_width(v.batch, base.m, base.n, base.k, engine.threads(), kernels)
          : generic_block_width(v.batch, base.m, base.n, base.k);
  const std::int64_t blocks = (split + width - 1) / width;
  const std::int64_t tasks = v.batch * blocks;
  auto task = [&](std::int64_t t) {
    const std::int64_t b = t / blocks, blk = t % blocks;
    const auto off = index.offsets(b);
    Product<T> p = base;
    p.a.p += off[swapped ? 1 : 0];
    p.b.p += off[swapped ? 0 : 1];
    p.c.p += off[2];
    if (blocks > 1) p = block_of(p, blk * width, std::min(split, (blk + 1) * width));
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      if (path == Path::Blas) return run_blas(p, kernels);
    }
    gemm::generic<T>(p.m, p.n, p.k, p.a, p.b, p.c);
  };
  const double per_task = static_cast<double>(base.m) * static_cast<double>(base.n) * static_cast<double>(base.k) /
                          static_cast<double>(blocks);
  const auto grain = static_cast<std::int64_t>(std::max(1.0, kTaskWork / std::max(1.0, per_task)));
  auto range = [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) task(t);
  };
  if (tasks <= grain) range(0, tasks);
  else engine.parallel_for(tasks, grain, range);
}

template <class T>
void run_lanes(const Views& v, Engine& engine) {
  const std::size_t nb = v.nb, nm = v.nm, nk = v.nk, nn = v.nn;
  const Dim ab = *fold(v.a, 0, nb), am = *fold(v.a, nb, nb + nm), ak = *fold(v.a, nb + nm, nb + nm + nk);
  const Dim bb = *fold(v.b, 0, nb), bk = *fold(v.b, nb, nb + nk), bn = *fold(v.b, nb + nk, nb + nk + nn);
  const Dim cb = *fold(v.c, 0, nb), cm = *fold(v.c, nb, nb + nm), cn = *fold(v.c, nb + nm, nb + nm + nn);
  const T* a = data_of<T>(v.a);
  const T* b = data_of<T>(v.b);
  T* c = mutable_data_of<T>(v.c);
  const double work = static_cast<double>(v.m) * static_cast<double>(v.n) * static_cast<double>(v.k);
  std::int64_t grain = static_cast<std::int64_t>(std::max(1.0, kTaskWork / std::max(1.0, work)));
  grain = (grain + gemm::kLaneAlign - 1) / gemm::kLaneAlign * gemm::kLaneAlign;
  auto range = [&](std::int64_t q0, std::int64_t q1) {
    gemm::lanes<T>(q1 - q0, v.m, v.n, v.k, {a + q0 * ab.stride, am.stride, ak.stride}, ab.stride,
                   {b + q0 * bb.stride, bk.stride, bn.stride}, bb.stride, {c + q0 * cb.stride, cm.stride, cn.stride},
                   cb.stride);
  };
  if (v.batch <= grain) range(0, v.batch);
  else engine.parallel_for(v.batch, grain, range);
}

// Whether a rows x cols matrix with strides x, y has a unit-stride axis (a vector always does).
// The generic kernel takes any strides, but without one (a stack with the batch fastest) it
// reads, or stores, a cache line per element, and a dense copy is cheaper.
bool has_unit_axis(std::int64_t rows, std::int64_t cols, const Dim& x, const Dim& y) {
  return rows == 1 || cols == 1 || x.stride == 1 || y.stride == 1;
}

// Whether an operand view can be used in place on a path.
bool usable(const Tensor& t, DType ct, std::size_t nb, std::size_t g1, std::size_t g2, Path path, std::int64_t rows,
            std::int64_t cols) {
  if (!reinterpretable(t.dtype(), ct)) return false;
  const auto x = fold(t, nb, nb + g1), y = fold(t, nb + g1, nb + g1 + g2);
  if (!x || !y) return false;
  if (path == Path::Lanes) {
    const auto b = fold(t, 0, nb);
    return b && (b->stride == 0 || b->stride == 1);
  }
  if (path == Path::Blas) return blas_form(rows, cols, x->stride, y->stride).ok;
  return has_unit_axis(rows, cols, *x, *y);
}

bool usable_output(const Tensor& t, DType ct, std::size_t nb, std::size_t nm, std::size_t nn, Path path,
                   std::int64_t m, std::int64_t n) {
  if (!reinterpretable(t.dtype(), ct)) return false;
  const auto x = fold(t, nb, nb + nm), y = fold(t, nb + nm, nb + nm + nn);
  if (!x || !y) return false;
  if (path == Path::Lanes) return fold(t, 0, nb).has_value();
  if (path == Path::Blas) {
    const BlasForm f = blas_form(m, n, x->stride, y->stride);
    return f.ok && (m == 1 || n == 1 || x->stride != y->stride);  // BLAS writes C, so no aliasing
  }
  // A dense temporary transposed out once: 1.5x faster for 256 x 32^3 F32 (docs/BENCHMARKS.md).
  return has_unit_axis(m, n, *x, *y);
}

// A batch of products whose result cannot be written in place (a column-major result of
// row-major stacks has the batch fastest, and BLAS and the generic kernel write a matrix with
// a unit stride) goes through dense temporaries: in chunks of about this many bytes of
// results, each copied out while it is still in cache, instead of one temporary for the
// whole batch and a second pass over memory (docs/contractions.md has the measurements).
constexpr std::int64_t kChunkBytes = 256 << 10;

// Products per chunk for the chunked path, or 0 when the batch goes whole: the batch dims of
// both operands and the result must fold into one, and no product may be cut into blocks
// (the blocks of a product depend on the batch size, and a chunk must compute every element
// as the whole batch would; the chunk size may then follow the thread count, since it
// changes no element's arithmetic).
std::int64_t chunk_products(const Views& v, const Tensor& out, Path path, DType ct, int threads) {
  if (path == Path::Lanes || v.batch < 2) return 0;
  if (static_cast<double>(v.m) * static_cast<double>(v.n) * static_cast<double>(v.k) >= kSplitMinWork) return 0;
  if (!fold(v.a, 0, v.nb) || !fold(v.b, 0, v.nb) || !fold(out, 0, v.nb)) return 0;
  const auto round_to = [](std::int64_t x, std::int64_t unit) { return std::max(unit, x / unit * unit); };
  const std::int64_t bytes = std::max<std::int64_t>(1, v.m * v.n * static_cast<std::int64_t>(size_of(ct)));
  const std::int64_t line = std::max<std::int64_t>(1, 64 / static_cast<std::int64_t>(size_of(ct)));
  // Whole cache lines of the batch axis, and a chunk for every thread where the batch allows.
  std::int64_t products = round_to(kChunkBytes / bytes, line);
  products = std::min(products, round_to((v.batch + threads - 1) / threads, line));
  return products < v.batch ? products : 0;
}

// Products [b0, b0 + count) of a [batch.., rest..] view whose batch dims fold: one batch dim.
Tensor batch_slice(const Tensor& t, std::size_t nb, std::int64_t b0, std::int64_t count) {
  const Dim batch = *fold(t, 0, nb);
  Shape shape{count};
  Strides strides{batch.stride};
  shape.insert(shape.end(), t.shape().begin() + static_cast<std::ptrdiff_t>(nb), t.shape().end());
  strides.insert(strides.end(), t.strides().begin() + static_cast<std::ptrdiff_t>(nb), t.strides().end());
  return TensorInternals::restride(t, std::move(shape), std::move(strides), t.offset() + b0 * batch.stride);
}

// The chunked path: threads take whole chunks; inside one, the products and the copy run as
// the serial engine runs them, so every engine computes every element alike.
template <class T>
void run_chunks(Path path, const Views& v, const Tensor& out, std::int64_t products, DType ct, Engine& engine) {
  const std::int64_t chunks = (v.batch + products - 1) / products;
  // The temporaries' products are column-major, the order of the result's, so that each chunk
  // is copied out as one two-axis transpose with rows of the result's length. The generic
  // kernel is the exception: where run_matrices computes the transposed product (A not
  // column-contiguous, B^T so), its columns are C's rows, and it writes those 1.3x faster.
  const Dim am = *fold(v.a, v.nb, v.nb + v.nm), bn = *fold(v.b, v.nb + v.nk, v.nb + v.nk + v.nn);
  const bool row_major = path == Path::Generic && v.m > 1 && am.stride != 1 && (v.n == 1 || bn.stride == 1);
  Index order;  // memory order of [batch, M.., N..], fastest first
  auto append = [&](std::size_t begin, std::size_t end) {
    for (std::size_t d = begin; d < end; ++d) order.push_back(static_cast<std::int64_t>(d));
  };
  if (row_major) append(1 + v.nm, 1 + v.nm + v.nn);
  append(1, 1 + v.nm);
  if (!row_major) append(1 + v.nm, 1 + v.nm + v.nn);
  order.push_back(0);
  engine.parallel_for(chunks, 1, [&](std::int64_t c0, std::int64_t c1) {
    CpuEngine serial = CpuEngine::serial(out.device());
    for (std::int64_t c = c0; c < c1; ++c) {
      const std::int64_t b0 = c * products, count = std::min(products, v.batch - b0);
      Views chunk{batch_slice(v.a, v.nb, b0, count), batch_slice(v.b, v.nb, b0, count), Tensor(), 1, v.nm, v.nk,
                  v.nn, count, v.m, v.n, v.k};
      const Tensor dest = batch_slice(out, v.nb, b0, count);
      chunk.c = alloc_in_order(dest.shape(), order, ct, out.device());
      run_matrices<T>(path, chunk, serial);
      fill(dest, chunk.c, serial);
    }
  });
}

// The order of the contracted pairs: any order works if both sides use it; pick one in which
// the K dims of both operands fold (as given, by lhs strides, by rhs strides).
Index contract_order(const Tensor& lhs, const Tensor& rhs, const ContractionDims& d) {
  const std::size_t nk = d.lhs_contract.size();
  std::vector<Index> candidates;
  Index id(nk);
  std::iota(id.begin(), id.end(), 0);
  candidates.push_back(id);
  for (const Tensor* t : {&lhs, &rhs}) {
    const Index& dims = t == &lhs ? d.lhs_contract : d.rhs_contract;
    Index o = id;
    std::stable_sort(o.begin(), o.end(), [&](std::int64_t x, std::int64_t y) {
      return std::abs(t->strides()[static_cast<std::size_t>(dims[static_cast<std::size_t>(x)])]) <
             std::abs(t->strides()[static_cast<std::size_t>(dims[static_cast<std::size_t>(y)])]);
    });
    candidates.push_back(o);
  }
  auto folds = [&](const Tensor& t, const Index& dims, const Index& order) {
    Index perm;
    for (auto i : order) perm.push_back(dims[static_cast<std::size_t>(i)]);
    Tensor probe = t.permute([&] {
      Index all = perm;
      for (std::int64_t a = 0; a < t.rank(); ++a)
        if (std::find(perm.begin(), perm.end(), a) == perm.end()) all.push_back(a);
      return all;
    }());
    return fold(probe, 0, perm.size()).has_value();
  };
  int best_score = -1;
  Index best = id;
  for (const auto& o : candidates) {
    const int score = int(folds(lhs, d.lhs_contract, o)) * 2 + int(folds(rhs, d.rhs_contract, o));
    if (score > best_score) {
      best_score = score;
      best = o;
    }
  }
  return best;
}

}  // namespace

BlasThresholds set_blas_thresholds(BlasThresholds t) {
  return {g_blas_min_work.exchange(t.real), g_blas_min_work_complex.exchange(t.complex)};
}

const char* contraction_path(DType dtype, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  switch (choose(compute_dtype(dtype), batch, m, n, k)) {
    case Path::Blas: return "blas";
    case Path::Lanes: return "lanes";
    case Path::Generic: return "generic";
  }
  return "generic";
}

void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const ContractionDims& d, Engine& engine) {
  if (out.numel() == 0) return;
  Views v;
  v.nb = d.lhs_batch.size();
  v.nm = d.lhs_free.size();
  v.nk = d.lhs_contract.size();
  v.nn = d.rhs_free.size();
  auto prod = [](const Tensor& t, const Index& dims) {
    std::int64_t p = 1;
    for (auto x : dims) p *= t.shape()[static_cast<std::size_t>(x)];
    return p;
  };
  v.batch = prod(lhs, d.lhs_batch);
  v.m = prod(lhs, d.lhs_free);
  v.k = prod(lhs, d.lhs_contract);
  v.n = prod(rhs, d.rhs_free);
  if (v.k == 0) {
    const Tensor zero = Tensor::zeros({}, TensorOptions(out.device(), out.dtype()));
    copy(out, zero.broadcast_to(out.shape()), engine);
    return;
  }

  const Index order = contract_order(lhs, rhs, d);
  Index pa = d.lhs_batch, pb = d.rhs_batch;
  pa.insert(pa.end(), d.lhs_free.begin(), d.lhs_free.end());
  for (auto i : order) {
    pa.push_back(d.lhs_contract[static_cast<std::size_t>(i)]);
    pb.push_back(d.rhs_contract[static_cast<std::size_t>(i)]);
  }
  pb.insert(pb.end(), d.rhs_free.begin(), d.rhs_free.end());
  v.a = lhs.permute(pa);
  v.b = rhs.permute(pb);

  const DType ct = compute_dtype(out.dtype());
  Path path = choose(ct, v.batch, v.m, v.n, v.k);
  // Stacks of small matrices stored one dense matrix after another (a row-major [batch, m, k]
  // array, seen through a permuted view) would need both operands transposed into the lane
  // layout; product by product on the generic kernel streams through them instead.
  if (path == Path::Lanes && !usable(v.a, ct, v.nb, v.nm, v.nk, path, v.m, v.k) &&
      !usable(v.b, ct, v.nb, v.nk, v.nn, path, v.k, v.n) && usable(v.a, ct, v.nb, v.nm, v.nk, Path::Generic, v.m, v.k) &&
      usable(v.b, ct, v.nb, v.nk, v.nn, Path::Generic, v.k, v.n))
    path = Path::Generic;
  const bool batch_fastest = path == Path::Lanes;
  v.a = usable(v.a, ct, v.nb, v.nm, v.nk, path, v.m, v.k) ? as_dtype(v.a, ct) : compact(v.a, v.nb, ct, batch_fastest, engine);
  v.b = usable(v.b, ct, v.nb, v.nk, v.nn, path, v.k, v.n) ? as_dtype(v.b, ct) : compact(v.b, v.nb, ct, batch_fastest, engine);
  const bool direct = usable_output(out, ct, v.nb, v.nm, v.nn, path, v.m, v.n);
  const std::int64_t chunk = direct ? 0 : chunk_products(v, out, path, ct, engine.threads());
  if (!direct && chunk == 0) v.c = alloc_layout(out.shape(), v.nb, ct, batch_fastest, out.device());
  if (direct) v.c = as_dtype(out, ct);

  visit_dtype(ct, [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::uint32_t> ||
                  std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      if (chunk > 0) return run_chunks<T>(path, v, out, chunk, ct, engine);
      if constexpr (!is_complex_v<T>) {
        if (path == Path::Lanes) return run_lanes<T>(v, engine);
      }
      return run_matrices<T>(path, v, engine);
    }
  });
  if (!direct && chunk == 0) fill(out, v.c, engine);
}

}  // namespace tensora::cpu
