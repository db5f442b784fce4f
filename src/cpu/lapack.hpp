// The LAPACK routines the CPU backend's linear algebra calls (cpu/linalg_driver.cpp), one
// template per routine over float, double, complex<float>, complex<double>. The library is
// loaded at run time like the BLAS (dlopen, local symbols; docs/linalg.md): OpenBLAS's LAPACK,
// else the system's liblapack.so.3, or TENSORA_LAPACK=<path>. Each call runs on the calling
// thread only (the library is set to one thread), so the engine's threads split a batch or
// one large factorization's fixed pieces (cpu/blocked_factor.hpp). The functions that have an
// info return it; workspaces are queried and kept per thread.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

namespace tensora::cpu::lapack {

template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <class T>
using Real = typename RealOf<T>::type;

// M(T) for each element type LAPACK has: the explicit instantiations of the wrappers and of
// the code built on them.
#define TENSORA_LAPACK_TYPES(M) M(float) M(double) M(std::complex<float>) M(std::complex<double>)
// The real ones: sterf and stedc (below) have no complex forms.
#define TENSORA_LAPACK_REAL_TYPES(M) M(float) M(double)

// e.g. "OpenBLAS 0.3.21 (SkylakeX)", "/usr/lib/x86_64-linux-gnu/liblapack.so.3", or "none".
std::string name();
bool available();

// Cholesky: uplo 'L' or 'U'.
template <class T>
int potrf(char uplo, int n, T* a, int lda);
// LU with partial pivoting (ipiv 1-based).
template <class T>
int getrf(int m, int n, T* a, int lda, int* ipiv);
// Solve from getrf's factors; trans 'N', 'T' or 'C'.
template <class T>
int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// Triangular solve; diag 'N' or 'U'.
template <class T>
int trtrs(char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb);
// Householder QR (tau: min(m, n) scalars), then the first n columns of Q from k reflectors.
template <class T>
int geqrf(int m, int n, T* a, int lda, T* tau);
template <class T>
int orgqr(int m, int n, int k, T* a, int lda, const T* tau);
// Hermitian eigendecomposition, divide and conquer (syevd / heevd); jobz 'V' or 'N'.
template <class T>
int heevd(char jobz, char uplo, int n, T* a, int lda, Real<T>* w);
// SVD, divide and conquer (gesdd); jobz 'A', 'S' or 'N'.
template <class T>
int gesdd(char jobz, int m, int n, T* a, int lda, Real<T>* s, T* u, int ldu, T* vt, int ldvt);

// The BLAS and LAPACK pieces of the blocked factorizations (cpu/blocked_factor.hpp), from the
// same library: laswp applies ipiv[k1 - 1 .. k2 - 1] (1-based rows) to n columns of a; trsm
// solves op(a) x = alpha b (side 'L') or x op(a) = alpha b ('R') into b; gemm is
// c = alpha op(a) op(b) + beta c; herk (syrk for real T) is the uplo triangle of
// c = alpha a a^H + beta c (trans 'N') or alpha a^H a + beta c ('C').
template <class T>
void laswp(int n, T* a, int lda, int k1, int k2, const int* ipiv);
template <class T>
void trsm(char side, char uplo, char trans, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb);
template <class T>
void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta,
          T* c, int ldc);
template <class T>
void herk(char uplo, char trans, int n, int k, Real<T> alpha, const T* a, int lda, Real<T> beta, T* c, int ldc);
// A block of k reflectors stored forward by columns in v (n x k, unit lower trapezoidal, as geqrf
// leaves them): larft forms its triangular factor t (k x k); larfb applies it from the left,
// c (m x n) = H c (trans 'N') or H^H c ('C'), with a per-thread workspace.
template <class T>
void larft(int n, int k, const T* v, int ldv, const T* tau, T* t, int ldt);
template <class T>
void larfb(char trans, int m, int n, int k, const T* v, int ldv, const T* t, int ldt, T* c, int ldc);

// The pieces of the blocked tridiagonal reduction (cpu/blocked_tridiagonal.cpp), every matrix
// its lower triangle: gemv is y = alpha op(a) x + beta y (strides incx, incy; trans 'N', 'T' or
// 'C'); her2k (syr2k for real T) the lower triangle of c = alpha a b^H + conj(alpha) b a^H +
// beta c; larfg makes the reflector H with H^H [alpha; x] = [beta; 0], beta real (into alpha,
// v's tail into x); hetrd (sytrd) reduces a Hermitian a to real tridiagonal d, e (reflectors
// below the subdiagonal, scalars in tau). sterf (real T only) gives the eigenvalues of (d, e)
// in d (ascending; the info of syevd's "no convergence"), stedc also its eigenvectors into z
// (divide and conquer).
template <class T>
void gemv(char trans, int m, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta, T* y, int incy = 1);
template <class T>
void her2k(int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, Real<T> beta, T* c, int ldc);
template <class T>
void larfg(int n, T* alpha, T* x, T* tau, int incx = 1);
template <class T>
void hetrd(int n, T* a, int lda, Real<T>* d, Real<T>* e, T* tau);
template <class T>
int sterf(int n, T* d, T* e);
template <class T>
int stedc(int n, T* d, T* e, T* z, int ldz);
// The bidiagonal reduction of the blocked singular values (cpu/blocked_bidiagonal.cpp), real T:
// gebrd reduces a (m x n, m >= n) to upper bidiagonal d, e (Q's reflectors below the diagonal,
// P's right of the superdiagonal); bdsdc gives the singular values of (d, e) in d, descending,
// and with u and vt (not nullptr) B = u diag(d) vt (n x n each; compq 'I', else 'N'), the
// result its info.
template <class T>
void gebrd(int m, int n, T* a, int lda, T* d, T* e, T* tauq, T* taup);
template <class T>
int bdsdc(int n, T* d, T* e, T* u = nullptr, int ldu = 1, T* vt = nullptr, int ldvt = 1);

// General eigendecomposition (geev), right eigenvectors when jobvr is 'V': w and v are complex
// for every T (a real routine's conjugate pairs are unpacked here), v's columns of unit 2-norm.
template <class T>
int geev(char jobvr, int n, T* a, int lda, std::complex<Real<T>>* w, std::complex<Real<T>>* v, int ldv);

}  // namespace tensora::cpu::lapack
