#include "cpu/fftw_provider.hpp"

#include <dlfcn.h>

#include <climits>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

namespace tensora::cpu::fft {

namespace {

// FFTW's C interface, by symbol name (fftw_ for double, fftwf_ for float). Its complex type is
// T[2], laid out as std::complex<T>.
constexpr int kForward = -1, kBackward = 1;
constexpr unsigned kMeasure = 0U, kPatient = 1U << 5, kEstimate = 1U << 6;

template <class T>
struct Api {
  using plan_t = void*;
  plan_t (*dft_1d)(int, std::complex<T>*, std::complex<T>*, int, unsigned) = nullptr;
  plan_t (*r2c_1d)(int, T*, std::complex<T>*, unsigned) = nullptr;
  plan_t (*c2r_1d)(int, std::complex<T>*, T*, unsigned) = nullptr;
  void (*execute_dft)(plan_t, std::complex<T>*, std::complex<T>*) = nullptr;
  void (*execute_r2c)(plan_t, T*, std::complex<T>*) = nullptr;
  void (*execute_c2r)(plan_t, std::complex<T>*, T*) = nullptr;
  void (*destroy)(plan_t) = nullptr;
  void* (*malloc_)(std::size_t) = nullptr;
  void (*free_)(void*) = nullptr;
  int (*alignment_of)(T*) = nullptr;
  const char* version = nullptr;
  bool ok = false;
};

template <class F>
void bind(void* h, F& f, const std::string& name) {
  f = reinterpret_cast<F>(::dlsym(h, name.c_str()));
}

template <class T>
const Api<T>& api() {
  static const Api<T> a = [] {
    Api<T> a;
    const bool dbl = sizeof(T) == sizeof(double);
    void* h = ::dlopen(dbl ? "libfftw3.so.3" : "libfftw3f.so.3", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return a;
    const std::string p = dbl ? "fftw_" : "fftwf_";
    bind(h, a.dft_1d, p + "plan_dft_1d");
    bind(h, a.r2c_1d, p + "plan_dft_r2c_1d");
    bind(h, a.c2r_1d, p + "plan_dft_c2r_1d");
    bind(h, a.execute_dft, p + "execute_dft");
    bind(h, a.execute_r2c, p + "execute_dft_r2c");
    bind(h, a.execute_c2r, p + "execute_dft_c2r");
    bind(h, a.destroy, p + "destroy_plan");
    bind(h, a.malloc_, p + "malloc");
    bind(h, a.free_, p + "free");
    bind(h, a.alignment_of, p + "alignment_of");
    if (auto* v = reinterpret_cast<const char*>(::dlsym(h, (p + "version").c_str()))) a.version = v;
    a.ok = a.dft_1d && a.r2c_1d && a.c2r_1d && a.execute_dft && a.execute_r2c && a.execute_c2r && a.destroy &&
           a.malloc_ && a.free_ && a.alignment_of;
    return a;
  }();
  return a;
}

// FFTW's planner and plan destruction are not thread-safe; execution is.
std::mutex& planner_lock() {
  static std::mutex m;
  return m;
}

unsigned planner_flags() {
  const char* env = std::getenv("TENSORA_FFTW_PLANNER");
  const std::string_view v = env ? env : "";
  return v == "measure" ? kMeasure : v == "patient" ? kPatient : kEstimate;
}

// Bytes from the start of the scratch to the output buffer: past the input copy, on a 64-byte
// boundary, so both buffers have the alignment FFTW planned for (its malloc's).
std::size_t out_offset(std::int64_t n) { return (static_cast<std::size_t>(n + 1) * 2 * 8 + 63) / 64 * 64; }

template <class T>
class FftwPlan final : public Plan<T> {
  using C = std::complex<T>;

 public:
  FftwPlan(std::int64_t n, Kind kind, void* plan) : n_(n), kind_(kind), plan_(plan) {}
  ~FftwPlan() override {
    std::lock_guard<std::mutex> lock(planner_lock());
    api<T>().destroy(plan_);
  }
  std::int64_t size() const override { return n_; }
  Kind kind() const override { return kind_; }
  // The input copy and the output, each with room for n + 1 complex values, plus alignment slack.
  std::size_t scratch_size() const override { return (2 * out_offset(n_) + 64) / sizeof(T); }

  void execute(const void* in, std::int64_t in_stride, void* out, std::int64_t out_stride,
               T* scratch) const override {
    auto* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(scratch) + 63) / 64 * 64);
    char* obuf = base + out_offset(n_);
    const Api<T>& a = api<T>();
    const std::int64_t m = n_ / 2 + 1;
    // Unit-stride lines with the planning arrays' alignment run in place of the copies (FFTW's
    // new-array execute wants both); c2r may overwrite its input, so it always gets a copy.
    const bool in_direct = in_stride == 1 && kind_ != Kind::ComplexToReal && planned_alignment(in);
    const bool out_direct = out_stride == 1 && planned_alignment(out);
    switch (kind_) {
      case Kind::Forward:
      case Kind::Inverse: {
        C* x = in_direct ? static_cast<C*>(const_cast<void*>(in)) : reinterpret_cast<C*>(base);
        C* y = out_direct ? static_cast<C*>(out) : reinterpret_cast<C*>(obuf);
        if (!in_direct) gather(static_cast<const C*>(in), in_stride, x, n_);
        a.execute_dft(plan_, x, y);
        if (!out_direct) scatter(y, static_cast<C*>(out), out_stride, n_);
        return;
      }
      case Kind::RealToComplex: {
        T* x = in_direct ? static_cast<T*>(const_cast<void*>(in)) : reinterpret_cast<T*>(base);
        C* y = out_direct ? static_cast<C*>(out) : reinterpret_cast<C*>(obuf);
        if (!in_direct) gather(static_cast<const T*>(in), in_stride, x, n_);
        a.execute_r2c(plan_, x, y);
        if (!out_direct) scatter(y, static_cast<C*>(out), out_stride, m);
        return;
      }
      case Kind::ComplexToReal: {
        C* x = reinterpret_cast<C*>(base);
        T* y = out_direct ? static_cast<T*>(out) : reinterpret_cast<T*>(obuf);
        gather(static_cast<const C*>(in), in_stride, x, m);
        a.execute_c2r(plan_, x, y);
        if (!out_direct) scatter(y, static_cast<T*>(out), out_stride, n_);
        return;
      }
    }
  }

