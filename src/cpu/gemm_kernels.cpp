// The kernels are written once as always-inline templates over the vector width (GCC vector
// extensions) and instantiated inside functions compiled for AVX-512, AVX2+FMA and baseline
// x86-64; one of them is picked at run time from cpuid.
#include "cpu/gemm_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

// Vector types as arguments of always-inline helpers: no ABI crosses a real call.
#pragma GCC diagnostic ignored "-Wpsabi"

#define TENSORA_KERNEL_INLINE [[gnu::always_inline]] inline

namespace tensora::cpu::gemm {

namespace {

// ---- vectors ----------------------------------------------------------------------------

template <class T, int VB>
struct Vec {
  static constexpr int L = VB / static_cast<int>(sizeof(T));
  typedef T V __attribute__((vector_size(VB)));
  TENSORA_KERNEL_INLINE static V load(const T* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  }
  TENSORA_KERNEL_INLINE static void store(T* p, const V& v) { std::memcpy(p, &v, sizeof(V)); }
  TENSORA_KERNEL_INLINE static V splat(T x) { return V{} + x; }
};

// ---- lanes: many tiny products, vectorized across the batch -------------------------------

// How many lane groups ahead the operands' runs are prefetched (packed) and the results' runs
// (stored in place): in a batch-fastest stack each element of the matrices is its own stream
// (m k + k n + m n of them, more than the hardware prefetchers follow). Without it a 10000 x
// 8^3 F64 product on an AVX2 Zen 3 ran at a twelfth of its AVX-512 Zen 5 speed, the packing's
// loads taking half its time (perf).
constexpr std::int64_t kLaneAhead = 8;

// An R x C tile of C for L products: lanes of A(i, p) at a + i * ars + p * acs, of B(p, j) at
// b + p * brs + j * bcs (L consecutive elements each).
template <class T, int VB, int R, int C, std::int64_t FK>
TENSORA_KERNEL_INLINE void lane_tile(std::int64_t k_, const T* a, std::int64_t ars, std::int64_t acs, const T* b,
                                     std::int64_t brs, std::int64_t bcs, T* c, std::int64_t crs, std::int64_t ccs,
                                     std::int64_t c_bs) {
  using W = Vec<T, VB>;
  using V = typename W::V;
  const std::int64_t k = FK != 0 ? FK : k_;
  V acc[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) acc[i][j] = V{};
  for (std::int64_t p = 0; p < k; ++p) {
    V bv[C];
    for (int j = 0; j < C; ++j) bv[j] = W::load(b + p * brs + j * bcs);
    for (int i = 0; i < R; ++i) {
      const V av = W::load(a + i * ars + p * acs);
      for (int j = 0; j < C; ++j) acc[i][j] += av * bv[j];
    }
  }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T* dst = c + i * crs + j * ccs;
      if (c_bs == 1) {
        __builtin_prefetch(dst + kLaneAhead * W::L, 1);
        W::store(dst, acc[i][j]);
      } else {
        for (int l = 0; l < W::L; ++l) dst[l * c_bs] = acc[i][j][l];
      }
    }
}

template <class T, int VB, int C, std::int64_t FM, std::int64_t FK>
TENSORA_KERNEL_INLINE void lane_rows(std::int64_t m_, std::int64_t k, const T* a, std::int64_t ars, std::int64_t acs,
                                     const T* b, std::int64_t brs, std::int64_t bcs, T* c, std::int64_t crs,
                                     std::int64_t ccs, std::int64_t c_bs) {
  const std::int64_t m = FM != 0 ? FM : m_;
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4)
    lane_tile<T, VB, 4, C, FK>(k, a + i * ars, ars, acs, b, brs, bcs, c + i * crs, crs, ccs, c_bs);
  switch (m - i) {
    case 3: lane_tile<T, VB, 3, C, FK>(k, a + i * ars, ars, acs, b, brs, bcs, c + i * crs, crs, ccs, c_bs); break;
    case 2: lane_tile<T, VB, 2, C, FK>(k, a + i * ars, ars, acs, b, brs, bcs, c + i * crs, crs, ccs, c_bs); break;
    case 1: lane_tile<T, VB, 1, C, FK>(k, a + i * ars, ars, acs, b, brs, bcs, c + i * crs, crs, ccs, c_bs); break;
    default: break;
  }
}

