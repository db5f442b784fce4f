// Small-matrix kernels: as many matrices at a time as a vector register has lanes (8 F64 on
// AVX-512), each element of those matrices one vector, one matrix per lane (GCC vector types of
// the register's width, so selects stay single instructions). The algorithms are LAPACK's
// unblocked ones (getf2, getrs, potf2), cyclic Jacobi for eigh, and for eigenvalues alone from
// order 6 a Householder tridiagonalization and implicit QL (sytd2, then tql1), written once over
// a lane vector; where LAPACK branches per matrix (the pivot row, a zero pivot, a failing minor,
// a deflation), the lanes select. eigh runs two such groups side by side (its rotations are chains on the
// divider that one group leaves idle most of the time). At order 8, whose lane matrix is twice
// the register file, LU, its solves and Cholesky run a column at a time in registers
// (left-looking, the same operations in the same order), reading and writing the operands in
// place where a group's matrices are consecutive in a batch-fastest stack. Compiled once per Highway target
// (AVX-512, AVX2 and the baseline) and picked with the GEMM kernels' choice
// (gemm::kernel_isa). Every helper is compiled for its target, not only the entry point: GCC
// lowers a helper's wide vector compares for the default target before inlining it, one
// scalar compare per lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/small_linalg.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "cpu/small_linalg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>

#include "backend/matrix_batch.hpp"
#include "cpu/gemm_kernels.hpp"
#include "ops/det_product.hpp"

// Vector types as arguments of always-inline helpers: no ABI crosses a real call.
#pragma GCC diagnostic ignored "-Wpsabi"

#ifndef TENSORA_CPU_SMALL_LINALG_ONCE
#define TENSORA_CPU_SMALL_LINALG_ONCE
#define TENSORA_KERNEL_INLINE [[gnu::always_inline]] inline
// Before each loop of the kernels that keep a column of a compile-time order in registers: only
// unrolled do its entries get constant indices, and GCC's own limits leave order 8's nested
// loops rolled (the column then lives on the stack).
#define TENSORA_UNROLL_ORDER _Pragma("GCC unroll 16")

namespace tensora::cpu::small_linalg {

// The operands' matrix views, made once per range in baseline code: called from the kernels'
// AVX-512 code, MatrixBatch's out-of-line constructor paid a transition stall per group.
struct Batches {
  backend::MatrixBatch a;       // the matrices (lu for LuSolve)
  backend::MatrixBatch out;     // the result (eigenvalues for Eigh: one column)
  backend::MatrixBatch second;  // pivots (LuFactor's result, LuSolve's operand) or eigenvectors
  backend::MatrixBatch rhs;     // LuSolve's and Solve's right-hand sides
  // Solve's right-hand side is one identity matrix broadcast over the batch (inv's): the lanes
  // then build p I from the pivots instead of gathering it and interchanging its rows.
  bool identity_rhs = false;

  Batches(const linalg_detail::Call& call, std::span<const Tensor> outs,
          std::span<const Tensor> ins)
      : a(ins[0]),
        out(outs[0], call.kind == linalg_detail::Kind::Eigh || call.kind == linalg_detail::Kind::Det ? 1 : 2),
        second(call.kind == linalg_detail::Kind::LuFactor  ? backend::MatrixBatch(outs[1], 1)
               : call.kind == linalg_detail::Kind::LuSolve ? backend::MatrixBatch(ins[1], 1)
               : call.kind == linalg_detail::Kind::Eigh && call.vectors
                   ? backend::MatrixBatch(outs[1])
                   : backend::MatrixBatch(ins[0])),
        rhs(call.kind == linalg_detail::Kind::LuSolve ? ins[2]
            : call.kind == linalg_detail::Kind::Solve ? ins[1]
                                                      : ins[0]) {}
};

}  // namespace tensora::cpu::small_linalg
#endif  // TENSORA_CPU_SMALL_LINALG_ONCE

HWY_BEFORE_NAMESPACE();
namespace tensora::cpu::small_linalg::HWY_NAMESPACE {
namespace {

using backend::MatrixBatch;
using linalg_detail::Call;
using linalg_detail::Failure;
using linalg_detail::Kind;
using linalg_detail::Status;
using linalg_detail::Trans;

constexpr std::int64_t kMax = kMaxOrder;
// The largest order whose Jacobi sweeps are compiled unrolled: at kMax unrolling gained nothing
// and doubled the file's compile time, so eigh there runs the generic (N = 0) code.
constexpr int kMaxUnrolledJacobi = 4;

// A lane vector: VB bytes, the instruction set's register width, so every operation (selects
// included) maps to one instruction; kLanes matrices per vector.
template <class T, int VB>
struct Lanes {
  typedef T V __attribute__((vector_size(VB)));
};
template <class T, int VB>
using Vec = typename Lanes<T, VB>::V;
// A lane vector's bytes anywhere in memory (element-aligned, aliasing the elements): one vector
// load or store. In the AVX2 code a memcpy of a lane vector became two 16-byte moves each way
// (8x8 Cholesky: 24% of a group's instructions).
template <class T, int VB>
struct UnalignedLanes {
  typedef T V __attribute__((vector_size(VB), aligned(alignof(T)), may_alias));
};
template <class T, int VB>
using UnalignedVec = typename UnalignedLanes<T, VB>::V;
template <class T, int VB>
constexpr int kLanes = VB / static_cast<int>(sizeof(T));
static_assert(kGroup % kLanes<float, 64> == 0,
              "a group is whole lane vectors on every instruction set");

// A group's matrices as lane vectors in memory: element (r, c) of every lane is the vector at
// p + r * rs + c * cs. Either the operand itself (consecutive matrices of a batch-fastest
// stack: rs and cs its strides, read and written in place of a copy) or a lane buffer
// (rs = kLanes, cs = n kLanes). A transposed read or write swaps rs and cs.
// Each entry is read or written once per group, and prefetched `ahead` elements on: the same
// entry of a later group for an operand (its n^2 entries are as many streams, more than the
// hardware prefetchers follow; the gather prefetches alike), the entry itself (0) for a buffer.
template <class T, int VB>
struct LaneView {
  T* p;
  std::int64_t rs, cs;
  std::int64_t ahead = 0;
  TENSORA_KERNEL_INLINE Vec<T, VB> load(std::int64_t r, std::int64_t c) const {
    const T* at = p + r * rs + c * cs;
    __builtin_prefetch(at + ahead);
    return *reinterpret_cast<const UnalignedVec<T, VB>*>(at);
  }
  TENSORA_KERNEL_INLINE void store(std::int64_t r, std::int64_t c, Vec<T, VB> x) const {
    T* at = p + r * rs + c * cs;
    __builtin_prefetch(at + ahead, 1);
    *reinterpret_cast<UnalignedVec<T, VB>*>(at) = x;
  }
  // The matrices from column c on.
  TENSORA_KERNEL_INLINE LaneView from_column(std::int64_t c) const { return {p + c * cs, rs, cs, ahead}; }
};

template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> splat(T x) {
  return Vec<T, VB>{} + x;
}
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> abs_of(Vec<T, VB> x) {
  return x < splat<T, VB>(0) ? -x : x;
}
// Lane by lane: -fno-math-errno lets GCC make it one vector square root.
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> sqrt_of(Vec<T, VB> x) {
  for (int l = 0; l < kLanes<T, VB>; ++l) x[l] = std::sqrt(x[l]);
  return x;
}

// A lane vector compare's result (all bits set in the lanes where it holds).
template <class T, int VB>
using Mask = decltype(Vec<T, VB>{} < Vec<T, VB>{});

template <class T, int VB>
TENSORA_KERNEL_INLINE bool any_lane(Mask<T, VB> m) {
  bool any = false;
  for (int l = 0; l < kLanes<T, VB>; ++l) any = any || m[l] != 0;
  return any;
}
template <class T, int VB>
TENSORA_KERNEL_INLINE bool all_lanes(Mask<T, VB> m) {
  bool all = true;
  for (int l = 0; l < kLanes<T, VB>; ++l) all = all && m[l] != 0;
  return all;
}

// x[at + i * stride] /= p for i < count. From kMinReciprocal entries on, the way LAPACK's
// getf2 scales a column: times 1 / p in the lanes where |p| is at least the smallest normal
// number (sfmin), a division in the others (a subnormal pivot's reciprocal overflows). One
// division for the column instead of one per entry: the divider is not pipelined (about 20
// cycles a vector). Fewer entries are divided: there the reciprocal's test and multiply cost
// more than the divisions they save (3x3 det 1.6x slower with it).
constexpr std::int64_t kMinReciprocal = 4;
template <class T, int VB>
TENSORA_KERNEL_INLINE void divide_by(Vec<T, VB>* x, std::int64_t at, std::int64_t stride, std::int64_t count,
                                     Vec<T, VB> p) {
  if (count < kMinReciprocal) {
    for (std::int64_t i = 0; i < count; ++i) x[at + i * stride] /= p;
    return;
  }
  const Vec<T, VB> r = splat<T, VB>(1) / p;
  const auto tiny = abs_of<T, VB>(p) < splat<T, VB>(std::numeric_limits<T>::min());
  if (!any_lane<T, VB>(tiny)) [[likely]] {
    for (std::int64_t i = 0; i < count; ++i) x[at + i * stride] *= r;
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    Vec<T, VB>& y = x[at + i * stride];
    y = tiny ? y / p : y * r;
  }
}

// ---- the algorithms, on n x n lane matrices (column-major, element (r, c) at r + c * n) ----

// getf2's interchange of rows k and p (per lane) in column c of the n x n lane matrix a, for
// rows p >= k: row k takes row p's entry (a chain of selects down the column) and row p takes
// row k's. Returns the new entry of row k. lu_factor runs it a column at a time, fused with the
// column's update: each entry is then read and written once per step, not once for the
// interchange and again for the update (the arithmetic is getf2's).
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> interchange(Vec<T, VB>* a, std::int64_t n, std::int64_t k,
                                             std::int64_t c, Vec<T, VB> p) {
  const Vec<T, VB> top = a[k + c * n];
  Vec<T, VB> pivot_row = top;
  for (std::int64_t r = k + 1; r < n; ++r) {
    const auto swap = p == splat<T, VB>(static_cast<T>(r));
    const Vec<T, VB> y = a[r + c * n];
    pivot_row = swap ? y : pivot_row;
    a[r + c * n] = swap ? top : y;
  }
  a[k + c * n] = pivot_row;
  return pivot_row;
}

// getf2: a = p l u in place (l unit lower below the diagonal, u on and above it); piv the
// 1-based row interchanges; info the first exactly zero pivot (0: none), the factorization
// going on past it as LAPACK's does. Without kWholeRows the interchanges skip the columns
// left of the pivot (l's multipliers, which det never reads): u and the pivots are the same.
template <class T, int VB, int N, bool kWholeRows = true>
TENSORA_KERNEL_INLINE void lu_factor(std::int64_t n_, Vec<T, VB>* a, Vec<T, VB>* piv,
                                     Vec<T, VB>& info) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t k = 0; k < n; ++k) {
    // The first row of largest modulus (LAPACK's i?amax).
    W best = abs_of<T, VB>(a[k + k * n]), p = splat<T, VB>(static_cast<T>(k));
    for (std::int64_t r = k + 1; r < n; ++r) {
      const W x = abs_of<T, VB>(a[r + k * n]);
      const auto larger = x > best;
      best = larger ? x : best;
      p = larger ? splat<T, VB>(static_cast<T>(r)) : p;
    }
    piv[k] = p + static_cast<T>(1);
    // Fused, the columns right of the pivot are interchanged as they are updated. Orders up to
    // kMinReciprocal, whose matrices live in registers, interchange whole rows first: fused,
    // 3x3 inv took 1.25x as long (as many instructions, scheduled worse).
    constexpr bool kFused = N == 0 || N > kMinReciprocal;
    if constexpr (kFused) {
      for (std::int64_t c = kWholeRows ? 0 : k; c <= k; ++c) interchange<T, VB>(a, n, k, c, p);
    } else {
      for (std::int64_t r = k + 1; r < n; ++r) {
        const auto swap = p == splat<T, VB>(static_cast<T>(r));
        for (std::int64_t c = kWholeRows ? 0 : k; c < n; ++c) {
          const W x = a[k + c * n], y = a[r + c * n];
          a[k + c * n] = swap ? y : x;
          a[r + c * n] = swap ? x : y;
        }
      }
    }
    const W pivot = a[k + k * n];
    const auto zero = pivot == splat<T, VB>(0);
    info = (info == splat<T, VB>(0)) & zero ? splat<T, VB>(static_cast<T>(k + 1)) : info;
    // A zero pivot is the column's largest entry: the column below it is zero and stays so.
    const W divisor = zero ? splat<T, VB>(1) : pivot;
    // Orders that never reach kMinReciprocal entries keep the plain loop: divide_by's code, even
    // unused, kept GCC from unrolling 3x3 LU (30% more instructions).
    if constexpr (N == 0 || N > kMinReciprocal) divide_by<T, VB>(a, k + 1 + k * n, 1, n - k - 1, divisor);
    else
      for (std::int64_t r = k + 1; r < n; ++r) a[r + k * n] /= divisor;
    for (std::int64_t c = k + 1; c < n; ++c) {
      const W u = kFused ? interchange<T, VB>(a, n, k, c, p) : a[k + c * n];
      for (std::int64_t r = k + 1; r < n; ++r) a[r + c * n] -= a[r + k * n] * u;
    }
  }
}

