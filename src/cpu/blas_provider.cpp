// BLAS providers: BLIS (preferred), OpenBLAS, and tensora's own loops as the last resort.
// Libraries are opened with dlopen(RTLD_LOCAL) and called through their own symbol names, so
// tensora never takes over (or is taken over by) the dgemm_/cblas_dgemm of another BLAS that
// the same process loads, e.g. LibTorch's or NumPy's OpenBLAS. See docs/contractions.md.
#include "cpu/blas_provider.hpp"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "cpu/gemm_kernels.hpp"

#ifndef TENSORA_BLIS_LIBRARY
#define TENSORA_BLIS_LIBRARY ""
#endif
#ifndef TENSORA_OPENBLAS_LIBRARY
#define TENSORA_OPENBLAS_LIBRARY ""
#endif

namespace tensora::cpu {

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;

// CPUs with the AVX-512 subset the skx / SkylakeX kernels use (any vendor).
bool skx_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

// The same on an Intel CPU.
bool intel_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_is("intel") && skx_avx512();
}

// Sets an environment variable only when the user has not set it.
void set_default_env(const char* name, const char* value) {
  if (std::getenv(name) == nullptr) ::setenv(name, value, 0);
}

void* open_first(const std::vector<std::string>& candidates, int flags) {
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    if (void* h = ::dlopen(c.c_str(), flags)) return h;
  }
  return nullptr;
}

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(::dlsym(handle, name));
}

// ---- reference: tensora's own register-tiled loops ----------------------------------------

template <class T>
void reference_gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
                    std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const gemm::Mat<T> am{a, ta == BlasOp::N ? 1 : lda, ta == BlasOp::N ? lda : 1};
  const gemm::Mat<T> bm{b, tb == BlasOp::N ? 1 : ldb, tb == BlasOp::N ? ldb : 1};
  if (alpha == T(1) && beta == T(0)) {
    gemm::generic<T>(m, n, k, am, bm, {c, 1, ldc});
    return;
  }
  std::vector<T> tmp(static_cast<std::size_t>(m * n));
  gemm::generic<T>(m, n, k, am, bm, {tmp.data(), 1, m});
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      T& dst = c[i + j * ldc];
      const T v = alpha * tmp[static_cast<std::size_t>(i + j * m)];
      dst = beta == T(0) ? v : v + beta * dst;
    }
}

class ReferenceProvider final : public BlasProvider {
 public:
  explicit ReferenceProvider(std::string why) : why_(std::move(why)) {}
  std::string name() const override { return "reference (" + why_ + ")"; }
  void set_threads(int) override {}
  int threads() const override { return 1; }
  bool has_large_path() const override { return false; }  // one kernel for every shape
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
            float* c, std::int64_t ldc, BlasPath /*path*/) override {
    reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
            const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
            double* c, std::int64_t ldc, BlasPath /*path*/) override {
    reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cf alpha,
            const cf* a, std::int64_t lda, const cf* b, std::int64_t ldb, cf beta, cf* c,
            std::int64_t ldc, BlasPath /*path*/) override {
    reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cd alpha,
            const cd* a, std::int64_t lda, const cd* b, std::int64_t ldb, cd beta, cd* c,
            std::int64_t ldc, BlasPath /*path*/) override {
    reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

 private:
  std::string why_;
};

// ---- BLIS: the typed expert API with general strides --------------------------------------
//
// bli_?gemm_ex(transa, transb, m, n, k, alpha, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc,
// cntx, rntm): dim_t / inc_t are 64-bit, trans_t is an enum (0 = no transpose). op(X) = X^T
// is expressed by swapping X's row and column strides, so transa/transb stay 0.

template <class T>
using BliGemm = void (*)(int, int, long, long, long, const T*, const T*, long, long, const T*, long, long, const T*,
                         T*, long, long, void*, void*);

// BLIS 0.9's rntm_t (frame/include/bli_type_defs.h), the per-call runtime object of the
// expert API. tensora loads BLIS without its headers, so the layout is mirrored here and used
// only for a library that reports version 0.9 (BLIS 1.0 put a field in front).
struct Blis09Runtime {
  bool auto_factor;
  long num_threads;
  long thrloop[6];
  bool pack_a, pack_b, l3_sup;
  void* sba_pool;
  void* pba;
};
static_assert(sizeof(Blis09Runtime) == 88, "BLIS 0.9 rntm_t is 88 bytes on LP64");

