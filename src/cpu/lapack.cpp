// The LAPACK loader and the typed wrappers of cpu/lapack.hpp. Symbols are the Fortran ones
// (dpotrf_, zheevd_, ...): every argument by pointer, character arguments followed by their
// hidden lengths at the end, as gfortran passes them.
#include "cpu/lapack.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "cpu/blas_provider.hpp"

namespace tensora::cpu::lapack {

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;
using Len = std::size_t;  // a hidden CHARACTER length

enum Routine {
  Potrf, Getrf, Getrs, Trtrs, Geqrf, Orgqr, Heevd, Gesdd, Geev, Laswp, Trsm, Gemm, Herk, Larft, Larfb,
  Gemv, Her2k, Larfg, Hetrd, Sterf, Stedc, Gebrd, Bdsdc, kRoutines
};
// Base names; real and complex differ for five (orgqr/ungqr, syevd/heevd, syrk/herk,
// syr2k/her2k, sytrd/hetrd). trsm, gemm, herk, gemv and her2k are the BLAS the LAPACK library
// itself calls (OpenBLAS has them; liblapack.so.3 brings libblas). sterf and stedc exist for
// real types only, and gebrd and bdsdc are wrapped for them only (nullptr: not loaded under a
// complex prefix); complex callers of sterf and stedc use the real precision's.
constexpr const char* kRealNames[kRoutines] = {"potrf", "getrf", "getrs", "trtrs", "geqrf", "orgqr",
                                               "syevd", "gesdd", "geev",  "laswp", "trsm",  "gemm",
                                               "syrk",  "larft", "larfb", "gemv",  "syr2k", "larfg",
                                               "sytrd", "sterf", "stedc", "gebrd", "bdsdc"};
constexpr const char* kComplexNames[kRoutines] = {"potrf", "getrf", "getrs", "trtrs", "geqrf", "ungqr",
                                                  "heevd", "gesdd", "geev",  "laswp", "trsm",  "gemm",
                                                  "herk",  "larft", "larfb", "gemv",  "her2k", "larfg",
                                                  "hetrd", nullptr, nullptr, nullptr, nullptr};
constexpr char kPrefix[4] = {'s', 'd', 'c', 'z'};

template <class T>
constexpr int type_index() {
  if constexpr (std::is_same_v<T, float>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1;
  else if constexpr (std::is_same_v<T, cf>) return 2;
  else return 3;
}

struct Library {
  void* handle = nullptr;
  void* fn[kRoutines][4] = {};
  std::string name = "none";
  // One thread per call: the engine's threads split batches, and results must not depend on a
  // library thread count (docs/linalg.md, "Threads"). Held at every call, not only set at load:
  // another library in the process may have raised it since, and OpenBLAS's threaded
  // factorizations give other bits.
  OpenBlasThreads threads;

  Library() {
    if (const char* path = std::getenv("TENSORA_LAPACK"); path != nullptr && *path != '\0') {
      handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
      name = path;
    } else if ((handle = open_openblas()) != nullptr) {
      name = "OpenBLAS";
      if (auto cfg = reinterpret_cast<const char* (*)()>(::dlsym(handle, "openblas_get_config"))) {
        std::string_view s = cfg();  // "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
        if (s.rfind("OpenBLAS ", 0) == 0) s.remove_prefix(9);
        name += " " + std::string(s.substr(0, s.find(' ')));
      }
      if (auto core = reinterpret_cast<const char* (*)()>(::dlsym(handle, "openblas_get_corename")))
        name += " (" + std::string(core()) + ")";
    } else if ((handle = ::dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL)) != nullptr) {
      name = "liblapack.so.3";
    }
    if (handle == nullptr) {
      name = "none";
      return;
    }
    threads = OpenBlasThreads(handle);
    threads.set(1);
    for (int r = 0; r < kRoutines; ++r)
      for (int t = 0; t < 4; ++t) {
        const char* base = t < 2 ? kRealNames[r] : kComplexNames[r];
        if (base == nullptr) continue;
        const std::string symbol = std::string(1, kPrefix[t]) + base + "_";
        fn[r][t] = ::dlsym(handle, symbol.c_str());
        if (fn[r][t] == nullptr) {
          name = "none (" + name + " lacks " + symbol + ")";
          handle = nullptr;
          return;
        }
      }
  }
};

const Library& library() {
  static const Library lib;
  return lib;
}

template <class F, class T>
F routine(Routine r) {
  const Library& lib = library();
  lib.threads.hold(1);
  return reinterpret_cast<F>(lib.fn[r][type_index<T>()]);
}

// A per-thread workspace of at least `count` elements of E.
template <class E>
E* workspace(std::size_t count) {
  thread_local std::vector<E> buffer;
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

// LAPACK's workspace queries return the size as the first work element (a real or complex).
template <class E>
int query_size(E w) {
  if constexpr (std::is_same_v<E, cf> || std::is_same_v<E, cd>) return static_cast<int>(w.real()) + 1;
  else return static_cast<int>(w) + 1;
}

}  // namespace

std::string name() { return library().name; }
bool available() { return library().handle != nullptr; }

template <class T>
int potrf(char uplo, int n, T* a, int lda) {
  int info = 0;
  routine<void (*)(const char*, const int*, T*, const int*, int*, Len), T>(Potrf)(&uplo, &n, a, &lda, &info, 1);
  return info;
}

template <class T>
int getrf(int m, int n, T* a, int lda, int* ipiv) {
  int info = 0;
  routine<void (*)(const int*, const int*, T*, const int*, int*, int*), T>(Getrf)(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <class T>
int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {
  int info = 0;
  using F = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, Len);
  routine<F, T>(Getrs)(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

template <class T>
int trtrs(char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb) {
  int info = 0;
  using F = void (*)(const char*, const char*, const char*, const int*, const int*, const T*, const int*, T*,
                     const int*, int*, Len, Len, Len);
  routine<F, T>(Trtrs)(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1);
  return info;
}

template <class T>
int geqrf(int m, int n, T* a, int lda, T* tau) {
  using F = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  int info = 0, lwork = -1;
  T size{};
  routine<F, T>(Geqrf)(&m, &n, a, &lda, tau, &size, &lwork, &info);
  lwork = query_size(size);
  routine<F, T>(Geqrf)(&m, &n, a, &lda, tau, workspace<T>(static_cast<std::size_t>(lwork)), &lwork, &info);
  return info;
}

template <class T>
int orgqr(int m, int n, int k, T* a, int lda, const T* tau) {
  using F = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  int info = 0, lwork = -1;
  T size{};
  routine<F, T>(Orgqr)(&m, &n, &k, a, &lda, tau, &size, &lwork, &info);
  lwork = query_size(size);
  routine<F, T>(Orgqr)(&m, &n, &k, a, &lda, tau, workspace<T>(static_cast<std::size_t>(lwork)), &lwork, &info);
  return info;
}

template <class T>
int heevd(char jobz, char uplo, int n, T* a, int lda, Real<T>* w) {
  using R = Real<T>;
  int info = 0, lwork = -1, liwork = -1, iwork_size = 0;
  T size{};
  if constexpr (std::is_same_v<T, R>) {
    using F = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, int*, const int*,
                       int*, Len, Len);
    routine<F, T>(Heevd)(&jobz, &uplo, &n, a, &lda, w, &size, &lwork, &iwork_size, &liwork, &info, 1, 1);
    lwork = query_size(size);
    liwork = iwork_size + 1;
    routine<F, T>(Heevd)(&jobz, &uplo, &n, a, &lda, w, workspace<T>(static_cast<std::size_t>(lwork)), &lwork,
                         workspace<int>(static_cast<std::size_t>(liwork)), &liwork, &info, 1, 1);
  } else {
    using F = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, R*, const int*,
                       int*, const int*, int*, Len, Len);
    int lrwork = -1;
    R rsize{};
    routine<F, T>(Heevd)(&jobz, &uplo, &n, a, &lda, w, &size, &lwork, &rsize, &lrwork, &iwork_size, &liwork, &info,
                         1, 1);
    lwork = query_size(size);
    lrwork = query_size(rsize);
    liwork = iwork_size + 1;
    routine<F, T>(Heevd)(&jobz, &uplo, &n, a, &lda, w, workspace<T>(static_cast<std::size_t>(lwork)), &lwork,
                         workspace<R>(static_cast<std::size_t>(lrwork)), &lrwork,
                         workspace<int>(static_cast<std::size_t>(liwork)), &liwork, &info, 1, 1);
  }
  return info;
}

template <class T>
int gesdd(char jobz, int m, int n, T* a, int lda, Real<T>* s, T* u, int ldu, T* vt, int ldvt) {
  using R = Real<T>;
  const std::size_t mn = static_cast<std::size_t>(m < n ? m : n), mx = static_cast<std::size_t>(m < n ? n : m);
  int* iwork = workspace<int>(8 * mn + 1);
  int info = 0, lwork = -1;
  T size{};
  if constexpr (std::is_same_v<T, R>) {
    using F = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*, const int*, T*,
                       const int*, int*, int*, Len);
    routine<F, T>(Gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &lwork, iwork, &info, 1);
    lwork = query_size(size);
    routine<F, T>(Gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt,
                         workspace<T>(static_cast<std::size_t>(lwork)), &lwork, iwork, &info, 1);
  } else {
    using F = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*, const int*, T*,
                       const int*, R*, int*, int*, Len);
    // LAPACK 3.11's documented minimum for rwork.
    const std::size_t lrwork = jobz == 'N' ? 7 * mn + 1 : mn * std::max(5 * mn + 7, 2 * mx + 2 * mn + 1) + 1;
    R* rwork = workspace<R>(lrwork);
    routine<F, T>(Gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &lwork, rwork, iwork, &info, 1);
    lwork = query_size(size);
    routine<F, T>(Gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt,
                         workspace<T>(static_cast<std::size_t>(lwork)), &lwork, rwork, iwork, &info, 1);
  }
  return info;
}

