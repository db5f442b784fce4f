// Built with -O3 -march=native -fopenmp-simd (bench/CMakeLists.txt): plain loops the
// compiler vectorizes for this exact CPU. No tensora code here.
#include "reference_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace bench::ref {

namespace {

// Persistent helper threads that sleep on an atomic (futex) between jobs; the caller works
// on part 0, helper k on part k.
class Pool {
 public:
  explicit Pool(int helpers) {
    for (int k = 1; k <= helpers; ++k) threads_.emplace_back([this, k] { loop(k); });
  }
  ~Pool() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int size() const { return static_cast<int>(threads_.size()) + 1; }

  void run(const std::function<void(int)>& part) {
    job_ = &part;
    pending_.store(static_cast<int>(threads_.size()));
    generation_.fetch_add(1);
    generation_.notify_all();
    part(0);
    for (int p; (p = pending_.load()) != 0;) pending_.wait(p);
    job_ = nullptr;
  }

 private:
  void loop(int k) {
    std::uint64_t seen = 0;
    for (;;) {
      generation_.wait(seen);
      seen = generation_.load();
      if (stop_.load()) return;
      (*job_)(k);
      if (pending_.fetch_sub(1) == 1) pending_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

Pool& pool_for(int threads) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<Pool>> pools;  // index: threads
  std::lock_guard lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(threads)) pools.resize(static_cast<std::size_t>(threads) + 1);
  auto& p = pools[static_cast<std::size_t>(threads)];
  if (!p) p = std::make_unique<Pool>(threads - 1);
  return *p;
}

}  // namespace

// body(part, begin, end) for `threads` parts of [0, n), 64-element aligned.
void parallel_parts(int threads, std::int64_t n,
                    const std::function<void(int, std::int64_t, std::int64_t)>& body) {
  if (threads <= 1 || n < 2) {
    body(0, 0, n);
    return;
  }
  const std::int64_t per = (n + threads - 1) / threads;
  const std::int64_t part = (per + 63) / 64 * 64;
  pool_for(threads).run([&](int k) {
    const std::int64_t b = std::min(n, k * part), e = std::min(n, (k + 1) * part);
    if (b < e) body(k, b, e);
  });
}

void parallel(int threads, std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) {
  parallel_parts(threads, n, [&](int, std::int64_t b, std::int64_t e) { body(b, e); });
}

void* aligned_zeroed(std::size_t bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  return p;
}
void aligned_free(void* p) { std::free(p); }

namespace {

template <class T>
void triad_t(int threads, T* __restrict a, const T* __restrict b, const T* __restrict c, T s, std::int64_t n) {
  parallel(threads, n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
  });
}
template <class T>
void scale_t(int threads, T* __restrict out, const T* __restrict in, T s, std::int64_t n) {
  parallel(threads, n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) out[i] = s * in[i];
  });
}
template <class T>
void add_t(int threads, T* __restrict out, const T* __restrict a, const T* __restrict b, std::int64_t n) {
  parallel(threads, n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) out[i] = a[i] + b[i];
  });
}
template <class T>
void fma_t(int threads, T* __restrict out, const T* __restrict a, const T* __restrict b,
           const T* __restrict c, std::int64_t n) {
  parallel(threads, n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) out[i] = a[i] * b[i] + c[i];
  });
}

}  // namespace

void triad(int threads, double* a, const double* b, const double* c, double s, std::int64_t n) { triad_t(threads, a, b, c, s, n); }
void triad(int threads, float* a, const float* b, const float* c, float s, std::int64_t n) { triad_t(threads, a, b, c, s, n); }
void scale(int threads, float* out, const float* in, float s, std::int64_t n) { scale_t(threads, out, in, s, n); }
void scale(int threads, double* out, const double* in, double s, std::int64_t n) { scale_t(threads, out, in, s, n); }
void add(int threads, float* out, const float* a, const float* b, std::int64_t n) { add_t(threads, out, a, b, n); }
void add(int threads, double* out, const double* a, const double* b, std::int64_t n) { add_t(threads, out, a, b, n); }
void fma(int threads, float* out, const float* a, const float* b, const float* c, std::int64_t n) { fma_t(threads, out, a, b, c, n); }
void fma(int threads, double* out, const double* a, const double* b, const double* c, std::int64_t n) { fma_t(threads, out, a, b, c, n); }