class BlisProvider final : public BlasProvider {
 public:
  static std::unique_ptr<BlisProvider> load() {
    void* h = open_first({TENSORA_BLIS_LIBRARY, "libblis.so.4", "libblis.so.3", "libblis.so"}, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return nullptr;
    auto p = std::unique_ptr<BlisProvider>(new BlisProvider(h));
    if (!p->sgemm_ || !p->dgemm_ || !p->cgemm_ || !p->zgemm_ || !p->set_nt_) return nullptr;
    // BLIS 0.9 picks its sub-configuration from cpuid at its first call. It takes "skx" only
    // when an Intel CPU's brand string names a SKU with two AVX-512 FMA units (virtual machines
    // often report a bare "Intel(R) Xeon(R) Processor" and get "haswell", AVX2), and it predates
    // AMD's AVX-512 CPUs (Zen 4, Zen 5), on which it runs its plain C "generic" kernels.
    // BLIS_ARCH_TYPE (the arch_t id; BLIS_ARCH_SKX = 0 in 0.9) overrides that; a value the user
    // set is kept.
    if (p->version_.rfind("0.9", 0) == 0 && skx_avx512()) set_default_env("BLIS_ARCH_TYPE", "0");
    p->set_threads(1);  // the first call: BLIS initializes and reads BLIS_ARCH_TYPE here
    if (p->arch_query_ && p->arch_string_) p->arch_ = p->arch_string_(p->arch_query_());
    if (auto find = symbol<int (*)(int, int)>(h, "bli_ind_oper_find_avail")) {
      constexpr int kGemm = 0, kScomplex = 1, kDcomplex = 3, kNative = 1;  // BLIS 0.9's opid_t, num_t, ind_t
      p->complex_induced_ = find(kGemm, kScomplex) != kNative || find(kGemm, kDcomplex) != kNative;
    }
    return p;
  }

  // A sub-configuration without complex micro-kernels (skx) computes complex products by the
  // "1m" induced method, whose results depend on the thread that calls it: a C64 product on a
  // Sapphire Rapids gave the same bits on every call from one thread and other bits (relative
  // differences up to 7e-5) from another, which would break the serial/parallel bitwise
  // promise (docs/contractions.md). Such a BLIS hands its complex products to `complex`
  // (OpenBLAS, whose AVX-512 complex kernels were also as fast or faster there).
  bool complex_by_induced_method() const { return complex_induced_; }
  void set_complex_provider(std::unique_ptr<BlasProvider> complex) { complex_ = std::move(complex); }

  std::string name() const override {
    std::string n = "BLIS " + version_ + (arch_.empty() ? "" : " (" + arch_ + ")");
    return complex_ ? n + ", complex products on " + complex_->name() : n;
  }
  void set_threads(int threads) override {
    threads_ = threads < 1 ? 1 : threads;
    set_nt_(threads_);
    if (complex_) complex_->set_threads(threads_);
  }
  int threads() const override { return threads_; }
  bool has_large_path() const override { return large_path_; }
  bool tuned_for_cpu() const override { return arch_ != "generic"; }

  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
            float* c, std::int64_t ldc, BlasPath path) override {
    call(sgemm_, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
            const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
            double* c, std::int64_t ldc, BlasPath path) override {
    call(dgemm_, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cf alpha,
            const cf* a, std::int64_t lda, const cf* b, std::int64_t ldb, cf beta, cf* c,
            std::int64_t ldc, BlasPath path) override {
    if (complex_) return complex_->gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
    call(cgemm_, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cd alpha,
            const cd* a, std::int64_t lda, const cd* b, std::int64_t ldb, cd beta, cd* c,
            std::int64_t ldc, BlasPath path) override {
    if (complex_) return complex_->gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
    call(zgemm_, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, path);
  }

 private:
  explicit BlisProvider(void* h)
      : sgemm_(symbol<BliGemm<float>>(h, "bli_sgemm_ex")),
        dgemm_(symbol<BliGemm<double>>(h, "bli_dgemm_ex")),
        cgemm_(symbol<BliGemm<cf>>(h, "bli_cgemm_ex")),
        zgemm_(symbol<BliGemm<cd>>(h, "bli_zgemm_ex")),
        set_nt_(symbol<void (*)(long)>(h, "bli_thread_set_num_threads")),
        runtime_from_global_(symbol<void (*)(Blis09Runtime*)>(h, "bli_rntm_init_from_global")),
        arch_query_(symbol<int (*)()>(h, "bli_arch_query_id")),
        arch_string_(symbol<const char* (*)(int)>(h, "bli_arch_string")) {
    if (auto v = symbol<const char* (*)()>(h, "bli_info_get_version_str")) version_ = v();
    large_path_ = runtime_from_global_ != nullptr && version_.rfind("0.9", 0) == 0;  // the mirrored rntm_t
  }

  template <class T>
  void call(BliGemm<T> f, BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k,
            T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
            std::int64_t ldc, BlasPath path) const {
    if (m <= 0 || n <= 0) return;
    const long rsa = ta == BlasOp::N ? 1 : lda, csa = ta == BlasOp::N ? lda : 1;
    const long rsb = tb == BlasOp::N ? 1 : ldb, csb = tb == BlasOp::N ? ldb : 1;
    // Large: the process's settings (threads: 1) with the small-matrix ("sup") handling off.
    Blis09Runtime runtime;
    const bool large = path == BlasPath::Large && large_path_;
    if (large) {
      runtime_from_global_(&runtime);
      runtime.l3_sup = false;
    }
    f(0, 0, m, n, k, &alpha, a, rsa, csa, b, rsb, csb, &beta, c, 1, ldc, nullptr, large ? &runtime : nullptr);
  }

  BliGemm<float> sgemm_;
  BliGemm<double> dgemm_;
  BliGemm<cf> cgemm_;
  BliGemm<cd> zgemm_;
  void (*set_nt_)(long);
  void (*runtime_from_global_)(Blis09Runtime*);
  int (*arch_query_)();
  const char* (*arch_string_)(int);
  std::string version_ = "?";
  bool large_path_ = false;
  bool complex_induced_ = false;
  std::unique_ptr<BlasProvider> complex_;
  std::string arch_;
  int threads_ = 1;
};

}  // namespace

void* open_openblas() {
  const std::vector<std::string> names{TENSORA_OPENBLAS_LIBRARY, "libopenblas.so.0", "libopenblas.so"};
  // OpenBLAS picks its kernels once, when the library is loaded, and may not know a new
  // CPU (it then runs its SSE3 "Prescott" kernels). OPENBLAS_CORETYPE only helps before the
  // load: when this process already has OpenBLAS (LibTorch, NumPy, ...) we get it as is.
  const bool loaded = open_first(names, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) != nullptr;
  if (!loaded && intel_avx512())
    set_default_env("OPENBLAS_CORETYPE", __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX");
  return open_first(names, RTLD_NOW | RTLD_LOCAL);
}

OpenBlasThreads::OpenBlasThreads(void* handle)
    : get_(symbol<int (*)()>(handle, "openblas_get_num_threads")),
      set_(symbol<void (*)(int)>(handle, "openblas_set_num_threads")) {
  if (get_ == nullptr || set_ == nullptr) {
    get_ = nullptr;
    set_ = nullptr;
  }
}

namespace {

// ---- OpenBLAS: CBLAS with 32-bit integers -------------------------------------------------

enum { kCblasColMajor = 102, kCblasNoTrans = 111, kCblasTrans = 112 };
using CblasS = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using CblasD = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*,
                        int);
using CblasZ = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int, const void*,
                        void*, int);

class OpenBlasProvider final : public BlasProvider {
 public:
  static std::unique_ptr<OpenBlasProvider> load() {
    void* h = open_openblas();
    if (h == nullptr) return nullptr;
    auto p = std::unique_ptr<OpenBlasProvider>(new OpenBlasProvider(h));
    if (!p->s_ || !p->d_ || !p->c_ || !p->z_ || !p->count_.available()) return nullptr;
    p->set_threads(1);
    return p;
  }

  std::string name() const override { return "OpenBLAS" + config_; }
  void set_threads(int threads) override {
    threads_ = threads < 1 ? 1 : threads;
    count_.set(threads_);
  }
  int threads() const override { return threads_; }
  // OpenBLAS has no per-call control; its kernels for a shape are fixed by its build.
  bool has_large_path() const override { return false; }

  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
            const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
            float* c, std::int64_t ldc, BlasPath /*path*/) override {
    if (m <= 0 || n <= 0) return;
    if (!fits(m, n, k, lda, ldb, ldc)) return reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    count_.hold(threads_);  // another library may have changed it
    s_(kCblasColMajor, op(ta), op(tb), int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
            const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
            double* c, std::int64_t ldc, BlasPath /*path*/) override {
    if (m <= 0 || n <= 0) return;
    if (!fits(m, n, k, lda, ldb, ldc)) return reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    count_.hold(threads_);  // another library may have changed it
    d_(kCblasColMajor, op(ta), op(tb), int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cf alpha,
            const cf* a, std::int64_t lda, const cf* b, std::int64_t ldb, cf beta, cf* c,
            std::int64_t ldc, BlasPath /*path*/) override {
    if (m <= 0 || n <= 0) return;
    if (!fits(m, n, k, lda, ldb, ldc)) return reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    count_.hold(threads_);  // another library may have changed it
    c_(kCblasColMajor, op(ta), op(tb), int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta, c, int(ldc));
  }
  void gemm(BlasOp ta, BlasOp tb, std::int64_t m, std::int64_t n, std::int64_t k, cd alpha,
            const cd* a, std::int64_t lda, const cd* b, std::int64_t ldb, cd beta, cd* c,
            std::int64_t ldc, BlasPath /*path*/) override {
    if (m <= 0 || n <= 0) return;
    if (!fits(m, n, k, lda, ldb, ldc)) return reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    count_.hold(threads_);  // another library may have changed it
    z_(kCblasColMajor, op(ta), op(tb), int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta, c, int(ldc));
  }

 private:
  explicit OpenBlasProvider(void* h)
      : s_(symbol<CblasS>(h, "cblas_sgemm")),
        d_(symbol<CblasD>(h, "cblas_dgemm")),
        c_(symbol<CblasZ>(h, "cblas_cgemm")),
        z_(symbol<CblasZ>(h, "cblas_zgemm")),
        count_(h) {
    if (auto cfg = symbol<const char* (*)()>(h, "openblas_get_config")) {
      // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64" -> " 0.3.21 (SkylakeX)"
      std::string_view s = cfg();
      if (s.rfind("OpenBLAS ", 0) == 0) s.remove_prefix(9);
      config_ = " " + std::string(s.substr(0, s.find(' ')));
    }
    if (auto core = symbol<const char* (*)()>(h, "openblas_get_corename")) config_ += " (" + std::string(core()) + ")";
  }
  static int op(BlasOp o) { return o == BlasOp::N ? kCblasNoTrans : kCblasTrans; }
  static bool fits(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                   std::int64_t ldc) {
    for (std::int64_t v : {m, n, k, lda, ldb, ldc})
      if (v > INT_MAX) return false;
    return true;
  }

  CblasS s_;
  CblasD d_;
  CblasZ c_;
  CblasZ z_;
  OpenBlasThreads count_;
  std::string config_;
  int threads_ = 1;
};

std::unique_ptr<BlasProvider> make(const std::string& which) {
  if (which == "blis") {
    auto p = BlisProvider::load();
    if (p && p->complex_by_induced_method())
      if (auto complex = OpenBlasProvider::load()) p->set_complex_provider(std::move(complex));
    return p;
  }
  if (which == "openblas") return OpenBlasProvider::load();
  if (which == "reference") return std::make_unique<ReferenceProvider>("TENSORA_BLAS=reference");
  return nullptr;
}

}  // namespace

BlasProvider* blas_by_name(const std::string& which) {
  // One instance per library for the life of the process (handles are never closed).
  static std::mutex mu;
  static std::vector<std::pair<std::string, std::unique_ptr<BlasProvider>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (auto& [name, p] : cache)
    if (name == which) return p.get();
  auto p = make(which);
  BlasProvider* raw = p.get();
  cache.emplace_back(which, std::move(p));
  return raw;
}

BlasProvider& blas() {
  static BlasProvider* const provider = [] {
    std::string tried;
    if (const char* env = std::getenv("TENSORA_BLAS"); env != nullptr && *env != '\0') {
      if (BlasProvider* p = blas_by_name(env)) return p;
      tried = std::string("TENSORA_BLAS=") + env + " could not be loaded; ";
    }
    BlasProvider* untuned = nullptr;
    for (const char* which : {"blis", "openblas"})
      if (BlasProvider* p = blas_by_name(which)) {
        if (p->tuned_for_cpu()) return p;
        if (untuned == nullptr) untuned = p;
      }
    if (untuned != nullptr) return untuned;
    static ReferenceProvider fallback(tried + "no BLAS library found");
    return static_cast<BlasProvider*>(&fallback);
  }();
  return *provider;
}

}  // namespace tensora::cpu