template <class T>
void laswp(int n, T* a, int lda, int k1, int k2, const int* ipiv) {
  const int incx = 1;
  using F = void (*)(const int*, T*, const int*, const int*, const int*, const int*, const int*);
  routine<F, T>(Laswp)(&n, a, &lda, &k1, &k2, ipiv, &incx);
}

template <class T>
void trsm(char side, char uplo, char trans, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb) {
  using F = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
                     const int*, T*, const int*, Len, Len, Len, Len);
  routine<F, T>(Trsm)(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

template <class T>
void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta,
          T* c, int ldc) {
  using F = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                     const T*, const int*, const T*, T*, const int*, Len, Len);
  routine<F, T>(Gemm)(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

template <class T>
void herk(char uplo, char trans, int n, int k, Real<T> alpha, const T* a, int lda, Real<T> beta, T* c, int ldc) {
  using R = Real<T>;
  if constexpr (std::is_same_v<T, R>) {  // syrk: the same arguments, alpha and beta of type T
    using F = void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*, const T*, T*,
                       const int*, Len, Len);
    routine<F, T>(Herk)(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  } else {
    using F = void (*)(const char*, const char*, const int*, const int*, const R*, const T*, const int*, const R*, T*,
                       const int*, Len, Len);
    routine<F, T>(Herk)(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  }
}

template <class T>
void larft(int n, int k, const T* v, int ldv, const T* tau, T* t, int ldt) {
  const char direct = 'F', storev = 'C';
  using F = void (*)(const char*, const char*, const int*, const int*, const T*, const int*, const T*, T*, const int*,
                     Len, Len);
  routine<F, T>(Larft)(&direct, &storev, &n, &k, v, &ldv, tau, t, &ldt, 1, 1);
}

template <class T>
void larfb(char trans, int m, int n, int k, const T* v, int ldv, const T* t, int ldt, T* c, int ldc) {
  const char side = 'L', direct = 'F', storev = 'C';
  // LAPACK's own names the adjoint 'T' for real types and 'C' for complex ones.
  if (trans == 'C' && std::is_same_v<T, Real<T>>) trans = 'T';
  const int ldwork = std::max(1, n);
  T* work = workspace<T>(static_cast<std::size_t>(ldwork) * static_cast<std::size_t>(k));
  using F = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const int*, const T*,
                     const int*, const T*, const int*, T*, const int*, T*, const int*, Len, Len, Len, Len);
  routine<F, T>(Larfb)(&side, &trans, &direct, &storev, &m, &n, &k, v, &ldv, t, &ldt, c, &ldc, work, &ldwork, 1, 1,
                       1, 1);
}

template <class T>
void gemv(char trans, int m, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta, T* y, int incy) {
  if (trans == 'C' && std::is_same_v<T, Real<T>>) trans = 'T';
  using F = void (*)(const char*, const int*, const int*, const T*, const T*, const int*, const T*, const int*,
                     const T*, T*, const int*, Len);
  routine<F, T>(Gemv)(&trans, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1);
}

template <class T>
void her2k(int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, Real<T> beta, T* c, int ldc) {
  const char uplo = 'L', trans = 'N';
  using B = std::conditional_t<std::is_same_v<T, Real<T>>, T, Real<T>>;  // syr2k's beta is a T, her2k's real
  using F = void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*, const T*,
                     const int*, const B*, T*, const int*, Len, Len);
  const B b_beta = beta;
  routine<F, T>(Her2k)(&uplo, &trans, &n, &k, &alpha, a, &lda, b, &ldb, &b_beta, c, &ldc, 1, 1);
}