 private:
  template <class E>
  static void gather(const E* src, std::int64_t stride, E* dst, std::int64_t count) {
    if (stride == 1) std::memcpy(dst, src, static_cast<std::size_t>(count) * sizeof(E));
    else
      for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i * stride];
  }
  template <class E>
  static void scatter(const E* src, E* dst, std::int64_t stride, std::int64_t count) {
    if (stride == 1) std::memcpy(dst, src, static_cast<std::size_t>(count) * sizeof(E));
    else
      for (std::int64_t i = 0; i < count; ++i) dst[i * stride] = src[i];
  }

  // FFTW's plans are made on its malloc's arrays (alignment_of 0); an array with another
  // alignment must go through the aligned scratch.
  static bool planned_alignment(const void* p) {
    return api<T>().alignment_of(static_cast<T*>(const_cast<void*>(p))) == 0;
  }

  std::int64_t n_;
  Kind kind_;
  void* plan_;
};

}  // namespace

template <class T>
std::shared_ptr<const Plan<T>> fftw_plan(std::int64_t n, Kind kind) {
  const Api<T>& a = api<T>();
  if (!a.ok || n < 1 || n > INT_MAX / 2) return nullptr;
  std::lock_guard<std::mutex> lock(planner_lock());
  // Planning arrays from FFTW's malloc: the plan then expects its SIMD alignment, which the
  // scratch layout above provides. FFTW_ESTIMATE does not touch them; measuring overwrites them.
  const std::size_t bytes = out_offset(n);
  void* in = a.malloc_(bytes);
  void* out = a.malloc_(bytes);
  const unsigned flags = planner_flags();
  const int len = static_cast<int>(n);
  void* plan = nullptr;
  switch (kind) {
    case Kind::Forward:
    case Kind::Inverse:
      plan = a.dft_1d(len, static_cast<std::complex<T>*>(in), static_cast<std::complex<T>*>(out),
                      kind == Kind::Forward ? kForward : kBackward, flags);
      break;
    case Kind::RealToComplex:
      plan = a.r2c_1d(len, static_cast<T*>(in), static_cast<std::complex<T>*>(out), flags);
      break;
    case Kind::ComplexToReal:
      plan = a.c2r_1d(len, static_cast<std::complex<T>*>(in), static_cast<T*>(out), flags);
      break;
  }
  a.free_(in);
  a.free_(out);
  if (plan == nullptr) return nullptr;
  return std::make_shared<FftwPlan<T>>(n, kind, plan);
}

template std::shared_ptr<const Plan<float>> fftw_plan<float>(std::int64_t, Kind);
template std::shared_ptr<const Plan<double>> fftw_plan<double>(std::int64_t, Kind);

std::string fftw_version() {
  const Api<double>& a = api<double>();
  if (!a.ok) return "";
  std::string v = a.version ? a.version : "fftw-3";
  if (v.rfind("fftw-", 0) == 0) v = "FFTW " + v.substr(5);
  return v;
}

}  // namespace tensora::cpu::fft