// x = column j of `in` (N entries), each entry's x - x added to nonfinite (zero while every
// entry is finite, as check_finite tests).
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE void read_column(LaneView<T, VB> in, std::int64_t j, Vec<T, VB>* x, Vec<T, VB>& nonfinite) {
  TENSORA_UNROLL_ORDER
  for (std::int64_t r = 0; r < N; ++r) {
    x[r] = in.load(r, j);
    nonfinite += x[r] - x[r];
  }
}

// perm = 0 .. n-1 put through lu_factor's interchanges: row i of p I is row perm_i of I.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE void pivot_permutation(std::int64_t n_, const Vec<T, VB>* piv, Vec<T, VB>* perm) {
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t i = 0; i < n; ++i) perm[i] = splat<T, VB>(static_cast<T>(i));
  for (std::int64_t k = 0; k < n; ++k) interchange<T, VB>(perm, n, k, 0, piv[k] - static_cast<T>(1));
}

// Steps 0 .. steps - 1 of lu's factorization applied to a column x in registers: their
// interchanges (unless kInterchanged: x has them already), then their updates with l's
// multipliers, each entry in step order. A column's part of getf2 (left-looking), and with
// steps = N the forward half of getrs.
template <class T, int VB, int N, bool kInterchanged = false>
TENSORA_KERNEL_INLINE void forward_steps(const Vec<T, VB>* lu, const Vec<T, VB>* piv, std::int64_t steps,
                                         Vec<T, VB>* x) {
  if constexpr (!kInterchanged) {
    TENSORA_UNROLL_ORDER
    for (std::int64_t k = 0; k < steps; ++k) interchange<T, VB>(x, N, k, 0, piv[k] - static_cast<T>(1));
  }
  TENSORA_UNROLL_ORDER
  for (std::int64_t k = 0; k < steps; ++k) {
    TENSORA_UNROLL_ORDER
    for (std::int64_t r = k + 1; r < N; ++r) x[r] -= lu[r + k * N] * x[k];
  }
}

// getf2 again, left-looking, for a compile-time order: column j is read into registers, takes
// the earlier steps' interchanges and updates there, is searched for its pivot, divided and
// written once; only l's rows j and p are interchanged in memory. Each entry sees getf2's
// operations in getf2's order (a later interchange moves rows below an earlier step's pivot
// row, together with their multipliers), so the factors and pivots are lu_factor's, bit for
// bit. The right-looking form writes the whole trailing matrix at every step: about n^3 / 3
// vector stores against the n^2 here, and a store of a 64-byte vector takes two cycles on a
// 256-bit store path.
// The matrices are read from `in` (which may be a itself) and checked finite there, as
// check_finite does.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE void lu_factor_by_columns(LaneView<T, VB> in, Vec<T, VB>* a, Vec<T, VB>* piv,
                                                Vec<T, VB>& info, Mask<T, VB>& finite) {
  static_assert(N != 0, "a compile-time order: the columns live in registers");
  using W = Vec<T, VB>;
  W nonfinite = splat<T, VB>(0);
  TENSORA_UNROLL_ORDER
  for (std::int64_t j = 0; j < N; ++j) {
    W x[N];
    read_column<T, VB, N>(in, j, x, nonfinite);
    forward_steps<T, VB, N>(a, piv, j, x);
    W best = abs_of<T, VB>(x[j]), p = splat<T, VB>(static_cast<T>(j));
    TENSORA_UNROLL_ORDER
    for (std::int64_t r = j + 1; r < N; ++r) {
      const W y = abs_of<T, VB>(x[r]);
      const auto larger = y > best;
      best = larger ? y : best;
      p = larger ? splat<T, VB>(static_cast<T>(r)) : p;
    }
    piv[j] = p + static_cast<T>(1);
    interchange<T, VB>(x, N, j, 0, p);
    TENSORA_UNROLL_ORDER
    for (std::int64_t c = 0; c < j; ++c) interchange<T, VB>(a, N, j, c, p);
    const W pivot = x[j];
    const auto zero = pivot == splat<T, VB>(0);
    info = (info == splat<T, VB>(0)) & zero ? splat<T, VB>(static_cast<T>(j + 1)) : info;
    divide_by<T, VB>(x, j + 1, 1, N - j - 1, zero ? splat<T, VB>(1) : pivot);
    TENSORA_UNROLL_ORDER
    for (std::int64_t r = 0; r < N; ++r) a[r + j * N] = x[r];
  }
  finite = nonfinite == splat<T, VB>(0);
}