template <class T>
void larfg(int n, T* alpha, T* x, T* tau, int incx) {
  routine<void (*)(const int*, T*, T*, const int*, T*), T>(Larfg)(&n, alpha, x, &incx, tau);
}

template <class T>
void hetrd(int n, T* a, int lda, Real<T>* d, Real<T>* e, T* tau) {
  const char uplo = 'L';
  using F = void (*)(const char*, const int*, T*, const int*, Real<T>*, Real<T>*, T*, T*, const int*, int*, Len);
  int info = 0, lwork = -1;
  T size{};
  routine<F, T>(Hetrd)(&uplo, &n, a, &lda, d, e, tau, &size, &lwork, &info, 1);
  lwork = query_size(size);
  routine<F, T>(Hetrd)(&uplo, &n, a, &lda, d, e, tau, workspace<T>(static_cast<std::size_t>(lwork)), &lwork, &info,
                       1);
}

template <class T>
int sterf(int n, T* d, T* e) {
  int info = 0;
  routine<void (*)(const int*, T*, T*, int*), T>(Sterf)(&n, d, e, &info);
  return info;
}

template <class T>
int stedc(int n, T* d, T* e, T* z, int ldz) {
  const char compz = 'I';
  using F = void (*)(const char*, const int*, T*, T*, T*, const int*, T*, const int*, int*, const int*, int*, Len);
  int info = 0, lwork = -1, liwork = -1, iwork_size = 0;
  T size{};
  routine<F, T>(Stedc)(&compz, &n, d, e, z, &ldz, &size, &lwork, &iwork_size, &liwork, &info, 1);
  lwork = query_size(size);
  liwork = iwork_size + 1;
  routine<F, T>(Stedc)(&compz, &n, d, e, z, &ldz, workspace<T>(static_cast<std::size_t>(lwork)), &lwork,
                       workspace<int>(static_cast<std::size_t>(liwork)), &liwork, &info, 1);
  return info;
}