// One group of L products.
template <class T, int VB, std::int64_t FM, std::int64_t FN, std::int64_t FK>
TENSORA_KERNEL_INLINE void lane_group(std::int64_t m, std::int64_t n_, std::int64_t k, const T* a, std::int64_t ars,
                                      std::int64_t acs, const T* b, std::int64_t brs, std::int64_t bcs, T* c,
                                      std::int64_t crs, std::int64_t ccs, std::int64_t c_bs) {
  const std::int64_t n = FN != 0 ? FN : n_;
  std::int64_t j = 0;
  if constexpr (VB >= 64) {  // 32 vector registers: 4 x 4 accumulators
    for (; j + 4 <= n; j += 4)
      lane_rows<T, VB, 4, FM, FK>(m, k, a, ars, acs, b + j * bcs, brs, bcs, c + j * ccs, crs, ccs, c_bs);
  }
  for (; j + 2 <= n; j += 2)
    lane_rows<T, VB, 2, FM, FK>(m, k, a, ars, acs, b + j * bcs, brs, bcs, c + j * ccs, crs, ccs, c_bs);
  if (j < n) lane_rows<T, VB, 1, FM, FK>(m, k, a, ars, acs, b + j * bcs, brs, bcs, c + j * ccs, crs, ccs, c_bs);
}

// A broadcast operand (batch stride 0) expanded once to L identical lanes per element, so the
// tile code only ever loads lane vectors.
template <class T, int L>
TENSORA_KERNEL_INLINE std::vector<T> expand_lanes(std::int64_t rows, std::int64_t cols, Mat<T> x) {
  std::vector<T> buf(static_cast<std::size_t>(rows * cols * L));
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i)
      std::fill_n(buf.data() + (i + j * rows) * L, L, x.p[i * x.rs + j * x.cs]);
  return buf;
}

// One lane group's L-lane runs of a rows x cols operand (batch fastest) copied to a dense
// buffer. The runs lie a batch-stride apart; with a batch that is a multiple of a page's worth
// of elements (4096 F64) all of them fall in one cache set, and the tiles, which reread them,
// would miss on every load (measured: 4096 products of 8 x 8 as slow as 10000).
template <class T, int L>
TENSORA_KERNEL_INLINE void pack_lanes(T* buf, std::int64_t rows, std::int64_t cols, const T* x, std::int64_t rs,
                                      std::int64_t cs) {
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) {
      const T* run = x + i * rs + j * cs;
      __builtin_prefetch(run + kLaneAhead * L);
      std::memcpy(buf + (i + j * rows) * L, run, L * sizeof(T));
    }
}

template <class T, int VB, std::int64_t FM, std::int64_t FN, std::int64_t FK>
TENSORA_KERNEL_INLINE void lanes_sized(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a,
                                       std::int64_t a_bs, Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  constexpr int L = Vec<T, VB>::L;
  const std::int64_t groups = count / L;
  if (groups > 0) {
    // Both operands are read from dense lane buffers: expanded once (broadcast) or packed per
    // group.
    std::vector<T> abuf = a_bs == 0 ? expand_lanes<T, L>(m, k, a) : std::vector<T>(static_cast<std::size_t>(m * k * L));
    std::vector<T> bbuf = b_bs == 0 ? expand_lanes<T, L>(k, n, b) : std::vector<T>(static_cast<std::size_t>(k * n * L));
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t q = g * L;
      if (a_bs != 0) pack_lanes<T, L>(abuf.data(), m, k, a.p + q, a.rs, a.cs);
      if (b_bs != 0) pack_lanes<T, L>(bbuf.data(), k, n, b.p + q, b.rs, b.cs);
      lane_group<T, VB, FM, FN, FK>(m, n, k, abuf.data(), L, m * L, bbuf.data(), L, k * L, c.p + q * c_bs, c.rs,
                                    c.cs, c_bs);
    }
  }
  // The last count % L products, one at a time in the same order of operations.
  for (std::int64_t q = groups * L; q < count; ++q) {
    const T* aq = a.p + q * a_bs;
    const T* bq = b.p + q * b_bs;
    T* cq = c.p + q * c_bs;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        T acc{};
        for (std::int64_t p = 0; p < k; ++p) acc += aq[i * a.rs + p * a.cs] * bq[p * b.rs + j * b.cs];
        cq[i * c.rs + j * c.cs] = acc;
      }
  }
}