// getrs (no transpose): b (n x cols) = a^-1 b from lu_factor's lu and pivots. Every step runs
// across all right-hand sides before the next: the columns are independent chains (a division,
// then the updates that wait on it), so they overlap instead of queueing one column's divisions
// behind the last. Each column sees getrs's operations in getrs's order. Cols: the column count
// when fixed at compile time (0: cols).
// kInterchanged: b already has the interchanges applied (permuted_identity).
template <class T, int VB, int N, int Cols = 0, bool kInterchanged = false>
TENSORA_KERNEL_INLINE void lu_solve(std::int64_t n_, const Vec<T, VB>* lu, const Vec<T, VB>* piv,
                                    Vec<T, VB>* b, std::int64_t cols_) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : n_, cols = Cols != 0 ? Cols : cols_;
  for (std::int64_t k = 0; k < n && !kInterchanged; ++k)
    for (std::int64_t r = k + 1; r < n; ++r) {
      const auto swap = piv[k] == splat<T, VB>(static_cast<T>(r + 1));
      for (std::int64_t j = 0; j < cols; ++j) {
        const W x = b[k + j * n], y = b[r + j * n];
        b[k + j * n] = swap ? y : x;
        b[r + j * n] = swap ? x : y;
      }
    }
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t r = c + 1; r < n; ++r) b[r + j * n] -= lu[r + c * n] * b[c + j * n];
  for (std::int64_t c = n - 1; c >= 0; --c) {
    divide_by<T, VB>(b, c, n, cols, lu[c + c * n]);  // one right-hand side: getrs's division
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t r = 0; r < c; ++r) b[r + j * n] -= lu[r + c * n] * b[c + j * n];
  }
}

// b = p I, the identity's rows interchanged as lu_factor's pivots say: row i of it is row
// perm_i of I, perm being 0 .. n-1 put through the interchanges. n^2 compares instead of the
// n^2 (n - 1) selects (and their stores) of interchanging the identity's rows in lu_solve; the
// same matrix, so inv's bits are solve's with the identity.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE void permuted_identity(std::int64_t n_, const Vec<T, VB>* piv, Vec<T, VB>* b) {
  const std::int64_t n = N != 0 ? N : n_;
  Vec<T, VB> perm[kMax];
  pivot_permutation<T, VB, N>(n, piv, perm);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      b[i + j * n] = perm[i] == splat<T, VB>(static_cast<T>(j)) ? splat<T, VB>(1) : splat<T, VB>(0);
}

// getrs for a compile-time order, a right-hand side at a time: its column lives in registers
// through the interchanges, both substitutions and the divisions, and is written once (lu_solve
// writes every entry once per step). Each column sees lu_solve's operations in its order, and
// the divisions are divide_by's (times the reciprocal from kMinReciprocal columns on, except
// in lanes whose pivot is below the smallest normal number), so the bits are lu_solve's.
// kIdentity: b is the identity, and column j of p I is made here from the pivots (as
// permuted_identity makes it) instead of read.
// b is read from `b` and the solution written to `solution` (either may be a lane buffer, or
// both the same one).
template <class T, int VB, int N, bool kIdentity = false>
TENSORA_KERNEL_INLINE void solve_by_columns(const Vec<T, VB>* lu, const Vec<T, VB>* piv, LaneView<T, VB> b,
                                            LaneView<T, VB> solution, std::int64_t cols) {
  static_assert(N != 0, "a compile-time order: the column lives in registers");
  using W = Vec<T, VB>;
  W perm[N], reciprocal[N];
  if constexpr (kIdentity) pivot_permutation<T, VB, N>(N, piv, perm);
  const bool by_reciprocal = cols >= kMinReciprocal;
  Mask<T, VB> tiny[N], any = piv[0] != piv[0];  // none yet
  TENSORA_UNROLL_ORDER
  for (std::int64_t c = 0; c < N; ++c) {
    const W u = lu[c + c * N];
    reciprocal[c] = splat<T, VB>(1) / u;
    tiny[c] = abs_of<T, VB>(u) < splat<T, VB>(std::numeric_limits<T>::min());
    any |= tiny[c];
  }
  const bool any_tiny = any_lane<T, VB>(any);
  for (std::int64_t j = 0; j < cols; ++j) {
    W x[N];
    if constexpr (kIdentity) {
      TENSORA_UNROLL_ORDER
      for (std::int64_t i = 0; i < N; ++i)
        x[i] = perm[i] == splat<T, VB>(static_cast<T>(j)) ? splat<T, VB>(1) : splat<T, VB>(0);
    } else {
      TENSORA_UNROLL_ORDER
      for (std::int64_t r = 0; r < N; ++r) x[r] = b.load(r, j);
    }
    forward_steps<T, VB, N, kIdentity>(lu, piv, N, x);
    TENSORA_UNROLL_ORDER
    for (std::int64_t c = N - 1; c >= 0; --c) {
      const W u = lu[c + c * N];
      if (!by_reciprocal) x[c] /= u;
      else if (!any_tiny) [[likely]] x[c] *= reciprocal[c];
      else x[c] = tiny[c] ? x[c] / u : x[c] * reciprocal[c];
      TENSORA_UNROLL_ORDER
      for (std::int64_t r = 0; r < c; ++r) x[r] -= lu[r + c * N] * x[c];
    }
    TENSORA_UNROLL_ORDER
    for (std::int64_t r = 0; r < N; ++r) solution.store(r, j, x[r]);
  }
}

// potf2 (lower): a = l l^T in place in the lower triangle; info the order of the first leading
// minor that is not positive (0: none). A failing lane goes on with a unit pivot; its result is
// discarded by the caller, as LAPACK stops there. The reference for cholesky below, and what a
// lane whose pivots leave its range gets.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE void cholesky_potf2(std::int64_t n_, Vec<T, VB>* a, Vec<T, VB>& info) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t j = 0; j < n; ++j) {
    W d = a[j + j * n];
    for (std::int64_t k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
    const auto bad = (d <= splat<T, VB>(0)) | (d != d);  // not positive, NaN included
    info = (info == splat<T, VB>(0)) & bad ? splat<T, VB>(static_cast<T>(j + 1)) : info;
    d = bad ? splat<T, VB>(1) : d;
    const W root = sqrt_of<T, VB>(d);
    a[j + j * n] = root;
    for (std::int64_t i = j + 1; i < n; ++i) {
      W s = a[i + j * n];
      for (std::int64_t k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = s / root;
    }
  }
}

// potf2's factor and info through the Schur complements (a = w d^-1 w^T, w the unscaled
// columns): column j's pivot d_j = a_jj - sum_k w_jk^2 / d_k needs the earlier pivots'
// reciprocals, not their square roots, so one division links a column to the next instead of
// a square root and a division; l = w sqrt(1 / d) at the end. One division and one square root
// per column (potf2: a division per entry below the diagonal): the divider and square root
// share a unit that is not pipelined. Returns the lanes whose results are not to be used: a
// pivot outside [smallest normal, its reciprocal] has a reciprocal that overflows or loses
// digits (cholesky_potf2 takes those lanes).
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE Mask<T, VB> cholesky(std::int64_t n_, Vec<T, VB>* a, Vec<T, VB>& info) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : n_;
  const W lowest = splat<T, VB>(std::numeric_limits<T>::min()),
          highest = splat<T, VB>(T(1) / std::numeric_limits<T>::min());
  Mask<T, VB> outside = lowest != lowest;  // none
  W inverse[kMax];  // 1 / d_k
  for (std::int64_t j = 0; j < n; ++j) {
    W scaled[kMax];  // w_jk / d_k
    for (std::int64_t k = 0; k < j; ++k) scaled[k] = a[j + k * n] * inverse[k];
    W d = a[j + j * n];
    for (std::int64_t k = 0; k < j; ++k) d -= a[j + k * n] * scaled[k];
    const auto bad = (d <= splat<T, VB>(0)) | (d != d);  // not positive, NaN included
    info = (info == splat<T, VB>(0)) & bad ? splat<T, VB>(static_cast<T>(j + 1)) : info;
    d = bad ? splat<T, VB>(1) : d;
    outside |= (d < lowest) | (d > highest);
    a[j + j * n] = d;
    inverse[j] = splat<T, VB>(1) / d;
    for (std::int64_t i = j + 1; i < n; ++i) {
      W s = a[i + j * n];
      for (std::int64_t k = 0; k < j; ++k) s -= a[i + k * n] * scaled[k];
      a[i + j * n] = s;
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const W root = sqrt_of<T, VB>(inverse[j]);  // then l_jj = d_j sqrt(1 / d_j)
    for (std::int64_t i = j; i < n; ++i) a[i + j * n] *= root;
  }
  return outside;
}

