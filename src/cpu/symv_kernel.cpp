// cpu/symv_kernel.hpp with Highway, compiled once per SIMD target. Four columns at a time: each
// vector of rows loads four columns' entries, x and y once, adds the four columns' x[j] terms
// to y and keeps four running dot products with x for the columns' own rows (LAPACK's symv
// kernels read y once per column instead). Complex entries are pairs of reals in a real
// vector: s(i, j) x[j] is s x_re + swap(s) (-x_im, x_im), and conj(s) x summed is the plain sum
// of s x (real part) and the alternating sum of s swap(x) (imaginary part).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/symv_kernel.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <algorithm>
#include <complex>
#include <hwy/highway.h>

#include "cpu/symv_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
void SymvLowerColumns(const T* s, int64_t lds, int64_t p, int64_t j0, int64_t j1, const T* x, T* y) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  T* const yr = y - j0;  // yr[r] is row r's sum
  std::fill(y, y + (p - j0), T(0));
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const T* c0 = s + j * lds;
    const T* c1 = c0 + lds;
    const T* c2 = c1 + lds;
    const T* c3 = c2 + lds;
    const T x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
    // The 4 x 4 diagonal block's lower triangle.
    T t0 = c0[j] * x0 + c0[j + 1] * x1 + c0[j + 2] * x2 + c0[j + 3] * x3;
    T t1 = c1[j + 1] * x1 + c1[j + 2] * x2 + c1[j + 3] * x3;
    T t2 = c2[j + 2] * x2 + c2[j + 3] * x3;
    T t3 = c3[j + 3] * x3;
    yr[j + 1] += c0[j + 1] * x0;
    yr[j + 2] += c0[j + 2] * x0 + c1[j + 2] * x1;
    yr[j + 3] += c0[j + 3] * x0 + c1[j + 3] * x1 + c2[j + 3] * x2;
    const auto v0 = hn::Set(d, x0), v1 = hn::Set(d, x1), v2 = hn::Set(d, x2), v3 = hn::Set(d, x3);
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    int64_t i = j + 4;
    for (; i + N <= p; i += N) {
      const auto xi = hn::LoadU(d, x + i);
      const auto e0 = hn::LoadU(d, c0 + i), e1 = hn::LoadU(d, c1 + i);
      const auto e2 = hn::LoadU(d, c2 + i), e3 = hn::LoadU(d, c3 + i);
      auto yv = hn::LoadU(d, yr + i);
      yv = hn::MulAdd(e0, v0, yv);
      yv = hn::MulAdd(e1, v1, yv);
      yv = hn::MulAdd(e2, v2, yv);
      yv = hn::MulAdd(e3, v3, yv);
      hn::StoreU(yv, d, yr + i);
      a0 = hn::MulAdd(e0, xi, a0);
      a1 = hn::MulAdd(e1, xi, a1);
      a2 = hn::MulAdd(e2, xi, a2);
      a3 = hn::MulAdd(e3, xi, a3);
    }
    for (; i < p; ++i) {
      yr[i] += c0[i] * x0 + c1[i] * x1 + c2[i] * x2 + c3[i] * x3;
      t0 += c0[i] * x[i];
      t1 += c1[i] * x[i];
      t2 += c2[i] * x[i];
      t3 += c3[i] * x[i];
    }
    yr[j] += t0 + hn::GetLane(hn::SumOfLanes(d, a0));
    yr[j + 1] += t1 + hn::GetLane(hn::SumOfLanes(d, a1));
    yr[j + 2] += t2 + hn::GetLane(hn::SumOfLanes(d, a2));
    yr[j + 3] += t3 + hn::GetLane(hn::SumOfLanes(d, a3));
  }
  for (; j < j1; ++j) {  // the last one to three columns
    const T* c = s + j * lds;
    T t = c[j] * x[j];
    for (int64_t i = j + 1; i < p; ++i) {
      yr[i] += c[i] * x[j];
      t += c[i] * x[i];
    }
    yr[j] += t;
  }
}

