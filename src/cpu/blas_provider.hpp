// The one interface between tensora and an optimized BLAS: column-major GEMM for the four
// BLAS types, a name, and thread control. The library is loaded at run time (dlopen, local
// symbols), so it never interposes on another library's BLAS in the same process and the
// CPU-specific kernel choice can be made before the library reads its environment
// (docs/contractions.md, "BLAS provider").
#pragma once

#include <complex>
#include <cstdint>
#include <string>

namespace tensora::cpu {

enum class BlasOp : std::uint8_t { N, T };  // op(X) = X or X^T (never conjugated)

// Which kernels a call may use. Large: the library's packed large-product kernels whatever the
// shape, whose per-element arithmetic (one k-sum in k order) does not change when C is cut
// into blocks of columns or rows. Any: the library's own choice, which for small or skinny
// shapes may be other kernels (BLIS's "sup") with other rounding.
enum class BlasPath : std::uint8_t { Any, Large };

class BlasProvider {
 public:
  virtual ~BlasProvider() = default;
  // e.g. "BLIS 0.9.0 (skx)", "OpenBLAS 0.3.21 (SkylakeX)", "reference (no BLAS library found)".
  virtual std::string name() const = 0;
  // Threads one call may use (process-wide for the library). tensora itself always runs the
  // library single-threaded and parallelizes over fixed blocks (docs/contractions.md).
  virtual void set_threads(int threads) = 0;
  virtual int threads() const = 0;
  // Whether BlasPath::Large is honoured (BLIS 0.9: a per-call runtime object with its
  // small-matrix handling off); where not, every call is BlasPath::Any.
  virtual bool has_large_path() const = 0;
  // Whether the library runs kernels made for this CPU. BLIS falls back to its "generic"
  // configuration (plain C, a fifth of the speed) on a CPU it does not know; the automatic
  // choice then prefers another library.
  virtual bool tuned_for_cpu() const { return true; }

  // C (m x n, leading dim ldc) = alpha * op(A) * op(B) + beta * C, column-major; op(A) is
  // m x k, op(B) is k x n. With beta == 0, C is not read.
  virtual void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k,
                    float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                    float beta, float* c, std::int64_t ldc, BlasPath path = BlasPath::Any) = 0;
  virtual void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k,
                    double alpha, const double* a, std::int64_t lda, const double* b,
                    std::int64_t ldb, double beta, double* c, std::int64_t ldc,
                    BlasPath path = BlasPath::Any) = 0;
  virtual void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k,
                    std::complex<float> alpha, const std::complex<float>* a, std::int64_t lda,
                    const std::complex<float>* b, std::int64_t ldb, std::complex<float> beta,
                    std::complex<float>* c, std::int64_t ldc, BlasPath path = BlasPath::Any) = 0;
  virtual void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k,
                    std::complex<double> alpha, const std::complex<double>* a, std::int64_t lda,
                    const std::complex<double>* b, std::int64_t ldb, std::complex<double> beta,
                    std::complex<double>* c, std::int64_t ldc, BlasPath path = BlasPath::Any) = 0;
};

// The process-wide provider, loaded on first use (thread-safe). The choice: TENSORA_BLAS
// (blis | openblas | reference) when set, else BLIS, else OpenBLAS, else the reference loops;
// a BLIS without kernels for this CPU comes after OpenBLAS.
// Its thread count starts at 1.
BlasProvider& blas();

// The provider for one explicit choice ("blis", "openblas", "reference"), or nullptr when that
// library cannot be loaded. Used by benchmarks to measure the candidates side by side.
BlasProvider* blas_by_name(const std::string& which);

// The dlopen handle of OpenBLAS (RTLD_LOCAL; its kernels picked for this CPU when this call
// loads it), or nullptr when it is not installed. Its BLAS is a fallback above; its LAPACK is
// the one the factorizations use (cpu/lapack.hpp).
void* open_openblas();

// OpenBLAS's thread count, which is process-wide: another library in the process (LibTorch,
// NumPy) may change it at any time. Each of tensora's calls into OpenBLAS (its GEMM, its LAPACK)
// puts its own count back first with hold(): one load through a pointer when nothing changed
// (docs/linalg.md, "Threads").
class OpenBlasThreads {
 public:
  OpenBlasThreads() = default;
  // From a handle of OpenBLAS (open_openblas); does nothing for a library without the count.
  explicit OpenBlasThreads(void* handle);
  bool available() const { return set_ != nullptr; }
  void set(int n) const {
    if (set_ != nullptr) set_(n);
  }
  void hold(int n) const {
    if (get_ != nullptr && get_() != n) set_(n);
  }

 private:
  int (*get_)() = nullptr;
  void (*set_)(int) = nullptr;
};

}  // namespace tensora::cpu