void chain8(int threads, bool divide, float* out, const float* x, std::int64_t n) {
  parallel(threads, n, [=](std::int64_t lo, std::int64_t hi) {
    float* __restrict o = out;
    const float* __restrict a = x;
    if (divide) {
#pragma omp simd
      for (std::int64_t i = lo; i < hi; ++i) {
        const float v = a[i];
        const float r = ((v * 1.5f + 0.25f) * v - 0.5f) / (v * v + 1.0f);
        o[i] = r < -0.25f ? -0.25f : r;  // maximum(r, -0.25) for non-NaN inputs
      }
    } else {
#pragma omp simd
      for (std::int64_t i = lo; i < hi; ++i) {
        const float v = a[i];
        const float r = ((v * 1.5f + 0.25f) * v - 0.5f) * (v * v + 1.0f);
        o[i] = r < -0.25f ? -0.25f : r;
      }
    }
  });
}

void add_tiny(float* __restrict out, const float* __restrict a, const float* __restrict b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Sum of a dense run in double with 16 independent lanes (several vector accumulators, so the
// loop is not bound by the add latency).
double sum_run(const float* __restrict p, std::int64_t len) {
  double acc[16] = {};
  std::int64_t i = 0;
  for (; i + 16 <= len; i += 16)
    for (int k = 0; k < 16; ++k) acc[k] += static_cast<double>(p[i + k]);
  double s = 0.0;
  for (; i < len; ++i) s += static_cast<double>(p[i]);
  for (double a : acc) s += a;
  return s;
}

double sum(int threads, const float* x, std::int64_t n) {
  std::vector<double> partial(static_cast<std::size_t>(std::max(threads, 1)) * 8, 0.0);
  double* slots = partial.data();
  parallel_parts(threads, n, [=](int k, std::int64_t lo, std::int64_t hi) {
    const double s = sum_run(x + lo, hi - lo);
    slots[static_cast<std::size_t>(k) * 8] = s;  // one cache line per part
  });
  double total = 0.0;
  for (double p : partial) total += p;
  return total;
}

float max(int threads, const float* x, std::int64_t n) {
  std::vector<float> partial(static_cast<std::size_t>(std::max(threads, 1)) * 16,
                             -std::numeric_limits<float>::infinity());
  float* slots = partial.data();
  parallel_parts(threads, n, [=](int k, std::int64_t lo, std::int64_t hi) {
    const float* __restrict p = x + lo;
    const std::int64_t len = hi - lo;
    float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
    for (std::int64_t i = 0; i < len; ++i) m = m < p[i] ? p[i] : m;
    slots[static_cast<std::size_t>(k) * 16] = m;
  });
  float best = -std::numeric_limits<float>::infinity();
  for (float p : partial) best = std::max(best, p);
  return best;
}

void sum_inner(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols) {
  parallel(threads, cols, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      out[j] = static_cast<float>(sum_run(x + j * rows, rows));
    }
  });
}

void sum_outer(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols) {
  // Each thread owns a band of rows and sweeps the columns, accumulating in double.
  parallel(threads, rows, [=](std::int64_t lo, std::int64_t hi) {
    std::vector<double> acc(static_cast<std::size_t>(hi - lo), 0.0);
    double* __restrict a = acc.data();
    for (std::int64_t j = 0; j < cols; ++j) {
      const float* __restrict col = x + j * rows + lo;
      for (std::int64_t i = 0; i < hi - lo; ++i) a[i] += static_cast<double>(col[i]);
    }
    for (std::int64_t i = 0; i < hi - lo; ++i) out[lo + i] = static_cast<float>(a[i]);
  });
}

void max_inner(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols) {
  parallel(threads, cols, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const float* __restrict col = x + j * rows;
      float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
      for (std::int64_t i = 0; i < rows; ++i) m = m < col[i] ? col[i] : m;
      out[j] = m;
    }
  });
}

void max_outer(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols) {
  parallel(threads, rows, [=](std::int64_t lo, std::int64_t hi) {
    float* __restrict o = out + lo;
    for (std::int64_t i = 0; i < hi - lo; ++i) o[i] = -std::numeric_limits<float>::infinity();
    for (std::int64_t j = 0; j < cols; ++j) {
      const float* __restrict col = x + j * rows + lo;
      for (std::int64_t i = 0; i < hi - lo; ++i) o[i] = std::max(o[i], col[i]);
    }
  });
}

}  // namespace bench::ref
