#include "cpu/fft_provider.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include "cpu/fftw_provider.hpp"

namespace tensora::cpu::fft {

namespace {

bool use_fftw() {
  static const bool use = [] {
    const char* env = std::getenv("TENSORA_FFT");
    if (env != nullptr && std::string_view(env) == "builtin") return false;
    return !fftw_version().empty();
  }();
  return use;
}

// FFTW plans by (n, kind); never destroyed (plans outlive every static that could use them).
template <class T>
std::shared_ptr<const Plan<T>> cached_fftw(std::int64_t n, Kind kind) {
  static std::mutex mu;
  static auto* cache = new std::map<std::pair<std::int64_t, Kind>, std::shared_ptr<const Plan<T>>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*cache)[{n, kind}];
  if (!slot) slot = fftw_plan<T>(n, kind);
  return slot;
}

template <class T>
std::shared_ptr<const Plan<T>> lookup_plan(std::int64_t n, Kind kind) {
  if (use_fftw())
    if (auto p = cached_fftw<T>(n, kind)) return p;
  return plan<T>(n, kind);  // the built-in plans (their own cache); also when FFTW cannot take n
}

}  // namespace

template <class T>
const Plan<T>& provider_plan(std::int64_t n, Kind kind) {
  // The thread's last plan first: a loop of small transforms of one size then takes neither
  // the cache's lock nor its map lookup. Both caches keep their plans for the life of the
  // process, so a plain pointer stays valid and no reference count is touched per call (two
  // atomic read-modify-writes, a measurable part of a 1024-point transform).
  struct Last {
    const Plan<T>* plan = nullptr;
    std::int64_t n = 0;
    Kind kind = Kind::Forward;
  };
  thread_local Last last;  // its key kept beside it: no virtual call to compare
  if (last.plan == nullptr || last.n != n || last.kind != kind) last = {lookup_plan<T>(n, kind).get(), n, kind};
  return *last.plan;
}

template const Plan<float>& provider_plan<float>(std::int64_t, Kind);
template const Plan<double>& provider_plan<double>(std::int64_t, Kind);

std::string provider_name() { return use_fftw() ? fftw_version() : "built-in"; }

}  // namespace tensora::cpu::fft