// cholesky for a compile-time order, a column at a time in registers, read from `in` (its lower
// triangle; every entry is checked finite, as check_finite does) and written to `out` once,
// scaled, with zeros above the diagonal; w keeps the unscaled columns the later ones read.
// cholesky's operations in its order, so its bits; against cholesky's lane buffer, its copy
// out and its passes that scale and zero: about a third of the stores. Returns the lanes
// outside the reciprocals' range, as cholesky does.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE Mask<T, VB> cholesky_by_columns(LaneView<T, VB> in, LaneView<T, VB> out, Vec<T, VB>* w,
                                                      Vec<T, VB>& info, Mask<T, VB>& finite) {
  static_assert(N != 0, "a compile-time order: the column lives in registers");
  using W = Vec<T, VB>;
  const W lowest = splat<T, VB>(std::numeric_limits<T>::min()),
          highest = splat<T, VB>(T(1) / std::numeric_limits<T>::min());
  Mask<T, VB> outside = lowest != lowest;  // none
  W inverse[N], nonfinite = splat<T, VB>(0);
  TENSORA_UNROLL_ORDER
  for (std::int64_t j = 0; j < N; ++j) {
    W x[N];
    read_column<T, VB, N>(in, j, x, nonfinite);
    W scaled[N];
    TENSORA_UNROLL_ORDER
    for (std::int64_t k = 0; k < j; ++k) scaled[k] = w[j + k * N] * inverse[k];
    W d = x[j];
    TENSORA_UNROLL_ORDER
    for (std::int64_t k = 0; k < j; ++k) d -= w[j + k * N] * scaled[k];
    const auto bad = (d <= splat<T, VB>(0)) | (d != d);
    info = (info == splat<T, VB>(0)) & bad ? splat<T, VB>(static_cast<T>(j + 1)) : info;
    d = bad ? splat<T, VB>(1) : d;
    outside |= (d < lowest) | (d > highest);
    inverse[j] = splat<T, VB>(1) / d;
    const W root = sqrt_of<T, VB>(inverse[j]);
    TENSORA_UNROLL_ORDER
    for (std::int64_t i = 0; i < j; ++i) out.store(i, j, splat<T, VB>(0));
    out.store(j, j, d * root);
    TENSORA_UNROLL_ORDER
    for (std::int64_t i = j + 1; i < N; ++i) {
      W s = x[i];
      TENSORA_UNROLL_ORDER
      for (std::int64_t k = 0; k < j; ++k) s -= w[i + k * N] * scaled[k];
      w[i + j * N] = s;
      out.store(i, j, s * root);
    }
  }
  finite = nonfinite == splat<T, VB>(0);
  return outside;
}

// The squared off-diagonal mass of each lane's n x n matrix. A function, not a lambda: a
// lambda has no target attribute, and at -O0 (sanitizer builds) it is a real call whose vector
// return crosses from baseline to AVX-512 code with another ABI (half the lanes were lost).
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> off_mass(std::int64_t n, const Vec<T, VB>* a) {
  Vec<T, VB> off = splat<T, VB>(0);
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r)
      if (r != c) off += a[r + c * n] * a[r + c * n];
  return off;
}

// Cyclic Jacobi on the symmetric a (both triangles filled): w ascending, v's columns the
// eigenvectors with their largest-modulus entry (the first of equals) positive, as every
// backend gauges them. Sweeps until every lane's off-diagonal mass is below eps^2 of its norm;
// info 1 for a lane still above it after kSweeps sweeps (syevd's "no convergence").
//
// One lane set's matrices and state. jacobi_eigh runs K sets side by side, every rotation of
// one set next to the same rotation of the others: a rotation is a chain of square roots and a
// division, each waiting on the last, on a unit that is not pipelined, and independent chains
// keep it busy. A lane's result does not depend on the sets beside it (see jacobi_sweep_done).
template <class T, int VB>
struct JacobiSet {
  using W = Vec<T, VB>;
  W* a;      // n x n, scaled in place; its diagonal ends as the eigenvalues (unscaled: up)
  W* w;      // the eigenvalues
  W* v;      // the eigenvectors
  W* info;   // 1 where a lane did not converge
  W up;      // undoes the scaling on the eigenvalues
  W norm2;   // the scaled matrix's squared norm
  Mask<T, VB> done;  // the lanes that have converged
};

// The integer of T's width (a lane's bits).
template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;

// 2^k in every lane, exactly, for k from the smallest subnormal's exponent to the largest finite
// number's: the bits built directly, subnormal ones included.
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> power_of_two(Vec<Bits<T>, VB> k) {
  using I = Bits<T>;
  using VI = Vec<I, VB>;
  using Limits = std::numeric_limits<T>;
  constexpr int kMantissa = Limits::digits - 1;
  const VI biased = k + static_cast<I>(Limits::max_exponent - 1);  // 1 and up for a normal result
  const auto normal = biased > I(0);
  // A subnormal 2^k is the mantissa bit kMantissa - 1 + biased (biased in [1 - kMantissa, 0]);
  // the shift counts are kept in range in every lane.
  VI shift = biased + static_cast<I>(kMantissa - 1);
  shift = (normal | (shift < I(0))) ? VI{} : shift;
  const VI bits = normal ? biased << kMantissa : (VI{} + I(1)) << shift;
  return __builtin_bit_cast(Vec<T, VB>, bits);
}

// Each lane scaled by a power of two that brings its largest entry into [1, 2) (exact, and
// undone exactly on the eigenvalues): the squares below (the norm, the rotation's hypotenuse)
// then neither overflow for huge entries nor underflow for tiny ones, as syevd scales too.
// Returns the factor that undoes it.
template <class T, int VB>
TENSORA_KERNEL_INLINE Vec<T, VB> scale_to_unit(std::int64_t n, Vec<T, VB>* a) {
  using W = Vec<T, VB>;
  W largest = splat<T, VB>(0);
  for (std::int64_t e = 0; e < n * n; ++e) {
    const W x = abs_of<T, VB>(a[e]);
    largest = x > largest ? x : largest;
  }
  // frexp's exponent of the largest entry, 0 for a zero matrix, at least min_exponent (so that
  // 2^(1 - exponent) is finite), read from the bits: frexp and ldexp were a call per lane, a
  // fifth of a 3x3 group's time.
  using I = Bits<T>;
  using VI = Vec<I, VB>;
  using Limits = std::numeric_limits<T>;
  constexpr int kMantissa = Limits::digits - 1;
  // largest is not negative: its sign bit is clear.
  const VI biased = (__builtin_bit_cast(VI, largest) >> kMantissa) & static_cast<I>(2 * Limits::max_exponent - 1);
  VI exponent = biased - static_cast<I>(Limits::max_exponent - 2);  // frexp's
  const VI lowest = VI{} + static_cast<I>(Limits::min_exponent);
  exponent = exponent < lowest ? lowest : exponent;
  exponent = largest == splat<T, VB>(0) ? VI{} : exponent;
  const W down = power_of_two<T, VB>(I(1) - exponent);
  for (std::int64_t e = 0; e < n * n; ++e) a[e] *= down;
  return power_of_two<T, VB>(exponent - I(1));
}

template <class T, int VB>
TENSORA_KERNEL_INLINE void jacobi_start(std::int64_t n, JacobiSet<T, VB>& s) {
  s.up = scale_to_unit<T, VB>(n, s.a);
  s.norm2 = splat<T, VB>(0);
  for (std::int64_t e = 0; e < n * n; ++e) s.norm2 += s.a[e] * s.a[e];
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r) s.v[r + c * n] = splat<T, VB>(r == c ? 1 : 0);
}

// Marks the converged lanes; whether all are. A lane that has converged rotates no more (its
// rotations become exact identities), so a matrix's result does not depend on the matrices
// that share its vector or run beside it.
template <class T, int VB>
TENSORA_KERNEL_INLINE bool jacobi_sweep_done(std::int64_t n, JacobiSet<T, VB>& s) {
  const T eps = std::numeric_limits<T>::epsilon();
  s.done = off_mass<T, VB>(n, s.a) <= s.norm2 * (eps * eps);
  return all_lanes<T, VB>(s.done);
}

// The rotation in the plane (p, q) that zeroes a(p, q): a = J^T a J, v = v J.
template <class T, int VB>
TENSORA_KERNEL_INLINE void jacobi_rotate(std::int64_t n, JacobiSet<T, VB>& s, std::int64_t p,
                                         std::int64_t q, bool vectors) {
  using W = Vec<T, VB>;
  W* const a = s.a;
  const W apq = a[p + q * n];
  // Below sqrt(smallest normal) (the lane is scaled to a largest entry in [1, 2), so far below
  // its rounding) the squares below would underflow: with equal diagonal entries the rotation
  // became 0 / 0. Such an entry is zeroed as if it were 0.
  const T negligible = std::sqrt(std::numeric_limits<T>::min());
  const auto zero = (abs_of<T, VB>(apq) < splat<T, VB>(negligible)) | s.done;
  // t = tan, the smaller root of t^2 + 2 theta t - 1 with theta = d / e (Golub and Van Loan
  // 8.5.2), t = sign(theta) / (|theta| + sqrt(theta^2 + 1)), multiplied through by |e|: t = e' / g
  // with e' = sign(d) e, h = sqrt(d^2 + e^2) and g = |d| + h. Since g^2 + e^2 = 2 h g, the cosine
  // 1 / sqrt(1 + t^2) is g r and the sine e' r with r = 1 / sqrt(2 h g), and t = e' 2 h r^2: two
  // square roots and one division per rotation, no division waiting on another.
  const W d = a[q + q * n] - a[p + p * n], e = splat<T, VB>(2) * apq;
  // No overflow: scaled, every entry stays within 2n.
  const W hypotenuse = sqrt_of<T, VB>(d * d + e * e);
  const W signed_e = d < splat<T, VB>(0) ? -e : e, g = abs_of<T, VB>(d) + hypotenuse;
  const W reciprocal = splat<T, VB>(1) / sqrt_of<T, VB>(splat<T, VB>(2) * hypotenuse * g);
  // A converged lane or a negligible a(p, q) (g may be 0 then) rotates by exactly nothing.
  const W t = zero ? splat<T, VB>(0)
                   : signed_e * (splat<T, VB>(2) * hypotenuse) * (reciprocal * reciprocal);
  const W c = zero ? splat<T, VB>(1) : g * reciprocal;
  const W sn = zero ? splat<T, VB>(0) : signed_e * reciprocal;
  // Computed once per symmetric pair: columns p and q off the 2x2 block, mirrored into rows p
  // and q.
  for (std::int64_t k = 0; k < n; ++k) {
    if (k == p || k == q) continue;
    const W x = a[k + p * n], y = a[k + q * n];
    const W xp = c * x - sn * y, yq = sn * x + c * y;
    a[k + p * n] = a[p + k * n] = xp;
    a[k + q * n] = a[q + k * n] = yq;
  }
  // The block: t a(p, q) moves between the diagonal entries (GVL 8.5.1), and a(p, q) is what
  // the rotation was chosen to make, exactly zero (a converged lane keeps its entry).
  const W shift = t * apq;
  a[p + p * n] -= shift;
  a[q + q * n] += shift;
  a[p + q * n] = a[q + p * n] = s.done ? apq : splat<T, VB>(0);
  if (vectors)
    for (std::int64_t k = 0; k < n; ++k) {
      const W x = s.v[k + p * n], y = s.v[k + q * n];
      s.v[k + p * n] = c * x - sn * y;
      s.v[k + q * n] = sn * x + c * y;
    }
}

