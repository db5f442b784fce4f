// tensora's own matrix-product kernels, for what a BLAS call does badly or not at all:
//  - lanes(): thousands of tiny products (2x2 .. 32x32) at once, vectorized across the batch
//    (tensora is column-major, so a stack of matrices with leading batch axes has the batch
//    as its fastest axis); fixed-size unrolled instances for common sizes;
//  - generic(): one product of any size and strides, register-tiled and vectorized over rows;
//    integer products (wrapping) and the fallback when no BLAS library is available.
// Both are compiled for AVX-512, AVX2+FMA and baseline x86-64 and pick one at run time.
// Every C element is 0 + A(i,0)B(0,j) + A(i,1)B(1,j) + ... in order of p.
#pragma once

#include <complex>
#include <cstdint>
#include <string_view>

namespace tensora::cpu::gemm {

// Element (i, j) of a strided matrix is p[i * rs + j * cs] (strides in elements).
template <class T>
struct Mat {
  const T* p;
  std::int64_t rs, cs;
};
template <class T>
struct MutMat {
  T* p;
  std::int64_t rs, cs;
};

// C (m x n) = A (m x k) * B (k x n), single-threaded; C must not overlap A or B.
// T: float, double, uint32_t, uint64_t (wraps modulo 2^bits), complex<float>, complex<double>.
template <class T>
void generic(std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, Mat<T> b, MutMat<T> c);

// `count` products: product q reads A at a.p + q * a_bs, B at b.p + q * b_bs and writes C at
// c.p + q * c_bs. a_bs and b_bs are 0 (one matrix for every product) or 1 (the batch is the
// fastest axis); c_bs is any. T: float, double, uint32_t, uint64_t. Single-threaded; callers
// split the batch at multiples of kLaneAlign so every split gives the same lane groups.
inline constexpr std::int64_t kLaneAlign = 64;
template <class T>
void lanes(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, Mat<T> a, std::int64_t a_bs,
           Mat<T> b, std::int64_t b_bs, MutMat<T> c, std::int64_t c_bs);

// The instruction set the kernels run with: "avx512", "avx2" or "baseline".
const char* kernel_isa();
// Tests: run the kernels with a lower instruction set ("avx2", "baseline"; "" = the best the
// CPU has). False when the name is unknown or the CPU lacks it.
bool force_kernel_isa(std::string_view name);

}  // namespace tensora::cpu::gemm