template <class T>
void gebrd(int m, int n, T* a, int lda, T* d, T* e, T* tauq, T* taup) {
  using F = void (*)(const int*, const int*, T*, const int*, T*, T*, T*, T*, T*, const int*, int*);
  int info = 0, lwork = -1;
  T size{};
  routine<F, T>(Gebrd)(&m, &n, a, &lda, d, e, tauq, taup, &size, &lwork, &info);
  lwork = query_size(size);
  routine<F, T>(Gebrd)(&m, &n, a, &lda, d, e, tauq, taup, workspace<T>(static_cast<std::size_t>(lwork)), &lwork,
                       &info);
}

template <class T>
int bdsdc(int n, T* d, T* e, T* u, int ldu, T* vt, int ldvt) {
  const char uplo = 'U', compq = u == nullptr ? 'N' : 'I';
  const int one = 1;
  T dummy{};
  int idummy = 0, info = 0;
  const std::size_t nn = static_cast<std::size_t>(n);
  using F = void (*)(const char*, const char*, const int*, T*, T*, T*, const int*, T*, const int*, T*, int*, T*,
                     int*, int*, Len, Len);
  routine<F, T>(Bdsdc)(&uplo, &compq, &n, d, e, u != nullptr ? u : &dummy, u != nullptr ? &ldu : &one,
                       vt != nullptr ? vt : &dummy, vt != nullptr ? &ldvt : &one, &dummy, &idummy,
                       workspace<T>(compq == 'N' ? 4 * nn + 1 : 3 * nn * nn + 4 * nn + 1),
                       workspace<int>(8 * nn + 1), &info, 1, 1);
  return info;
}