// w ascending in every lane, stable: adjacent compare-swaps (a bubble sort), the columns of v
// (when given) moving along.
template <class T, int VB>
TENSORA_KERNEL_INLINE void sort_ascending(std::int64_t n, Vec<T, VB>* w, Vec<T, VB>* v) {
  using W = Vec<T, VB>;
  for (std::int64_t pass = 0; pass + 1 < n; ++pass)
    for (std::int64_t i = 0; i + 1 < n - pass; ++i) {
      const auto swap = w[i + 1] < w[i];
      const W x = w[i], y = w[i + 1];
      w[i] = swap ? y : x;
      w[i + 1] = swap ? x : y;
      if (v != nullptr)
        for (std::int64_t k = 0; k < n; ++k) {
          const W vx = v[k + i * n], vy = v[k + (i + 1) * n];
          v[k + i * n] = swap ? vy : vx;
          v[k + (i + 1) * n] = swap ? vx : vy;
        }
    }
}

// The convergence verdict, the eigenvalues ascending and the vectors gauged.
template <class T, int VB>
TENSORA_KERNEL_INLINE void jacobi_finish(std::int64_t n, JacobiSet<T, VB>& s, bool vectors) {
  using W = Vec<T, VB>;
  W* const w = s.w;
  W* const v = s.v;
  jacobi_sweep_done<T, VB>(n, s);
  *s.info = s.done ? *s.info : splat<T, VB>(1);
  for (std::int64_t i = 0; i < n; ++i) w[i] = s.a[i + i * n] * s.up;
  sort_ascending<T, VB>(n, w, vectors ? v : nullptr);
  if (!vectors) return;
  for (std::int64_t j = 0; j < n; ++j) {  // the gauge
    W best = abs_of<T, VB>(v[j * n]), value = v[j * n];
    for (std::int64_t k = 1; k < n; ++k) {
      const W x = v[k + j * n];
      const auto larger = abs_of<T, VB>(x) > best;
      best = larger ? abs_of<T, VB>(x) : best;
      value = larger ? x : value;
    }
    const W sign = value < splat<T, VB>(0) ? splat<T, VB>(-1) : splat<T, VB>(1);
    for (std::int64_t k = 0; k < n; ++k) v[k + j * n] *= sign;
  }
}

template <class T, int VB, int N, int K>
TENSORA_KERNEL_INLINE void jacobi_eigh(std::int64_t n_, JacobiSet<T, VB>* sets, bool vectors) {
  constexpr int kSweeps = 60;
  const std::int64_t n = N != 0 ? N : n_;
  for (int s = 0; s < K; ++s) jacobi_start<T, VB>(n, sets[s]);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    bool converged = true;
    for (int s = 0; s < K; ++s) converged = jacobi_sweep_done<T, VB>(n, sets[s]) && converged;
    if (converged) break;
    for (std::int64_t p = 0; p < n; ++p)
      for (std::int64_t q = p + 1; q < n; ++q)
        for (int s = 0; s < K; ++s) jacobi_rotate<T, VB>(n, sets[s], p, q, vectors);
  }
  for (int s = 0; s < K; ++s) jacobi_finish<T, VB>(n, sets[s], vectors);
}

// ---- eigenvalues alone: Householder tridiagonalization, then implicit QL ----------------
//
// eigvalsh's path (LAPACK's syevd without vectors does the same: sytrd, then sterf): about a
// third of the square roots and divisions of Jacobi's sweeps, which wait on a unit that is not
// pipelined. The matrix is scaled first (scale_to_unit), as for Jacobi.

// a (n x n, both triangles, scaled) -> its tridiagonal form T = Q^T a Q: diagonal d, sub- and
// superdiagonal e (e[i] couples d[i] and d[i + 1]; e[n - 1] = 0). LAPACK's sytd2 (lower), the
// trailing block updated in full: column i's reflector H = I - tau v v^T (v[0] = 1) zeroes
// a(i + 2 :, i); tau = 0 where that part is already zero (a lane's H is then exactly I).
template <class T, int VB>
TENSORA_KERNEL_INLINE void tridiagonalize(std::int64_t n, Vec<T, VB>* a, Vec<T, VB>* d, Vec<T, VB>* e) {
  using W = Vec<T, VB>;
  const W zero = splat<T, VB>(0), one = splat<T, VB>(1);
  for (std::int64_t i = 0; i + 2 < n; ++i) {
    const std::int64_t m = n - i - 1;  // the trailing block's order, from row and column i + 1
    W* const x = a + (i + 1) + i * n;  // a(i + 1 :, i)
    W* const block = a + (i + 1) + (i + 1) * n;
    W rest = zero;  // ||a(i + 2 :, i)||^2
    for (std::int64_t r = 1; r < m; ++r) rest += x[r] * x[r];
    const W alpha = x[0];
    const auto none = rest == zero;
    const W norm = sqrt_of<T, VB>(alpha * alpha + rest);
    const W beta = none ? alpha : alpha < zero ? norm : -norm;
    const W tau = none ? zero : (beta - alpha) / beta;
    const W to_v = none ? zero : one / (alpha - beta);
    W v[kMax], w[kMax];
    v[0] = one;
    for (std::int64_t r = 1; r < m; ++r) v[r] = x[r] * to_v;
    d[i] = a[i + i * n];
    e[i] = beta;
    // w = tau block v - (tau / 2) (w' . v) v, then block -= v w^T + w v^T.
    for (std::int64_t r = 0; r < m; ++r) w[r] = zero;
    for (std::int64_t c = 0; c < m; ++c)
      for (std::int64_t r = 0; r < m; ++r) w[r] += block[r + c * n] * v[c];
    W dot = zero;
    for (std::int64_t r = 0; r < m; ++r) {
      w[r] *= tau;
      dot += w[r] * v[r];
    }
    const W k = splat<T, VB>(T(-0.5)) * tau * dot;
    for (std::int64_t r = 0; r < m; ++r) w[r] += k * v[r];
    for (std::int64_t c = 0; c < m; ++c)
      for (std::int64_t r = 0; r < m; ++r) block[r + c * n] -= v[r] * w[c] + w[r] * v[c];
  }
  if (n >= 2) {
    d[n - 2] = a[(n - 2) + (n - 2) * n];
    e[n - 2] = a[(n - 1) + (n - 2) * n];
  }
  d[n - 1] = a[(n - 1) + (n - 1) * n];
  e[n - 1] = zero;
}