template <class T, int VB>
TENSORA_KERNEL_INLINE void lanes_impl(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a,
                                      std::int64_t a_bs, Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  // Fixed-size instances for the common square sizes: loops fully unrolled.
  if (m == n && n == k) {
    switch (m) {
      case 2: return lanes_sized<T, VB, 2, 2, 2>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
      case 3: return lanes_sized<T, VB, 3, 3, 3>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
      case 4: return lanes_sized<T, VB, 4, 4, 4>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
      case 8: return lanes_sized<T, VB, 8, 8, 8>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
      case 16: return lanes_sized<T, VB, 16, 16, 16>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
      default: break;
    }
  }
  lanes_sized<T, VB, 0, 0, 0>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
}

// ---- generic: one product, register tiles over rows x columns -----------------------------

// RV vectors of rows x C columns of C; A is column-contiguous (lda between columns).
template <class T, int VB, int RV, int C>
TENSORA_KERNEL_INLINE void gen_tile(std::int64_t kc, const T* a, std::int64_t lda, const T* b, std::int64_t brs,
                                    std::int64_t bcs, T* c, std::int64_t crs, std::int64_t ccs, bool accumulate) {
  using W = Vec<T, VB>;
  using V = typename W::V;
  constexpr int L = W::L;
  V acc[RV][C];
  for (int j = 0; j < C; ++j)
    for (int v = 0; v < RV; ++v) {
      if (!accumulate) {
        acc[v][j] = V{};
      } else if (crs == 1) {
        acc[v][j] = W::load(c + v * L + j * ccs);
      } else {
        T tmp[L];
        for (int l = 0; l < L; ++l) tmp[l] = c[(v * L + l) * crs + j * ccs];
        acc[v][j] = W::load(tmp);
      }
    }
  for (std::int64_t p = 0; p < kc; ++p) {
    V av[RV];
    for (int v = 0; v < RV; ++v) av[v] = W::load(a + v * L + p * lda);
    for (int j = 0; j < C; ++j) {
      const V bj = W::splat(b[p * brs + j * bcs]);
      for (int v = 0; v < RV; ++v) acc[v][j] += av[v] * bj;
    }
  }
  for (int j = 0; j < C; ++j)
    for (int v = 0; v < RV; ++v) {
      if (crs == 1) {
        W::store(c + v * L + j * ccs, acc[v][j]);
      } else {
        for (int l = 0; l < L; ++l) c[(v * L + l) * crs + j * ccs] = acc[v][j][l];
      }
    }
}

template <class T, int VB, int RV>
TENSORA_KERNEL_INLINE void gen_tile_cols(int cols, std::int64_t kc, const T* a, std::int64_t lda, const T* b,
                                         std::int64_t brs, std::int64_t bcs, T* c, std::int64_t crs, std::int64_t ccs,
                                         bool accumulate) {
  switch (cols) {
    case 4: return gen_tile<T, VB, RV, 4>(kc, a, lda, b, brs, bcs, c, crs, ccs, accumulate);
    case 3: return gen_tile<T, VB, RV, 3>(kc, a, lda, b, brs, bcs, c, crs, ccs, accumulate);
    case 2: return gen_tile<T, VB, RV, 2>(kc, a, lda, b, brs, bcs, c, crs, ccs, accumulate);
    default: return gen_tile<T, VB, RV, 1>(kc, a, lda, b, brs, bcs, c, crs, ccs, accumulate);
  }
}

