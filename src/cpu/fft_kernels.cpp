// The built-in FFT algorithm core (cpu/fft_kernels.hpp). Lengths whose prime factors are small run
// a mixed-radix Stockham autosort FFT (radices 4, 2, 3, 5, unrolled odd radices 7, 11, 13 and a
// run-time odd radix up to kMaxRadix) with twiddles computed from exact integer angles in long
// double; from kFourStepBytes on, a four-step split runs two batches of short transforms that stay
// in cache; a length with a large prime factor runs Bluestein's chirp-z convolution on a smooth length.
// Real transforms of even length run a half-length complex transform plus one twiddle pass. Strides
// only change where data is gathered from and scattered to, never the arithmetic, so a result
// depends only on (n, kind, input values).
#include "cpu/fft_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tensora::cpu::fft {
namespace {

using i64 = std::int64_t;

// Bytes of a complex line from which a smooth transform splits four-step. One Stockham sweep per
// pass is faster while its two buffers stay in the last-level cache (measured: even at 2^22
// points alone on a core it is 10-20% ahead); beyond, the four-step's four sweeps through memory
// instead of one per radix-4 pass keep lines running side by side on many cores from sharing
// memory bandwidth.
constexpr i64 kFourStepBytes = i64{16} << 20;
// Bytes of each row the four-step method gathers at once: whole cache lines.
constexpr i64 kFourStepRowBytes = 256;
// Largest prime run as a direct odd radix; larger primes always go through Bluestein.
constexpr int kMaxRadix = 61;
constexpr int kMaxHalf = (kMaxRadix - 1) / 2;

// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1: the loops over a radix unrolled by the
// language, so that the small arrays of a butterfly live in registers at any optimization level.
template <class F, int... I>
inline void unroll_seq(const F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
inline void unroll(const F& f) {
  unroll_seq(f, std::make_integer_sequence<int, N>{});
}

// A pass inlines its butterfly and helpers whole (GCC's heuristics otherwise keep the larger
// butterflies out of line, or leave -O2 builds three times slower).
#if defined(__GNUC__) || defined(__clang__)
#define FFT_FLATTEN [[gnu::flatten]]
#else
#define FFT_FLATTEN
#endif

// Complex values in registers. Memory is always addressed as arrays of T (interleaved re, im), the
// access std::complex<T> permits, so no aliasing question arises.
template <class T>
struct C {
  T re, im;
};

template <class T>
inline C<T> ld(const T* p, i64 i) {
  return {p[2 * i], p[2 * i + 1]};
}
template <class T>
inline void st(T* p, i64 i, C<T> v) {
  p[2 * i] = v.re;
  p[2 * i + 1] = v.im;
}
template <class T>
inline C<T> operator+(C<T> a, C<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
inline C<T> operator-(C<T> a, C<T> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class T>
inline C<T> scale(T s, C<T> a) {
  return {s * a.re, s * a.im};
}
template <class T>
inline C<T> conj(C<T> a) {
  return {a.re, -a.im};
}
template <class T>
inline C<T> mul(C<T> a, C<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// a w forward, a conj(w) inverse: one table of forward twiddles serves both directions.
template <bool Inv, class T>
inline C<T> twiddle(C<T> a, C<T> w) {
  if constexpr (Inv) {
    return {a.re * w.re + a.im * w.im, a.im * w.re - a.re * w.im};
  } else {
    return {a.re * w.re - a.im * w.im, a.re * w.im + a.im * w.re};
  }
}
// The direction's quarter turn: -i a forward, +i a inverse.
template <bool Inv, class T>
inline C<T> rot(C<T> a) {
  if constexpr (Inv) {
    return {-a.im, a.re};
  } else {
    return {a.im, -a.re};
  }
}

// exp(-2 pi i r / n) in long double. The angle is reduced to the first octant in integers, so
// sin and cos see an argument in [0, pi/4] that carries one rounding of t / n: about one long
// double ulp for any r and n (n < 2^59).
struct Root {
  long double re, im;
};
Root unit_root(i64 r, i64 n) {
  constexpr long double kPi4 = 0.785398163397448309615660845819875721L;
  r %= n;
  if (r < 0) r += n;
  i64 t = 8 * r;  // angle = (pi / 4) t / n, t in [0, 8 n)
  bool neg_sin = false, neg_cos = false, swap = false;
  if (t > 4 * n) {  // theta -> 2 pi - theta
    t = 8 * n - t;
    neg_sin = true;
  }
  if (t > 2 * n) {  // theta -> pi - theta
    t = 4 * n - t;
    neg_cos = true;
  }
  if (t > n) {  // theta -> pi / 2 - theta
    t = 2 * n - t;
    swap = true;
  }
  const long double a = kPi4 * (static_cast<long double>(t) / static_cast<long double>(n));
  long double c = std::cos(a), s = std::sin(a);
  if (swap) std::swap(c, s);
  if (neg_cos) c = -c;
  if (neg_sin) s = -s;
  return {c, -s};
}
template <class T>
inline void st_root(T* p, i64 i, Root w) {
  p[2 * i] = static_cast<T>(w.re);
  p[2 * i + 1] = static_cast<T>(w.im);
}

// ---- Length analysis ----

std::vector<i64> prime_factors(i64 n) {  // ascending, with multiplicity
  std::vector<i64> f;
  for (i64 p = 2; p * p <= n; p += (p == 2 ? 1 : 2))
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

// The radices of the Stockham passes: 4s first (fewest passes), then a 2, then the odd primes
// ascending. (Radix 8 measured slower: eight input and eight output streams a pass.)
std::vector<int> radices(i64 n) {
  std::vector<int> r;
  int e2 = 0;
  while (n % 2 == 0) ++e2, n /= 2;
  for (int i = 0; i < e2 / 2; ++i) r.push_back(4);
  if (e2 % 2) r.push_back(2);
  for (i64 p : prime_factors(n)) r.push_back(static_cast<int>(p));
  return r;
}

// Rough cost per element of one pass of radix p (flops of butterfly and twiddles, plus memory),
// used to choose between a direct odd radix and Bluestein, and among Bluestein lengths.
double pass_cost(i64 p) {
  switch (p) {
    case 2: return 7;
    case 3: return 11.5;
    case 4: return 10.5;
    case 5: return 15;
    default: return 2.0 * static_cast<double>(p) + 8;
  }
}
double mixed_cost(i64 n) {
  double per_element = 0;
  for (int p : radices(n)) per_element += pass_cost(p);
  return per_element * static_cast<double>(n);
}

// The convolution length for Bluestein: the cheapest 2^a 3^b 5^c >= 2 n - 1 (at most the next
// power of two).
i64 bluestein_length(i64 n) {
  const i64 lo = 2 * n - 1;
  i64 limit = 1;
  while (limit < lo) limit *= 2;
  i64 best = limit;
  double best_cost = mixed_cost(limit);
  for (i64 p5 = 1; p5 <= limit; p5 *= 5)
    for (i64 p35 = p5; p35 <= limit; p35 *= 3) {
      i64 m = p35;
      while (m < lo) m *= 2;
      if (m > limit) continue;
      const double cost = mixed_cost(m);
      if (cost < best_cost) best = m, best_cost = cost;
    }
  return best;
}

bool use_bluestein(i64 n) {
  if (n <= 3) return false;
  const i64 largest = prime_factors(n).back();
  if (largest <= 13) return false;
  if (largest > kMaxRadix) return true;
  const double blue = 2 * mixed_cost(bluestein_length(n)) + 8.0 * static_cast<double>(2 * n) + 16.0 * n;
  return blue < mixed_cost(n);
}

// ---- Stockham passes ----
//
// A decimation-in-frequency pass of radix p over a remaining length p m at stride s maps
//   y[e + sv (p q + j)] = w_{p m}^{j q} sum_k x[e + sv (q + m k)] w_p^{j k},   e < sv = s v,
// where v is the number of interleaved transforms (layout [index][v]). After the last pass the
// output is in natural order (autosort), and the inner loop over e has one twiddle throughout.

template <class T>
struct Stage {
  int p = 0;          // radix
  i64 m = 0;          // remaining length / p
  i64 s = 0;          // product of the earlier radices
  std::vector<T> tw;  // w_{p m}^{q j} at q (p - 1) + j - 1, q < m, 1 <= j < p (empty when m == 1)
  std::vector<T> cs;  // odd p: cos(2 pi j k / p) at (j - 1) h + k - 1, then sin, 1 <= j, k <= h
};

template <bool Inv, class T>
struct Bfly2 {
  void operator()(const C<T>* a, C<T>* b) const {
    b[0] = a[0] + a[1];
    b[1] = a[0] - a[1];
  }
};

template <bool Inv, class T>
struct Bfly4 {
  void operator()(const C<T>* a, C<T>* b) const {
    const C<T> t0 = a[0] + a[2], t1 = a[0] - a[2], t2 = a[1] + a[3], t3 = rot<Inv>(a[1] - a[3]);
    b[0] = t0 + t2;
    b[1] = t1 + t3;
    b[2] = t0 - t2;
    b[3] = t1 - t3;
  }
};

// Odd radix P from the pairs a_k +- a_{P-k}: h^2 real multiplies per output pair instead of P^2.
template <int P, bool Inv, class T>
struct BflyOdd {
  const T* cs;
  void operator()(const C<T>* a, C<T>* b) const {
    constexpr int H = (P - 1) / 2;
    C<T> t[H], d[H];
    unroll<H>([&](auto k) { t[k] = a[k + 1] + a[P - 1 - k], d[k] = a[k + 1] - a[P - 1 - k]; });
    C<T> sum = a[0];
    unroll<H>([&](auto k) { sum = sum + t[k]; });
    b[0] = sum;
    unroll<H>([&](auto j) {
      const T* c = cs + j * H;
      const T* s = cs + H * H + j * H;
      C<T> re = a[0] + scale(c[0], t[0]), im = scale(s[0], d[0]);
      unroll<H - 1>([&](auto k) { re = re + scale(c[k + 1], t[k + 1]), im = im + scale(s[k + 1], d[k + 1]); });
      b[j + 1] = re + rot<Inv>(im);
      b[P - 1 - j] = re - rot<Inv>(im);
    });
  }
};

template <int P, bool Inv, class T, class Bfly>
FFT_FLATTEN void pass(i64 m, i64 sv, const T* tw, const T* x, T* y, const Bfly& bfly) {
  const i64 xs = m * sv;
  if (sv == 1 && m > 1) {  // the first pass of a single transform: one loop over q
    for (i64 q = 0; q < m; ++q) {
      C<T> a[P], b[P];
      unroll<P>([&](auto k) { a[k] = ld(x, q + k * xs); });
      bfly(a, b);
      if (q == 0) {
        unroll<P>([&](auto j) { st(y, j, b[j]); });
      } else {
        const T* wq = tw + 2 * q * (P - 1);
        st(y, P * q, b[0]);
        unroll<P - 1>([&](auto j) { st(y, P * q + j + 1, twiddle<Inv>(b[j + 1], ld(wq, j))); });
      }
    }
    return;
  }
  for (i64 e = 0; e < sv; ++e) {  // q = 0: all twiddles are 1
    C<T> a[P], b[P];
    unroll<P>([&](auto k) { a[k] = ld(x, e + k * xs); });
    bfly(a, b);
    unroll<P>([&](auto j) { st(y, e + j * sv, b[j]); });
  }
  for (i64 q = 1; q < m; ++q) {
    const T* xq = x + 2 * q * sv;
    T* yq = y + 2 * P * q * sv;
    C<T> w[P - 1];
    unroll<P - 1>([&](auto j) { w[j] = ld(tw, q * (P - 1) + j); });
    for (i64 e = 0; e < sv; ++e) {
      C<T> a[P], b[P];
      unroll<P>([&](auto k) { a[k] = ld(xq, e + k * xs); });
      bfly(a, b);
      st(yq, e, b[0]);
      unroll<P - 1>([&](auto j) { st(yq, e + (j + 1) * sv, twiddle<Inv>(b[j + 1], w[j])); });
    }
  }
}

// Any odd prime radix p <= kMaxRadix, with run-time loops (the rare radices above 13).
template <bool Inv, class T>
FFT_FLATTEN void pass_any(int p, i64 m, i64 sv, const T* tw, const T* cs, const T* x, T* y) {
  const int h = (p - 1) / 2;
  const i64 xs = m * sv;
  C<T> t[kMaxHalf], d[kMaxHalf];
  for (i64 q = 0; q < m; ++q) {
    const T* xq = x + 2 * q * sv;
    T* yq = y + 2 * p * q * sv;
    const i64 wq = q * (p - 1) - 1;  // w_j at ld(tw, wq + j)
    for (i64 e = 0; e < sv; ++e) {
      const C<T> a0 = ld(xq, e);
      C<T> sum = a0;
      for (int k = 0; k < h; ++k) {
        const C<T> u = ld(xq, e + (k + 1) * xs), v = ld(xq, e + (p - 1 - k) * xs);
        t[k] = u + v, d[k] = u - v;
        sum = sum + t[k];
      }
      st(yq, e, sum);
      for (int j = 0; j < h; ++j) {
        const T* c = cs + j * h;
        const T* s = cs + h * h + j * h;
        C<T> re = a0 + scale(c[0], t[0]), im = scale(s[0], d[0]);
        for (int k = 1; k < h; ++k) re = re + scale(c[k], t[k]), im = im + scale(s[k], d[k]);
        C<T> lo = re + rot<Inv>(im), hi = re - rot<Inv>(im);
        if (q > 0) lo = twiddle<Inv>(lo, ld(tw, wq + j + 1)), hi = twiddle<Inv>(hi, ld(tw, wq + p - 1 - j));
        st(yq, e + (j + 1) * sv, lo);
        st(yq, e + (p - 1 - j) * sv, hi);
      }
    }
  }
}

template <bool Inv, class T>
void run_stage(const Stage<T>& g, i64 v, const T* x, T* y) {
  const i64 sv = g.s * v;
  const T* tw = g.tw.data();
  const T* cs = g.cs.data();
  switch (g.p) {
    case 2: pass<2, Inv>(g.m, sv, tw, x, y, Bfly2<Inv, T>{}); break;
    case 3: pass<3, Inv>(g.m, sv, tw, x, y, BflyOdd<3, Inv, T>{cs}); break;
    case 4: pass<4, Inv>(g.m, sv, tw, x, y, Bfly4<Inv, T>{}); break;
    case 5: pass<5, Inv>(g.m, sv, tw, x, y, BflyOdd<5, Inv, T>{cs}); break;
    case 7: pass<7, Inv>(g.m, sv, tw, x, y, BflyOdd<7, Inv, T>{cs}); break;
    case 11: pass<11, Inv>(g.m, sv, tw, x, y, BflyOdd<11, Inv, T>{cs}); break;
    case 13: pass<13, Inv>(g.m, sv, tw, x, y, BflyOdd<13, Inv, T>{cs}); break;
    default: pass_any<Inv>(g.p, g.m, sv, tw, cs, x, y); break;
  }
}

// The passes of one smooth length, run on v interleaved transforms at once.
template <class T>
class Stockham {
 public:
  explicit Stockham(i64 n) : n_(n) {
    i64 s = 1;
    for (int p : radices(n)) {
      Stage<T> g;
      g.p = p;
      g.s = s;
      g.m = n / (s * p);
      if (g.m > 1) {
        g.tw.resize(static_cast<std::size_t>(2 * g.m * (p - 1)));
        for (i64 q = 0; q < g.m; ++q)
          for (int j = 1; j < p; ++j) st_root(g.tw.data(), q * (p - 1) + j - 1, unit_root(q * j, p * g.m));
      }
      if (p % 2 == 1) {
        const int h = (p - 1) / 2;
        g.cs.resize(static_cast<std::size_t>(2 * h * h));
        for (int j = 1; j <= h; ++j)
          for (int k = 1; k <= h; ++k) {
            const Root r = unit_root(j * k, p);
            g.cs[(j - 1) * h + k - 1] = static_cast<T>(r.re);
            g.cs[h * h + (j - 1) * h + k - 1] = static_cast<T>(-r.im);
          }
      }
      stages_.push_back(std::move(g));
      s *= p;
    }
  }
  i64 size() const { return n_; }

  // dst = DFT(src) for v interleaved transforms (layout [index][v]); src, dst and tmp are distinct
  // buffers of n v complex, src is only read. The passes alternate between dst and tmp so that the
  // last one lands in dst.
  template <bool Inv>
  void exec(const T* src, T* dst, T* tmp, i64 v) const {
    const std::size_t count = stages_.size();
    if (count == 0) {
      std::copy(src, src + 2 * n_ * v, dst);
      return;
    }
    const T* from = src;
    for (std::size_t i = 0; i < count; ++i) {
      T* to = ((count - 1 - i) & 1) ? tmp : dst;
      run_stage<Inv>(stages_[i], v, from, to);
      from = to;
    }
  }

 private:
  i64 n_;
  std::vector<Stage<T>> stages_;
};

// ---- Complex transform engines ----

// out[k os] = sum_j in[j is] w^{j k}, w = exp(-+2 pi i / n); strides in complex elements.
template <class T>
class Core {
 public:
  virtual ~Core() = default;
  virtual void run(bool inv, const T* in, i64 is, T* out, i64 os, T* work) const = 0;
  virtual i64 work_size() const = 0;  // complex elements of work one run needs
};

template <class T>
void gather(const T* in, i64 is, i64 n, T* dst) {
  for (i64 j = 0; j < n; ++j) st(dst, j, ld(in, j * is));
}
template <class T>
void scatter(const T* src, i64 n, T* out, i64 os) {
  for (i64 j = 0; j < n; ++j) st(out, j * os, ld(src, j));
}

// Work buffers start on cache lines (addresses only; the arithmetic does not depend on them).
constexpr i64 kAlign = 64;
template <class T>
T* align(T* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return p + ((kAlign - a % kAlign) % kAlign) / sizeof(T);
}

template <class T>
class StockhamCore final : public Core<T> {
 public:
  explicit StockhamCore(i64 n) : fft_(n) {}
  i64 work_size() const override { return 3 * fft_.size(); }
  void run(bool inv, const T* in, i64 is, T* out, i64 os, T* work) const override {
    const i64 n = fft_.size();
    const T* src = in;
    if (is != 1) gather(in, is, n, work), src = work, work += 2 * n;
    T* dst = out;
    if (os != 1) dst = work, work += 2 * n;
    if (inv) {
      fft_.template exec<true>(src, dst, work, 1);
    } else {
      fft_.template exec<false>(src, dst, work, 1);
    }
    if (os != 1) scatter(dst, n, out, os);
  }

 private:
  Stockham<T> fft_;
};

// n = n1 n2, j = j1 + n1 j2, k = k2 + n2 k1:
//   X_k = sum_j1 w_n1^{j1 k1} [w_n^{j1 k2} sum_j2 x_j w_n2^{j2 k2}].
// Step 1 gathers a block of columns j1 (whole cache lines of each row), transforms them together
// in cache and writes them in one stream to Z, stored block by block ([k2][j1 in block]); step 2
// gathers a block of rows k2 from every column block of Z (contiguous pieces), applies the
// twiddles, transforms them and scatters them to out[k2 + n2 k1], a block's width at a time.
template <class T>
class FourStepCore final : public Core<T> {
 public:
  FourStepCore(i64 n, i64 n1, i64 n2) : n_(n), n1_(n1), n2_(n2), fft1_(n1), fft2_(n2) {
    // w_n^r for r = j1 k2 < n, from two tables of about sqrt(n) exact roots: w^r = lo[r % L] hi[r / L].
    while ((i64{1} << shift_) * (i64{1} << shift_) < n) ++shift_;
    const i64 len = i64{1} << shift_;
    lo_.resize(static_cast<std::size_t>(2 * len));
    hi_.resize(static_cast<std::size_t>(2 * ((n + len - 1) / len)));
    for (i64 i = 0; i < len; ++i) st_root(lo_.data(), i, unit_root(i, n));
    for (i64 i = 0; 2 * i < static_cast<i64>(hi_.size()); ++i) st_root(hi_.data(), i, unit_root(i * len, n));
  }
  // Z, three block buffers, and slack for aligning the four.
  i64 work_size() const override { return n_ + 3 * block_ * std::max(n1_, n2_) + kAlign; }
  void run(bool inv, const T* in, i64 is, T* out, i64 os, T* work) const override {
    if (inv) {
      go<true>(in, is, out, os, work);
    } else {
      go<false>(in, is, out, os, work);
    }
  }

 private:
  template <bool Inv>
  void go(const T* in, i64 is, T* out, i64 os, T* work) const {
    const i64 n1 = n1_, n2 = n2_, block = block_, mask = (i64{1} << shift_) - 1;
    const i64 buf = 2 * block * std::max(n1, n2);
    T* z = align(work);
    T* b1 = align(z + 2 * n_);
    T* b2 = align(b1 + buf);
    T* b3 = align(b2 + buf);
    const T* lo = lo_.data();
    const T* hi = hi_.data();
    for (i64 c0 = 0; c0 < n1; c0 += block) {
      const i64 bw = std::min(block, n1 - c0);
      for (i64 j2 = 0; j2 < n2; ++j2) {
        const T* src = in + 2 * (c0 + n1 * j2) * is;
        T* dst = b1 + 2 * j2 * bw;
        for (i64 b = 0; b < bw; ++b) st(dst, b, ld(src, b * is));
      }
      // Column block c0 of Z is stored contiguously ([k2][b] at c0 n2): written in one stream.
      T* zc = z + 2 * c0 * n2;
      fft2_.template exec<Inv>(b1, zc, b3, bw);
    }
    for (i64 c0 = 0; c0 < n2; c0 += block) {
      const i64 bw = std::min(block, n2 - c0);
      for (i64 cb = 0; cb < n1; cb += block) {  // rows c0.. of column block cb: one contiguous piece
        const i64 cw = std::min(block, n1 - cb);
        const T* piece = z + 2 * (cb * n2 + c0 * cw);
        for (i64 b = 0; b < bw; ++b) {
          const i64 k2 = c0 + b;
          for (i64 t = 0; t < cw; ++t) {  // twiddle w_n^{j1 k2}, j1 = cb + t
            const i64 r = (cb + t) * k2;
            const C<T> w = mul(ld(lo, r & mask), ld(hi, r >> shift_));
            st(b1, (cb + t) * bw + b, twiddle<Inv>(ld(piece, b * cw + t), w));
          }
        }
      }
      fft1_.template exec<Inv>(b1, b2, b3, bw);
      for (i64 k1 = 0; k1 < n1; ++k1) {
        const T* src = b2 + 2 * k1 * bw;
        T* dst = out + 2 * (c0 + n2 * k1) * os;
        for (i64 b = 0; b < bw; ++b) st(dst, b * os, ld(src, b));
      }
    }
  }

  static constexpr i64 block_ = kFourStepRowBytes / (2 * sizeof(T));  // columns transformed together
  i64 n_, n1_, n2_;
  Stockham<T> fft1_, fft2_;
  int shift_ = 0;
  std::vector<T> lo_, hi_;
};

template <class T>
std::unique_ptr<Core<T>> make_core(i64 n);

// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}) with the chirp c_j = exp(-pi i j^2 / n): a cyclic
// convolution of length m >= 2 n - 1 done with two smooth FFTs; the transformed conj chirp (with
// the 1/m) is precomputed. The inverse conjugates the input and the output.
template <class T>
class BluesteinCore final : public Core<T> {
 public:
  explicit BluesteinCore(i64 n) : n_(n), m_(bluestein_length(n)), fft_(make_core<T>(m_)) {
    chirp_.resize(static_cast<std::size_t>(2 * n));
    const i64 two_n = 2 * n;
    i64 sq = 0;  // j^2 mod 2 n, stepped exactly: (j + 1)^2 = j^2 + 2 j + 1
    for (i64 j = 0; j < n; ++j) {
      st_root(chirp_.data(), j, unit_root(sq, two_n));
      sq = (sq + 2 * j + 1) % two_n;
    }
    std::vector<T> b(static_cast<std::size_t>(2 * m_), T(0));
    for (i64 j = 0; j < n; ++j) {
      const C<T> c = conj(ld(chirp_.data(), j));
      st(b.data(), j, c);
      if (j > 0) st(b.data(), m_ - j, c);
    }
    kernel_.resize(static_cast<std::size_t>(2 * m_));
    std::vector<T> work(static_cast<std::size_t>(2 * fft_->work_size()));
    fft_->run(false, b.data(), 1, kernel_.data(), 1, work.data());
    const T mt = static_cast<T>(m_);
    for (T& value : kernel_) value /= mt;
  }
  i64 work_size() const override { return 2 * m_ + fft_->work_size(); }
  void run(bool inv, const T* in, i64 is, T* out, i64 os, T* work) const override {
    T* a = work;
    T* f = a + 2 * m_;
    T* rest = f + 2 * m_;
    const T* chirp = chirp_.data();
    const T* kernel = kernel_.data();
    for (i64 j = 0; j < n_; ++j) {
      C<T> x = ld(in, j * is);
      if (inv) x = conj(x);
      st(a, j, mul(x, ld(chirp, j)));
    }
    std::fill(a + 2 * n_, a + 2 * m_, T(0));
    fft_->run(false, a, 1, f, 1, rest);
    for (i64 k = 0; k < m_; ++k) st(f, k, mul(ld(f, k), ld(kernel, k)));
    fft_->run(true, f, 1, a, 1, rest);
    for (i64 k = 0; k < n_; ++k) {
      C<T> y = mul(ld(a, k), ld(chirp, k));
      if (inv) y = conj(y);
      st(out, k * os, y);
    }
  }

 private:
  i64 n_, m_;
  std::unique_ptr<Core<T>> fft_;
  std::vector<T> chirp_, kernel_;
};

// The four-step split: n2 the divisor of n nearest below sqrt(n), n1 = n / n2.
i64 four_step_split(i64 n) {
  std::vector<i64> divisors{1};
  const std::vector<i64> f = prime_factors(n);
  for (std::size_t i = 0; i < f.size();) {
    std::size_t e = i;
    while (e < f.size() && f[e] == f[i]) ++e;
    const std::size_t base = divisors.size();
    i64 pk = 1;
    for (std::size_t k = i; k < e; ++k) {
      pk *= f[i];
      for (std::size_t d = 0; d < base; ++d) divisors.push_back(divisors[d] * pk);
    }
    i = e;
  }
  i64 best = 1;
  for (i64 d : divisors)
    if (d * d <= n && d > best) best = d;
  return best;
}

template <class T>
std::unique_ptr<Core<T>> make_core(i64 n) {
  if (use_bluestein(n)) return std::make_unique<BluesteinCore<T>>(n);
  if (n * 2 * static_cast<i64>(sizeof(T)) >= kFourStepBytes) {
    const i64 n2 = four_step_split(n);
    if (n2 >= 16) return std::make_unique<FourStepCore<T>>(n, n / n2, n2);
  }
  return std::make_unique<StockhamCore<T>>(n);
}

// ---- Plans ----

template <class T>
class ComplexPlan final : public Plan<T> {
 public:
  ComplexPlan(i64 n, Kind kind) : n_(n), kind_(kind), core_(make_core<T>(n)) {}
  std::int64_t size() const override { return n_; }
  Kind kind() const override { return kind_; }
  std::size_t scratch_size() const override { return static_cast<std::size_t>(2 * core_->work_size()); }
  void execute(const void* in, std::int64_t in_stride, void* out, std::int64_t out_stride,
               T* scratch) const override {
    core_->run(kind_ == Kind::Inverse, static_cast<const T*>(in), in_stride, static_cast<T*>(out), out_stride,
               scratch);
  }

 private:
  i64 n_;
  Kind kind_;
  std::unique_ptr<Core<T>> core_;
};

// Even n = 2 h: z_j = x_{2j} + i x_{2j+1} and Z = DFT_h(z) give, with E_k = (Z_k + conj Z_{h-k}) / 2,
// O_k = (Z_k - conj Z_{h-k}) / 2i and w = exp(-2 pi i / n):
//   X_k = E_k + w^k O_k,   X_{h-k} = conj(E_k - w^k O_k).
// ComplexToReal inverts this pass (without the 1/2: the unnormalized inverse wants n x, the
// half-length inverse gives h z). Odd n runs the full complex transform.
template <class T>
class RealPlan final : public Plan<T> {
 public:
  RealPlan(i64 n, Kind kind) : n_(n), h_(n / 2), even_(n % 2 == 0), kind_(kind) {
    core_ = make_core<T>(even_ ? h_ : n_);
    if (even_) {
      tw_.resize(static_cast<std::size_t>(2 * (h_ / 2 + 1)));
      for (i64 k = 0; k <= h_ / 2; ++k) st_root(tw_.data(), k, unit_root(k, n));
    }
  }
  std::int64_t size() const override { return n_; }
  Kind kind() const override { return kind_; }
  std::size_t scratch_size() const override {
    return static_cast<std::size_t>(2 * ((even_ ? 2 * h_ + 1 : 2 * n_) + core_->work_size()));
  }
  void execute(const void* in, std::int64_t in_stride, void* out, std::int64_t out_stride,
               T* scratch) const override {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    if (kind_ == Kind::RealToComplex) {
      even_ ? forward_even(x, in_stride, y, out_stride, scratch) : forward_odd(x, in_stride, y, out_stride, scratch);
    } else {
      even_ ? inverse_even(x, in_stride, y, out_stride, scratch) : inverse_odd(x, in_stride, y, out_stride, scratch);
    }
  }

 private:
  void forward_even(const T* x, i64 is, T* out, i64 os, T* work) const {
    const i64 h = h_;
    const T* z = x;  // a contiguous real line already is z
    if (is != 1) {
      for (i64 j = 0; j < h; ++j) work[2 * j] = x[2 * j * is], work[2 * j + 1] = x[(2 * j + 1) * is];
      z = work, work += 2 * h;
    }
    T* f = out;  // h + 1 complex; the pass below runs in place
    if (os != 1) f = work, work += 2 * (h + 1);
    core_->run(false, z, 1, f, 1, work);
    const C<T> z0 = ld(f, 0);
    st(f, 0, C<T>{z0.re + z0.im, T(0)});
    st(f, h, C<T>{z0.re - z0.im, T(0)});
    const T half = T(0.5);
    for (i64 k = 1; 2 * k < h; ++k) {
      const C<T> a = ld(f, k), b = conj(ld(f, h - k));
      const C<T> e = scale(half, a + b), o = scale(half, rot<false>(a - b));
      const C<T> wo = mul(ld(tw_.data(), k), o);
      st(f, k, e + wo);
      st(f, h - k, conj(e - wo));
    }
    if (h % 2 == 0 && h > 0) st(f, h / 2, conj(ld(f, h / 2)));
    if (os != 1) scatter(f, h + 1, out, os);
  }

  void inverse_even(const T* x, i64 is, T* out, i64 os, T* work) const {
    const i64 h = h_;
    T* f = work;
    work += 2 * h;
    const C<T> x0 = ld(x, 0), xh = ld(x, h * is);
    st(f, 0, C<T>{x0.re + xh.re, x0.re - xh.re});
    for (i64 k = 1; 2 * k < h; ++k) {
      const C<T> a = ld(x, k * is), b = conj(ld(x, (h - k) * is));
      const C<T> e = a + b, o = twiddle<true>(a - b, ld(tw_.data(), k));
      st(f, k, e + rot<true>(o));
      st(f, h - k, conj(e) + rot<true>(conj(o)));
    }
    if (h % 2 == 0 && h > 0) st(f, h / 2, scale(T(2), conj(ld(x, (h / 2) * is))));
    T* z = out;  // a contiguous real line is z
    if (os != 1) z = work, work += 2 * h;
    core_->run(true, f, 1, z, 1, work);
    if (os != 1)
      for (i64 j = 0; j < h; ++j) out[2 * j * os] = z[2 * j], out[(2 * j + 1) * os] = z[2 * j + 1];
  }

  void forward_odd(const T* x, i64 is, T* out, i64 os, T* work) const {
    const i64 n = n_;
    T* a = work;
    T* f = a + 2 * n;
    for (i64 j = 0; j < n; ++j) a[2 * j] = x[j * is], a[2 * j + 1] = T(0);
    core_->run(false, a, 1, f, 1, f + 2 * n);
    scatter(f, h_ + 1, out, os);
  }

  void inverse_odd(const T* x, i64 is, T* out, i64 os, T* work) const {
    const i64 n = n_;
    T* a = work;
    T* f = a + 2 * n;
    st(a, 0, C<T>{ld(x, 0).re, T(0)});
    for (i64 k = 1; k <= h_; ++k) {
      const C<T> v = ld(x, k * is);
      st(a, k, v);
      st(a, n - k, conj(v));
    }
    core_->run(true, a, 1, f, 1, f + 2 * n);
    for (i64 j = 0; j < n; ++j) out[j * os] = f[2 * j];
  }

  i64 n_, h_;
  bool even_;
  Kind kind_;
  std::unique_ptr<Core<T>> core_;
  std::vector<T> tw_;  // w_n^k, k <= h / 2
};

template <class T>
std::shared_ptr<const Plan<T>> build_plan(i64 n, Kind kind) {
  if (kind == Kind::Forward || kind == Kind::Inverse) return std::make_shared<ComplexPlan<T>>(n, kind);
  return std::make_shared<RealPlan<T>>(n, kind);
}

}  // namespace

template <class T>
std::shared_ptr<const Plan<T>> plan(std::int64_t n, Kind kind) {
  if (n < 1) throw std::invalid_argument("fft plan: length must be >= 1, got " + std::to_string(n));
  if (n > (std::int64_t{1} << 40)) throw std::invalid_argument("fft plan: length too large: " + std::to_string(n));
  // Never destroyed: plans stay valid for threads still running during static destruction.
  struct Cache {
    std::mutex mutex;
    std::map<std::pair<i64, Kind>, std::shared_ptr<const Plan<T>>> plans;
  };
  static Cache* cache = new Cache;
  const auto key = std::make_pair(n, kind);
  {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->plans.find(key);
    if (it != cache->plans.end()) return it->second;
  }
  // Built outside the lock (a large plan takes a while); a plan built twice is identical, the
  // first one stored wins.
  std::shared_ptr<const Plan<T>> made = build_plan<T>(n, kind);
  std::lock_guard<std::mutex> lock(cache->mutex);
  return cache->plans.emplace(key, std::move(made)).first->second;
}

template std::shared_ptr<const Plan<float>> plan<float>(std::int64_t, Kind);
template std::shared_ptr<const Plan<double>> plan<double>(std::int64_t, Kind);

}  // namespace tensora::cpu::fft