template <class T>
int geev(char jobvr, int n, T* a, int lda, std::complex<Real<T>>* w, std::complex<Real<T>>* v, int ldv) {
  using R = Real<T>;
  const char jobvl = 'N';  // no left eigenvectors: vl is a one-element dummy
  const int one = 1;
  int info = 0, lwork = -1;
  T size{}, vl{};
  if constexpr (std::is_same_v<T, R>) {
    // Real: eigenvalues as wr + i wi, and a conjugate pair j, j+1 (wi[j] > 0) stored as the
    // columns re = vr[:, j], im = vr[:, j + 1] of one real matrix.
    using F = void (*)(const char*, const char*, const int*, T*, const int*, R*, R*, R*, const int*, R*, const int*,
                       R*, const int*, int*, Len, Len);
    std::vector<R> wr(static_cast<std::size_t>(n)), wi(static_cast<std::size_t>(n));
    std::vector<R> vr(jobvr == 'V' ? static_cast<std::size_t>(n) * static_cast<std::size_t>(n) : 1);
    const int ldvr = jobvr == 'V' ? n : 1;
    routine<F, T>(Geev)(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), &vl, &one, vr.data(), &ldvr, &size,
                        &lwork, &info, 1, 1);
    lwork = query_size(size);
    routine<F, T>(Geev)(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), &vl, &one, vr.data(), &ldvr,
                        workspace<T>(static_cast<std::size_t>(lwork)), &lwork, &info, 1, 1);
    if (info != 0) return info;
    for (int j = 0; j < n; ++j) w[j] = {wr[static_cast<std::size_t>(j)], wi[static_cast<std::size_t>(j)]};
    if (jobvr != 'V') return 0;
    const auto at = [&](int r, int c) { return vr[static_cast<std::size_t>(r + c * n)]; };
    for (int j = 0; j < n; ++j) {
      if (wi[static_cast<std::size_t>(j)] == 0) {
        for (int r = 0; r < n; ++r) v[r + j * ldv] = {at(r, j), 0};
      } else {
        for (int r = 0; r < n; ++r) {
          v[r + j * ldv] = {at(r, j), at(r, j + 1)};
          v[r + (j + 1) * ldv] = {at(r, j), -at(r, j + 1)};
        }
        ++j;
      }
    }
  } else {
    using F = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,
                       const int*, R*, int*, Len, Len);
    R* rwork = workspace<R>(2 * static_cast<std::size_t>(n) + 1);
    routine<F, T>(Geev)(&jobvl, &jobvr, &n, a, &lda, w, &vl, &one, v, &ldv, &size, &lwork, rwork, &info, 1, 1);
    lwork = query_size(size);
    routine<F, T>(Geev)(&jobvl, &jobvr, &n, a, &lda, w, &vl, &one, v, &ldv,
                        workspace<T>(static_cast<std::size_t>(lwork)), &lwork, rwork, &info, 1, 1);
  }
  return info;
}

#define TENSORA_LAPACK_INSTANTIATE(T)                                                                   \
  template int potrf<T>(char, int, T*, int);                                                            \
  template int getrf<T>(int, int, T*, int, int*);                                                       \
  template int getrs<T>(char, int, int, const T*, int, const int*, T*, int);                            \
  template int trtrs<T>(char, char, char, int, int, const T*, int, T*, int);                            \
  template int geqrf<T>(int, int, T*, int, T*);                                                         \
  template int orgqr<T>(int, int, int, T*, int, const T*);                                              \
  template int heevd<T>(char, char, int, T*, int, Real<T>*);                                            \
  template int gesdd<T>(char, int, int, T*, int, Real<T>*, T*, int, T*, int);                          \
  template int geev<T>(char, int, T*, int, std::complex<Real<T>>*, std::complex<Real<T>>*, int);        \
  template void laswp<T>(int, T*, int, int, int, const int*);                                          \
  template void trsm<T>(char, char, char, char, int, int, T, const T*, int, T*, int);                  \
  template void gemm<T>(char, char, int, int, int, T, const T*, int, const T*, int, T, T*, int);        \
  template void herk<T>(char, char, int, int, Real<T>, const T*, int, Real<T>, T*, int);              \
  template void larft<T>(int, int, const T*, int, const T*, T*, int);                                  \
  template void larfb<T>(char, int, int, int, const T*, int, const T*, int, T*, int);                  \
  template void gemv<T>(char, int, int, T, const T*, int, const T*, int, T, T*, int);                  \
  template void her2k<T>(int, int, T, const T*, int, const T*, int, Real<T>, T*, int);                 \
  template void larfg<T>(int, T*, T*, T*, int);                                                        \
  template void hetrd<T>(int, T*, int, Real<T>*, Real<T>*, T*);
TENSORA_LAPACK_TYPES(TENSORA_LAPACK_INSTANTIATE)
#undef TENSORA_LAPACK_INSTANTIATE

#define TENSORA_LAPACK_REAL_INSTANTIATE(T)    \
  template int sterf<T>(int, T*, T*);         \
  template int stedc<T>(int, T*, T*, T*, int);  \
  template void gebrd<T>(int, int, T*, int, T*, T*, T*, T*); \
  template int bdsdc<T>(int, T*, T*, T*, int, T*, int);
TENSORA_LAPACK_REAL_TYPES(TENSORA_LAPACK_REAL_INSTANTIATE)
#undef TENSORA_LAPACK_REAL_INSTANTIATE

}  // namespace tensora::cpu::lapack