// The eigenvalues of the symmetric tridiagonal (d, e) in d, unsorted: implicit QL with Wilkinson's
// shift (EISPACK's tql1). Each lane deflates at its own index m (the first e[m] negligible
// against its neighbours); a sweep runs from the largest m of the lanes down to l, and a lane
// takes part only below its own m, so lanes that have deflated, and the rows above a lane's m,
// stay exactly as they were. A lane still not deflated after kIterations sweeps for one l gets
// info 1 (syevd's "no convergence") and takes no further part.
template <class T, int VB>
TENSORA_KERNEL_INLINE void tridiagonal_ql(std::int64_t n, Vec<T, VB>* d, Vec<T, VB>* e, Vec<T, VB>& info) {
  using W = Vec<T, VB>;
  constexpr int kIterations = 30;
  const W zero = splat<T, VB>(0), one = splat<T, VB>(1), two = splat<T, VB>(2);
  const W eps = splat<T, VB>(std::numeric_limits<T>::epsilon());
  Mask<T, VB> failed = zero != zero;
  for (std::int64_t l = 0; l + 1 < n; ++l) {
    for (int iteration = 0;; ++iteration) {
      W m = splat<T, VB>(static_cast<T>(n - 1));  // each lane's deflation index
      for (std::int64_t j = n - 2; j >= l; --j) {
        const auto negligible = abs_of<T, VB>(e[j]) <= eps * (abs_of<T, VB>(d[j]) + abs_of<T, VB>(d[j + 1]));
        m = negligible ? splat<T, VB>(static_cast<T>(j)) : m;
      }
      auto active = (m != splat<T, VB>(static_cast<T>(l))) & ~failed;
      if (!any_lane<T, VB>(active)) break;
      if (iteration == kIterations) {
        failed |= active;
        break;
      }
      std::int64_t top = l + 1;  // the largest m of the active lanes
      W dm = d[l + 1];           // d[m] per lane
      for (std::int64_t j = l + 2; j < n; ++j) {
        const auto at = m == splat<T, VB>(static_cast<T>(j));
        dm = at ? d[j] : dm;
        if (any_lane<T, VB>(at & active)) top = j;
      }
      // The shift: the eigenvalue of the leading 2 x 2 block closer to d[l].
      const W el = active ? e[l] : one;
      W g = (d[l + 1] - d[l]) / (two * el);
      W r = sqrt_of<T, VB>(g * g + one);
      g = dm - d[l] + el / (g + (g < zero ? -r : r));
      W s = one, c = one, p = zero;
      auto stopped = zero != zero;  // lanes whose sweep ended on r = 0 (an underflow)
      for (std::int64_t i = top - 1; i >= l; --i) {
        const auto on = active & ~stopped & (splat<T, VB>(static_cast<T>(i)) < m);
        const W f = s * e[i], b = c * e[i];
        r = sqrt_of<T, VB>(f * f + g * g);
        const auto ends = on & (r == zero);
        d[i + 1] = ends ? d[i + 1] - p : d[i + 1];
        stopped |= ends;
        const auto live = on & ~ends;
        e[i + 1] = live ? r : e[i + 1];
        const W inverse = one / (live ? r : one);
        const W s_next = f * inverse, c_next = g * inverse;
        const W h = d[i + 1] - p;
        const W q = (d[i] - h) * s_next + two * c_next * b;
        const W p_next = s_next * q;
        d[i + 1] = live ? h + p_next : d[i + 1];
        s = live ? s_next : s;
        c = live ? c_next : c;
        p = live ? p_next : p;
        g = live ? c_next * q - b : g;
      }
      const auto finished = active & ~stopped;
      d[l] = finished ? d[l] - p : d[l];
      e[l] = finished ? g : e[l];
      for (std::int64_t j = l + 1; j < n; ++j)
        e[j] = (active & (m == splat<T, VB>(static_cast<T>(j)))) ? zero : e[j];
    }
  }
  info = failed ? one : info;
}

// The order from which eigvalsh runs tridiagonal_eigenvalues instead of Jacobi: one lane set
// at a time it took 0.8, 0.65 and 0.49 of Jacobi's time (two sets side by side) at orders 6, 7
// and 8, and 1.0 to 1.6 times at orders 2 to 5 (10^5 / n F64 matrices, 2026-12-07).
constexpr std::int64_t kMinTridiagonalOrder = 6;

// eigvalsh of a lane set's matrices (a: both triangles; scaled in place): w ascending.
template <class T, int VB>
TENSORA_KERNEL_INLINE void tridiagonal_eigenvalues(std::int64_t n, Vec<T, VB>* a, Vec<T, VB>* w,
                                                   Vec<T, VB>& info) {
  const Vec<T, VB> up = scale_to_unit<T, VB>(n, a);
  Vec<T, VB> e[kMax];
  tridiagonalize<T, VB>(n, a, w, e);
  tridiagonal_ql<T, VB>(n, w, e, info);
  for (std::int64_t i = 0; i < n; ++i) w[i] *= up;
  sort_ascending<T, VB>(n, w, nullptr);
}

// ---- one group: gather, compute, scatter ------------------------------------------------

// How many lane groups ahead gather and scatter prefetch: each element of a batch-fastest stack
// is its own stream (n^2 of them, more than the hardware prefetchers follow).
constexpr std::int64_t kAhead = 8;

// The first element of each lane's matrix (matrices first + l, l < count).
template <class E>
struct LanePointers {
  E* p[kGroup];       // p[0] only when equally spaced
  bool spaced;        // lane l's matrix at p[0] + l * step
  std::int64_t step;  // 0: a broadcast batch, every lane the same matrix

  LanePointers(const MatrixBatch& batch, std::int64_t first, int count) {
    const auto s = batch.step(first, count);
    spaced = s.has_value();
    step = s.value_or(0);
    for (int l = 0; l < (spaced ? 1 : count); ++l)
      p[l] = reinterpret_cast<E*>(batch.matrix(first + l));
  }
};

// What the lanes past a partial group hold: an identity keeps them from failing, pivots that
// interchange nothing, zero right-hand sides.
enum class Pad : std::uint8_t { Identity, Zero, NoInterchange };
template <class T>
TENSORA_KERNEL_INLINE T pad_value(Pad pad, std::int64_t r, std::int64_t c) {
  if (pad == Pad::Identity) return r == c ? T(1) : T(0);
  return pad == Pad::NoInterchange ? static_cast<T>(r + 1) : T(0);
}

// Whether a group's lanes are consecutive matrices of a batch-fastest stack: each element of
// them is then one contiguous vector (tensora's column-major layout, the common case).
template <class T, int VB, class E>
TENSORA_KERNEL_INLINE bool whole_vectors(const LanePointers<E>& lanes, int count) {
  return lanes.spaced && lanes.step == 1 && count == kLanes<T, VB>;
}

// Lane buffer <- matrices first + l of `batch` (rows x cols, elements E) for l < count; the other
// lanes get `pad`. `transpose`: lanes hold the transposes. N: the batch's order when it is
// N x N and read whole (0: its rows and cols, or ncols columns from col0). The batch fastest
// (tensora's column-major layout) makes each element a contiguous load, tested once per group:
// a test per element cost more than the loads (30 instructions an element).
template <class T, int VB, class E, int N = 0>
TENSORA_KERNEL_INLINE void gather(const MatrixBatch& batch, std::int64_t first, int count,
                                  Vec<T, VB>* lanes, bool transpose, Pad pad, std::int64_t col0 = 0,
                                  std::int64_t ncols = -1) {
  const LanePointers<const E> from(batch, first, count);
  const std::int64_t rows = N != 0 ? N : batch.rows(), cols = N != 0 ? N : ncols < 0 ? batch.cols() : ncols,
                     rs = batch.row_stride(), cs = batch.col_stride();
  if constexpr (std::is_same_v<T, E>) {
    if (whole_vectors<T, VB>(from, count)) {
      for (std::int64_t c = 0; c < cols; ++c)
        for (std::int64_t r = 0; r < rows; ++r) {
          const E* at = from.p[0] + r * rs + (col0 + c) * cs;
          __builtin_prefetch(at + kAhead * kLanes<T, VB>);
          lanes[transpose ? c + r * cols : r + c * rows] = *reinterpret_cast<const UnalignedVec<T, VB>*>(at);
        }
      return;
    }
  }
  const bool broadcast = from.spaced && from.step == 0;  // pad lanes get that matrix too
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) {
      Vec<T, VB>& dst = lanes[transpose ? c + r * cols : r + c * rows];
      const std::int64_t at = r * rs + (col0 + c) * cs;
      if (broadcast) {
        dst = splat<T, VB>(static_cast<T>(from.p[0][at]));
        continue;
      }
      for (int l = 0; l < count; ++l)
        dst[l] = static_cast<T>(from.spaced ? from.p[0][at + l * from.step] : from.p[l][at]);
      for (int l = count; l < kLanes<T, VB>; ++l) dst[l] = pad_value<T>(pad, r, col0 + c);
    }
}

// Matrices first + l of `batch` <- lane l, for l < count (N as for gather).
template <class T, int VB, class E, int N = 0>
TENSORA_KERNEL_INLINE void scatter(const MatrixBatch& batch, std::int64_t first, int count,
                                   const Vec<T, VB>* lanes, bool transpose, std::int64_t col0 = 0,
                                   std::int64_t ncols = -1) {
  const LanePointers<E> to(batch, first, count);
  const std::int64_t rows = N != 0 ? N : batch.rows(), cols = N != 0 ? N : ncols < 0 ? batch.cols() : ncols,
                     rs = batch.row_stride(), cs = batch.col_stride();
  if constexpr (std::is_same_v<T, E>) {
    if (whole_vectors<T, VB>(to, count)) {
      for (std::int64_t c = 0; c < cols; ++c)
        for (std::int64_t r = 0; r < rows; ++r) {
          E* at = to.p[0] + r * rs + (col0 + c) * cs;
          __builtin_prefetch(at + kAhead * kLanes<T, VB>, 1);
          *reinterpret_cast<UnalignedVec<T, VB>*>(at) = lanes[transpose ? c + r * cols : r + c * rows];
        }
      return;
    }
  }
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) {
      const Vec<T, VB>& src = lanes[transpose ? c + r * cols : r + c * rows];
      const std::int64_t at = r * rs + (col0 + c) * cs;
      for (int l = 0; l < count; ++l)
        (to.spaced ? to.p[0][at + l * to.step] : to.p[l][at]) = static_cast<E>(src[l]);
    }
}