template <class T, int VB>
TENSORA_KERNEL_INLINE void generic_real(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b,
                                        MutMat<T> c) {
  constexpr int L = Vec<T, VB>::L;
  constexpr std::int64_t kMR = 2 * L, kNR = 4, kKC = 256, kMC = 512;
  // Column-contiguous A (rows at unit stride); pack it when it is not (small ones on the stack).
  constexpr std::int64_t kStackElems = 2048;
  T stack_buf[kStackElems];
  std::vector<T> heap_buf;
  const T* ap = a.p;
  std::int64_t lda = a.cs;
  if (a.rs != 1 && m > 1) {
    T* packed = stack_buf;
    if (m * k > kStackElems) {
      heap_buf.resize(static_cast<std::size_t>(m * k));
      packed = heap_buf.data();
    }
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t i = 0; i < m; ++i) packed[i + p * m] = a.p[i * a.rs + p * a.cs];
    ap = packed;
    lda = m;
  }
  for (std::int64_t p0 = 0; p0 < k; p0 += kKC) {
    const std::int64_t kc = std::min(kKC, k - p0);
    const bool accumulate = p0 > 0;
    for (std::int64_t i0 = 0; i0 < m; i0 += kMC) {
      const std::int64_t i1 = std::min(m, i0 + kMC);
      for (std::int64_t j0 = 0; j0 < n; j0 += kNR) {
        const int cols = static_cast<int>(std::min(kNR, n - j0));
        const T* bj = b.p + p0 * b.rs + j0 * b.cs;
        T* cj = c.p + j0 * c.cs;
        std::int64_t i = i0;
        for (; i + kMR <= i1; i += kMR)
          gen_tile_cols<T, VB, 2>(cols, kc, ap + i + p0 * lda, lda, bj, b.rs, b.cs, cj + i * c.rs, c.rs, c.cs, accumulate);
        for (; i + L <= i1; i += L)
          gen_tile_cols<T, VB, 1>(cols, kc, ap + i + p0 * lda, lda, bj, b.rs, b.cs, cj + i * c.rs, c.rs, c.cs, accumulate);
        for (; i < i1; ++i)
          for (int j = 0; j < cols; ++j) {
            T acc = accumulate ? cj[i * c.rs + j * c.cs] : T{};
            for (std::int64_t p = 0; p < kc; ++p) acc += ap[i + (p0 + p) * lda] * bj[p * b.rs + j * b.cs];
            cj[i * c.rs + j * c.cs] = acc;
          }
      }
    }
  }
}

// Complex products without the library's NaN/Inf recovery (as BLAS does).
template <class R>
TENSORA_KERNEL_INLINE std::complex<R> cmul(std::complex<R> x, std::complex<R> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

template <class T>
TENSORA_KERNEL_INLINE void generic_complex(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b,
                                           MutMat<T> c) {
  std::vector<T> col(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < n; ++j) {
    std::fill(col.begin(), col.end(), T{});
    for (std::int64_t p = 0; p < k; ++p) {
      const T bpj = b.p[p * b.rs + j * b.cs];
      const T* ap = a.p + p * a.cs;
      for (std::int64_t i = 0; i < m; ++i) col[static_cast<std::size_t>(i)] += cmul(ap[i * a.rs], bpj);
    }
    for (std::int64_t i = 0; i < m; ++i) c.p[i * c.rs + j * c.cs] = col[static_cast<std::size_t>(i)];
  }
}

template <class T, int VB>
TENSORA_KERNEL_INLINE void generic_impl(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b,
                                        MutMat<T> c) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) c.p[i * c.rs + j * c.cs] = T{};
    return;
  }
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    generic_complex<T>(m, n, k, a, b, c);
  else
    generic_real<T, VB>(m, n, k, a, b, c);
}

// ---- per-ISA instances --------------------------------------------------------------------

#define TENSORA_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi2")))
#define TENSORA_TARGET_AVX2 __attribute__((target("avx2,fma,bmi2")))