// The complex form over R (float or double) pairs.
template <class R>
void HemvLowerColumns(const std::complex<R>* s, int64_t lds, int64_t p, int64_t j0, int64_t j1,
                      const std::complex<R>* x, std::complex<R>* y) {
  using C = std::complex<R>;
  const hn::ScalableTag<R> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d)) / 2;  // complex numbers per vector
  C* const yr = y - j0;
  std::fill(y, y + (p - j0), C(0));
  const auto re = [](const C* q) { return reinterpret_cast<const R*>(q); };
  const auto alternate = hn::OddEven(hn::Set(d, R(-1)), hn::Set(d, R(1)));  // (+1, -1, +1, ...)
  // The diagonal's real part times x[j]; below it both contributions.
  const auto column_scalar = [&](const C* c, int64_t j, int64_t from, C& t) {
    for (int64_t i = from; i < p; ++i) {
      yr[i] += c[i] * x[j];
      t += std::conj(c[i]) * x[i];
    }
  };
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const C* c[4] = {s + j * lds, s + (j + 1) * lds, s + (j + 2) * lds, s + (j + 3) * lds};
    C t[4];
    for (int k = 0; k < 4; ++k) {  // the 4 x 4 diagonal block
      t[k] = c[k][j + k].real() * x[j + k];
      for (int r = k + 1; r < 4; ++r) {
        yr[j + r] += c[k][j + r] * x[j + k];
        t[k] += std::conj(c[k][j + r]) * x[j + r];
      }
    }
    hn::Vec<decltype(d)> xr[4], xi[4], acc_re[4], acc_im[4];
    for (int k = 0; k < 4; ++k) {
      xr[k] = hn::Set(d, x[j + k].real());
      xi[k] = hn::OddEven(hn::Set(d, x[j + k].imag()), hn::Set(d, -x[j + k].imag()));
      acc_re[k] = hn::Zero(d);
      acc_im[k] = hn::Zero(d);
    }
    int64_t i = j + 4;
    for (; i + N <= p; i += N) {
      const auto xv = hn::LoadU(d, re(x + i));
      const auto xs = hn::Reverse2(d, xv);
      auto yv = hn::LoadU(d, re(yr + i));
      for (int k = 0; k < 4; ++k) {
        const auto e = hn::LoadU(d, re(c[k] + i));
        yv = hn::MulAdd(e, xr[k], yv);
        yv = hn::MulAdd(hn::Reverse2(d, e), xi[k], yv);
        acc_re[k] = hn::MulAdd(e, xv, acc_re[k]);
        acc_im[k] = hn::MulAdd(e, xs, acc_im[k]);
      }
      hn::StoreU(yv, d, reinterpret_cast<R*>(yr + i));
    }
    for (int k = 0; k < 4; ++k) {
      column_scalar(c[k], j + k, i, t[k]);
      yr[j + k] += t[k] + C(hn::GetLane(hn::SumOfLanes(d, acc_re[k])),
                            hn::GetLane(hn::SumOfLanes(d, hn::Mul(acc_im[k], alternate))));
    }
  }
  for (; j < j1; ++j) {  // the last one to three columns
    const C* c = s + j * lds;
    C t = c[j].real() * x[j];
    column_scalar(c, j, j + 1, t);
    yr[j] += t;
  }
}

void SymvF32(const float* s, int64_t lds, int64_t p, int64_t j0, int64_t j1, const float* x, float* y) {
  SymvLowerColumns(s, lds, p, j0, j1, x, y);
}
void SymvF64(const double* s, int64_t lds, int64_t p, int64_t j0, int64_t j1, const double* x, double* y) {
  SymvLowerColumns(s, lds, p, j0, j1, x, y);
}

void HemvC64(const std::complex<float>* s, int64_t lds, int64_t p, int64_t j0, int64_t j1,
             const std::complex<float>* x, std::complex<float>* y) {
  HemvLowerColumns(s, lds, p, j0, j1, x, y);
}
void HemvC128(const std::complex<double>* s, int64_t lds, int64_t p, int64_t j0, int64_t j1,
              const std::complex<double>* x, std::complex<double>* y) {
  HemvLowerColumns(s, lds, p, j0, j1, x, y);
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(SymvF32);
HWY_EXPORT(SymvF64);
HWY_EXPORT(HemvC64);
HWY_EXPORT(HemvC128);

void symv_lower_columns(const float* s, std::int64_t lds, std::int64_t p, std::int64_t j0, std::int64_t j1,
                        const float* x, float* y) {
  HWY_DYNAMIC_DISPATCH(SymvF32)(s, lds, p, j0, j1, x, y);
}
void symv_lower_columns(const double* s, std::int64_t lds, std::int64_t p, std::int64_t j0, std::int64_t j1,
                        const double* x, double* y) {
  HWY_DYNAMIC_DISPATCH(SymvF64)(s, lds, p, j0, j1, x, y);
}
void symv_lower_columns(const std::complex<float>* s, std::int64_t lds, std::int64_t p, std::int64_t j0,
                        std::int64_t j1, const std::complex<float>* x, std::complex<float>* y) {
  HWY_DYNAMIC_DISPATCH(HemvC64)(s, lds, p, j0, j1, x, y);
}
void symv_lower_columns(const std::complex<double>* s, std::int64_t lds, std::int64_t p, std::int64_t j0,
                        std::int64_t j1, const std::complex<double>* x, std::complex<double>* y) {
  HWY_DYNAMIC_DISPATCH(HemvC128)(s, lds, p, j0, j1, x, y);
}

}  // namespace tensora::simd
#endif