// Whether each lane's `size` entries are all finite: x - x is 0 exactly for finite x and NaN
// otherwise, and NaN survives a sum. Four sums, so the adds do not wait on one another; named,
// not an array indexed e % 4, which GCC kept in memory where it did not unroll (8 x 8).
template <class T, int VB>
TENSORA_KERNEL_INLINE Mask<T, VB> check_finite(const Vec<T, VB>* a, std::int64_t size) {
  Vec<T, VB> s0{}, s1{}, s2{}, s3{};
  std::int64_t e = 0;
  for (; e + 4 <= size; e += 4) {
    s0 += a[e] - a[e];
    s1 += a[e + 1] - a[e + 1];
    s2 += a[e + 2] - a[e + 2];
    s3 += a[e + 3] - a[e + 3];
  }
  for (; e < size; ++e) s0 += a[e] - a[e];
  return (s0 + s1) + (s2 + s3) == splat<T, VB>(0);
}

// The lanes of a group that cholesky marked `outside`, factored again by potf2 from the input.
// Out of line: it is rare, and its second lane matrix need not sit in every group's frame.
template <class T, int VB, int N>
[[gnu::noinline]] void cholesky_again(const MatrixBatch& a, std::int64_t first, int count,
                                      bool upper, const Mask<T, VB>& outside, LaneView<T, VB> out,
                                      Vec<T, VB>& info) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : a.rows();
  W again[kMax * kMax], again_info = splat<T, VB>(0);
  gather<T, VB, T, N>(a, first, count, again, upper, Pad::Identity);
  cholesky_potf2<T, VB, N>(n, again, again_info);
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = c; r < n; ++r) out.store(r, c, outside ? again[r + c * n] : out.load(r, c));
  info = outside ? again_info : info;
}

// A lane buffer (n x n lane vectors, column-major) as a LaneView.
template <class T, int VB>
TENSORA_KERNEL_INLINE LaneView<T, VB> buffer_view(Vec<T, VB>* m, std::int64_t n, bool transpose = false) {
  const std::int64_t rs = kLanes<T, VB>, cs = n * kLanes<T, VB>;
  return {reinterpret_cast<T*>(m), transpose ? cs : rs, transpose ? rs : cs};
}
// The group's matrices in place, when they are whole vectors (whole_vectors), else null.
template <class T, int VB>
TENSORA_KERNEL_INLINE std::optional<LaneView<T, VB>> operand_view(const MatrixBatch& batch, std::int64_t first,
                                                                  int count, bool transpose = false) {
  const LanePointers<T> lanes(batch, first, count);
  if (!whole_vectors<T, VB>(lanes, count)) return std::nullopt;
  const std::int64_t rs = batch.row_stride(), cs = batch.col_stride();
  return LaneView<T, VB>{lanes.p[0], transpose ? cs : rs, transpose ? rs : cs, kAhead * kLanes<T, VB>};
}

// The first of `count` lanes from matrix `first` on that failed: a non-finite entry (not
// `finite`) or LAPACK's info. One test for the group first: failures are rare.
template <class T, int VB>
TENSORA_KERNEL_INLINE Status first_failure(std::int64_t first, int count, const Mask<T, VB>& finite,
                                           const Vec<T, VB>& info) {
  if (!any_lane<T, VB>((finite == 0) | (info != splat<T, VB>(0)))) return std::nullopt;
  for (int l = 0; l < count; ++l) {
    if (finite[l] == 0) return Failure{first + l, 0, true};
    if (info[l] != 0) return Failure{first + l, static_cast<std::int64_t>(info[l]), false};
  }
  return std::nullopt;
}

// The LU kinds' factorization of a group into the lane buffer m, its input checked finite: at
// order kMax a column at a time, read from the operand in place where its lanes are whole
// vectors.
template <class T, int VB, int N, bool kWholeRows = true>
TENSORA_KERNEL_INLINE void factor_group(const MatrixBatch& a, std::int64_t first, int count, Vec<T, VB>* m,
                                        Vec<T, VB>* piv, Vec<T, VB>& info, Mask<T, VB>& finite) {
  if constexpr (N == kMax) {
    const auto in = operand_view<T, VB>(a, first, count);
    if (!in) gather<T, VB, T, N>(a, first, count, m, false, Pad::Identity);
    lu_factor_by_columns<T, VB, N>(in ? *in : buffer_view<T, VB>(m, N), m, piv, info, finite);
  } else {
    const std::int64_t n = N != 0 ? N : a.rows();
    gather<T, VB, T, N>(a, first, count, m, false, Pad::Identity);
    finite = check_finite<T, VB>(m, n * n);
    lu_factor<T, VB, N, kWholeRows>(n, m, piv, info);
  }
}

template <class T, int VB, int N>
TENSORA_KERNEL_INLINE Status group(const Call& call, const Batches& io, std::int64_t first,
                                   int count) {
  using W = Vec<T, VB>;
  const MatrixBatch& a = io.a;
  const std::int64_t n = N != 0 ? N : a.rows();
  W m[kMax * kMax], piv[kMax];
  W info = splat<T, VB>(0);
  Mask<T, VB> finite = info == info;  // every lane, until a kind checks its input
  switch (call.kind) {
    case Kind::Cholesky: {
      // upper: a = u^T u is a^T = l l^T for the lower triangle of a^T, read from a's upper one.
      if constexpr (N == kMax) {  // read and written in place where the lanes are whole vectors
        const auto in = operand_view<T, VB>(a, first, count, call.upper);
        const auto out = operand_view<T, VB>(io.out, first, count, call.upper);
        if (!in) gather<T, VB, T, N>(a, first, count, m, call.upper, Pad::Identity);
        W l[kMax * kMax], w[kMax * kMax];
        const LaneView<T, VB> to = out ? *out : buffer_view<T, VB>(l, n);
        const auto outside = cholesky_by_columns<T, VB, N>(in ? *in : buffer_view<T, VB>(m, n), to, w, info, finite);
        if (any_lane<T, VB>(outside)) [[unlikely]]
          cholesky_again<T, VB, N>(a, first, count, call.upper, outside, to, info);
        if (!out) scatter<T, VB, T, N>(io.out, first, count, l, call.upper);
        break;
      }
      gather<T, VB, T, N>(a, first, count, m, call.upper, Pad::Identity);
      finite = check_finite<T, VB>(m, n * n);
      const auto outside = cholesky<T, VB, N>(n, m, info);
      if (any_lane<T, VB>(outside)) [[unlikely]]
        cholesky_again<T, VB, N>(a, first, count, call.upper, outside, buffer_view<T, VB>(m, n), info);
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t r = 0; r < c; ++r) m[r + c * n] = splat<T, VB>(0);
      scatter<T, VB, T, N>(io.out, first, count, m, call.upper);
      break;
    }
    case Kind::LuFactor: {
      factor_group<T, VB, N>(a, first, count, m, piv, info, finite);
      scatter<T, VB, T, N>(io.out, first, count, m, false);
      scatter<T, VB, std::int32_t>(io.second, first, count, piv, false);
      break;
    }
    case Kind::Det: {  // the factors stay in registers; one value per lane is stored
      factor_group<T, VB, N, false>(a, first, count, m, piv, info, finite);
      W det;
      if constexpr (std::is_same_v<typename Reducer<ReduceOp::Prod, T>::Acc, T>) {
        // DetProduct's arithmetic (one multiply per signed pivot, in order; a zero pivot gives
        // exactly zero), a lane per matrix.
        det = splat<T, VB>(1);
        auto singular = det != det;  // none
        for (std::int64_t k = 0; k < n; ++k) {
          const W u = m[k + k * n];
          singular |= u == splat<T, VB>(0);
          det *= piv[k] != splat<T, VB>(static_cast<T>(k + 1)) ? -u : u;
        }
        det = singular ? splat<T, VB>(0) : det;
      } else {
        for (int l = 0; l < kLanes<T, VB>; ++l) {
          DetProduct<T> d;
          for (std::int64_t k = 0; k < n; ++k) d.step(m[k + k * n][l], piv[k][l] != static_cast<T>(k + 1));
          det[l] = d.value();
        }
      }
      scatter<T, VB, T>(io.out, first, count, &det, false);
      break;
    }
    case Kind::LuSolve:
    case Kind::Solve: {
      if (call.kind == Kind::Solve) {  // the factors stay in registers
        factor_group<T, VB, N>(a, first, count, m, piv, info, finite);
      } else {
        gather<T, VB, T, N>(a, first, count, m, false, Pad::Identity);
        gather<T, VB, std::int32_t>(io.second, first, count, piv, false, Pad::NoInterchange);
      }
      const MatrixBatch &b = io.rhs, &x_out = io.out;
      // Order kMax writes the solution in place where its lanes are whole vectors (and reads b so).
      [[maybe_unused]] std::optional<LaneView<T, VB>> in_place;
      if constexpr (N == kMax) in_place = operand_view<T, VB>(x_out, first, count);
      if (io.identity_rhs) {  // inv
        W x[kMax * kMax];
        if constexpr (N == kMax) {
          solve_by_columns<T, VB, N, true>(m, piv, buffer_view<T, VB>(x, n), in_place ? *in_place : buffer_view<T, VB>(x, n), n);
          if (in_place) break;
        } else {
          permuted_identity<T, VB, N>(n, piv, x);
          lu_solve<T, VB, N, N, true>(n, m, piv, x, n);
        }
        scatter<T, VB, T, N>(x_out, first, count, x, false);
        break;
      }
      [[maybe_unused]] std::optional<LaneView<T, VB>> rhs;
      if constexpr (N == kMax) rhs = in_place ? operand_view<T, VB>(b, first, count) : std::nullopt;
      // The right-hand sides kMax columns at a time, on the stack (lane vectors are over-aligned).
      for (std::int64_t j0 = 0; j0 < b.cols(); j0 += kMax) {
        const std::int64_t width = std::min(b.cols() - j0, kMax);
        if constexpr (N == kMax) {
          if (rhs) {
            solve_by_columns<T, VB, N>(m, piv, rhs->from_column(j0), in_place->from_column(j0), width);
            continue;
          }
        }
        W x[kMax * kMax];
        gather<T, VB, T>(b, first, count, x, false, Pad::Zero, j0, width);
        if constexpr (N == kMax) solve_by_columns<T, VB, N>(m, piv, buffer_view<T, VB>(x, n), buffer_view<T, VB>(x, n), width);
        else if (N != 0 && width == N)  // n right-hand sides: unrolled
          lu_solve<T, VB, N, N>(n, m, piv, x, width);
        else if (width == 1)  // one vector
          lu_solve<T, VB, N, 1>(n, m, piv, x, width);
        else
          lu_solve<T, VB, N>(n, m, piv, x, width);
        scatter<T, VB, T>(x_out, first, count, x, false, j0, width);
      }
      break;
    }
    default:
      break;
  }
  return first_failure<T, VB>(first, count, finite, info);
}