template <class T>
TENSORA_TARGET_AVX512 void lanes_avx512(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a,
                                        std::int64_t a_bs, Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  lanes_impl<T, 64>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
}
template <class T>
TENSORA_TARGET_AVX2 void lanes_avx2(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a,
                                    std::int64_t a_bs, Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  lanes_impl<T, 32>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
}
template <class T>
void lanes_base(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, std::int64_t a_bs,
                Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  lanes_impl<T, 16>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
}

template <class T>
TENSORA_TARGET_AVX512 void generic_avx512(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b,
                                          MutMat<T> c) {
  generic_impl<T, 64>(m, n, k, a, b, c);
}
template <class T>
TENSORA_TARGET_AVX2 void generic_avx2(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b, MutMat<T> c) {
  generic_impl<T, 32>(m, n, k, a, b, c);
}
template <class T>
void generic_base(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b, MutMat<T> c) {
  generic_impl<T, 16>(m, n, k, a, b, c);
}

enum class Isa { Avx512, Avx2, Base };

Isa detect_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq"))
    return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
  return Isa::Base;
}

std::atomic<Isa>& isa_slot() {
  static std::atomic<Isa> isa{detect_isa()};
  return isa;
}

Isa isa() { return isa_slot().load(std::memory_order_relaxed); }

}  // namespace

template <class T>
void generic(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b, MutMat<T> c) {
  switch (isa()) {
    case Isa::Avx512: return generic_avx512<T>(m, n, k, a, b, c);
    case Isa::Avx2: return generic_avx2<T>(m, n, k, a, b, c);
    case Isa::Base: return generic_base<T>(m, n, k, a, b, c);
  }
}

template <class T>
void lanes(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, std::int64_t a_bs, Mat<T> b,
           std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs) {
  if (count <= 0 || m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (std::int64_t q = 0; q < count; ++q)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) c.p[q * c_bs + i * c.rs + j * c.cs] = T{};
    return;
  }
  switch (isa()) {
    case Isa::Avx512: return lanes_avx512<T>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
    case Isa::Avx2: return lanes_avx2<T>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
    case Isa::Base: return lanes_base<T>(count, m, n, k, a, a_bs, b, b_bs, c, c_bs);
  }
}

const char* kernel_isa() {
  switch (isa()) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Base: return "baseline";
  }
  return "baseline";
}

bool force_kernel_isa(std::string_view name) {
  const Isa best = detect_isa();
  Isa want;
  if (name == "avx512") want = Isa::Avx512;
  else if (name == "avx2") want = Isa::Avx2;
  else if (name == "baseline") want = Isa::Base;
  else if (name.empty()) want = best;
  else return false;
  if (static_cast<int>(want) < static_cast<int>(best)) return false;  // the CPU lacks it
  isa_slot().store(want, std::memory_order_relaxed);
  return true;
}

#define TENSORA_GEMM_INSTANTIATE(T)                                                                              \
  template void generic<T>(std::int64_t, std::int64_t, std::int64_t, Mat<T>, Mat<T>, MutMat<T>);
TENSORA_GEMM_INSTANTIATE(float)
TENSORA_GEMM_INSTANTIATE(double)
TENSORA_GEMM_INSTANTIATE(std::uint32_t)
TENSORA_GEMM_INSTANTIATE(std::uint64_t)
TENSORA_GEMM_INSTANTIATE(std::complex<float>)
TENSORA_GEMM_INSTANTIATE(std::complex<double>)
#undef TENSORA_GEMM_INSTANTIATE

#define TENSORA_LANES_INSTANTIATE(T)                                                                             \
  template void lanes<T>(std::int64_t, std::int64_t, std::int64_t, std::int64_t, Mat<T>, std::int64_t, Mat<T>,  \
                         std::int64_t, MutMat<T>, std::int64_t);
TENSORA_LANES_INSTANTIATE(float)
TENSORA_LANES_INSTANTIATE(double)
TENSORA_LANES_INSTANTIATE(std::uint32_t)
TENSORA_LANES_INSTANTIATE(std::uint64_t)
#undef TENSORA_LANES_INSTANTIATE

}  // namespace tensora::cpu::gemm
