// Engines run ops for one device, each through its backend (the kernels; docs/architecture.md).
// The CPU engine is serial or owns a thread pool; work is cut into fixed chunks that do not
// depend on the thread count, so a parallel engine gives bitwise the same results as a serial
// one. The reference engine runs plain serial scalar loops: an obviously correct engine to
// compare the others against.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "tensora/device.hpp"

namespace tensora {

class ThreadPool;
namespace backend {
class Backend;  // src/backend/backend.hpp: internal, not installed
}

class Engine {
 public:
  virtual ~Engine() = default;

  Device device() const { return device_; }
  virtual int threads() const = 0;
  // Calls body(begin, end) for the chunks [k * grain, min((k + 1) * grain, n)), possibly on
  // several threads; returns when all are done. Exceptions from body are rethrown here.
  virtual void parallel_for(std::int64_t n, std::int64_t grain,
                            const std::function<void(std::int64_t, std::int64_t)>& body) = 0;
  // The kernels this engine runs ops with. Not virtual: every op asks for it, and a stored
  // reference keeps the seam at one virtual call (the family's entry point) per op.
  backend::Backend& backend() const { return *backend_; }

 protected:
  Engine(Device device, backend::Backend& backend) : device_(device), backend_(&backend) {}

 private:
  Device device_;
  backend::Backend* backend_;
};

class CpuEngine final : public Engine {
 public:
  static CpuEngine serial(Device device = Device::cpu());
  // `threads` >= 1 worker threads in total (the calling thread counts as one).
  static CpuEngine parallel(int threads, Device device = Device::cpu(),
                            SourceLocation where = SourceLocation::current());

  int threads() const override { return threads_; }
  void parallel_for(std::int64_t n, std::int64_t grain,
                    const std::function<void(std::int64_t, std::int64_t)>& body) override;

 private:
  CpuEngine(Device device, int threads);

  int threads_;
  std::shared_ptr<ThreadPool> pool_;  // null for a serial engine
};

// Plain serial loops behind the same seam: no SIMD, no BLAS, no threads. Slow by design; tests
// compare the CPU engine against it (tolerances in docs/architecture.md).
class ReferenceEngine final : public Engine {
 public:
  explicit ReferenceEngine(Device device = Device::cpu());

  int threads() const override { return 1; }
  void parallel_for(std::int64_t n, std::int64_t grain,
                    const std::function<void(std::int64_t, std::int64_t)>& body) override;
};

}  // namespace tensora