// Eigh on K lane groups side by side (matrices first, first + kLanes, ...; count of them), as
// jacobi_eigh runs them; the triangle read is mirrored into the other one. Out of line: its
// lane matrices inlined into range_impl's frame slowed 8 x 8 Cholesky by a sixth.
template <class T, int VB, int N, int K>
[[gnu::noinline]] Status eigh_groups(const Call& call, const Batches& io, std::int64_t first,
                                     std::int64_t count) {
  using W = Vec<T, VB>;
  const std::int64_t n = N != 0 ? N : io.a.rows();
  W m[K][kMax * kMax], w[K][kMax], v[K][kMax * kMax], info[K];
  Mask<T, VB> finite[K];
  int lanes[K];
  JacobiSet<T, VB> sets[K];
  for (int s = 0; s < K; ++s) {
    lanes[s] = static_cast<int>(std::min<std::int64_t>(kLanes<T, VB>, count - s * kLanes<T, VB>));
    gather<T, VB, T, N>(io.a, first + s * kLanes<T, VB>, lanes[s], m[s], false, Pad::Identity);
    finite[s] = check_finite<T, VB>(m[s], n * n);
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t r = 0; r < n; ++r)
        if (call.upper ? r > c : r < c) m[s][r + c * n] = m[s][c + r * n];
    info[s] = splat<T, VB>(0);
    sets[s].a = m[s];
    sets[s].w = w[s];
    sets[s].v = v[s];
    sets[s].info = &info[s];
  }
  if (!call.vectors && n >= kMinTridiagonalOrder) {
    for (int s = 0; s < K; ++s) tridiagonal_eigenvalues<T, VB>(n, m[s], w[s], info[s]);
  } else {
    jacobi_eigh<T, VB, N, K>(n, sets, call.vectors);
  }
  Status failure;
  for (int s = 0; s < K; ++s) {
    const std::int64_t at = first + s * kLanes<T, VB>;
    scatter<T, VB, T>(io.out, at, lanes[s], w[s], false);
    if (call.vectors) scatter<T, VB, T, N>(io.second, at, lanes[s], v[s], false);
    if (!failure) failure = first_failure<T, VB>(at, lanes[s], finite[s], info[s]);
  }
  return failure;
}

// How many lane groups eigh runs side by side (jacobi_eigh): two fill the divider's idle cycles;
// the other kernels' chains are short enough for the out-of-order core to overlap groups.
constexpr int kEighSets = 2;

// One step of range_impl: a lane group, for eigh up to kEighSets of them.
template <class T, int VB, int N>
TENSORA_KERNEL_INLINE Status step(const Call& call, const Batches& io, std::int64_t first,
                                  std::int64_t count) {
  if (call.kind != Kind::Eigh) return group<T, VB, N>(call, io, first, static_cast<int>(count));
  if constexpr (N > kMaxUnrolledJacobi) {
    return std::nullopt;  // range_impl runs it with N = 0
  } else {
    static_assert(kEighSets == 2);
    return count > kLanes<T, VB> ? eigh_groups<T, VB, N, 2>(call, io, first, count)
                                 : eigh_groups<T, VB, N, 1>(call, io, first, count);
  }
}

template <class T, int VB>
TENSORA_KERNEL_INLINE Status range_impl(const Call& call, const Batches& io, std::int64_t begin,
                                        std::int64_t end) {
  const std::int64_t n = io.a.rows();
  const std::int64_t stride = (call.kind == Kind::Eigh ? kEighSets : 1) * kLanes<T, VB>;
  Status failure;
  for (std::int64_t first = begin; first < end; first += stride) {
    const std::int64_t count = std::min(stride, end - first);
    Status s;
    // Fixed sizes, loops fully unrolled: 2, 3, 4 and the largest order (eigh up to
    // kMaxUnrolledJacobi).
    switch (call.kind == Kind::Eigh && n > kMaxUnrolledJacobi ? 0 : n) {
      case 2: s = step<T, VB, 2>(call, io, first, count); break;
      case 3: s = step<T, VB, 3>(call, io, first, count); break;
      case 4: s = step<T, VB, 4>(call, io, first, count); break;
      case kMax: s = step<T, VB, kMax>(call, io, first, count); break;
      default: s = step<T, VB, 0>(call, io, first, count); break;
    }
    // Every matrix is still computed (a singular one's LU serves det); lane groups run in batch
    // order, so the first failure kept is the range's first.
    if (s && !failure) failure = s;
  }
  return failure;
}

// The target's register width; the scalar target keeps SSE2's 16-byte vectors.
constexpr int kVectorBytes = HWY_MAX_BYTES < 16 ? 16 : HWY_MAX_BYTES;

}  // namespace

template <class T>
Status range(const Call& call, const Batches& io, std::int64_t begin, std::int64_t end) {
  return range_impl<T, kVectorBytes>(call, io, begin, end);
}

}  // namespace tensora::cpu::small_linalg::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::cpu::small_linalg {

namespace {

using linalg_detail::Call;
using linalg_detail::Kind;
using linalg_detail::Status;
using linalg_detail::Trans;

// Whether Solve's right-hand side is one n x n identity broadcast over the batch (inv's).
template <class T>
bool is_broadcast_identity(const backend::MatrixBatch& b, std::int64_t n) {
  if (b.rows() != n || b.cols() != n || b.step(0, b.count()) != std::int64_t{0}) return false;
  const T* e = reinterpret_cast<const T*>(b.matrix(0));
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r)
      if (e[r * b.row_stride() + c * b.col_stride()] != (r == c ? T(1) : T(0))) return false;
  return true;
}

template <class T>
Status range(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
             std::int64_t begin, std::int64_t end) {
  Batches io(call, outs, ins);
  io.identity_rhs = call.kind == Kind::Solve && is_broadcast_identity<T>(io.rhs, io.a.rows());
  const std::string_view isa = gemm::kernel_isa();
#if HWY_TARGETS & HWY_AVX3
  if (isa == "avx512") return N_AVX3::range<T>(call, io, begin, end);
#endif
#if HWY_TARGETS & HWY_AVX2
  if (isa == "avx2") return N_AVX2::range<T>(call, io, begin, end);
#endif
  return HWY_STATIC_DISPATCH(range<T>)(call, io, begin, end);
}

}  // namespace

bool handles(const Call& call, DType dtype, std::int64_t m, std::int64_t n) {
  if (dtype != DType::F32 && dtype != DType::F64) return false;
  if (m != n || n < 1 || n > kMaxOrder) return false;
  return call.kind == Kind::Cholesky || call.kind == Kind::LuFactor || call.kind == Kind::Det || call.kind == Kind::Solve ||
         call.kind == Kind::Eigh || (call.kind == Kind::LuSolve && call.trans == Trans::None);
}

Status run(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
           std::int64_t begin, std::int64_t end) {
  return ins[0].dtype() == DType::F32 ? range<float>(call, outs, ins, begin, end)
                                      : range<double>(call, outs, ins, begin, end);
}

}  // namespace tensora::cpu::small_linalg
#endif  // HWY_ONCE
