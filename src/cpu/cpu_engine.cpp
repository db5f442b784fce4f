#include "tensora/engine.hpp"

#include "core/checks.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/thread_pool.hpp"

namespace tensora {

CpuEngine::CpuEngine(Device device, int threads)
    : Engine(device, cpu::cpu_backend()), threads_(threads),
      pool_(threads > 1 ? std::make_shared<ThreadPool>(threads - 1) : nullptr) {}

CpuEngine CpuEngine::serial(Device device) { return CpuEngine(device, 1); }

CpuEngine CpuEngine::parallel(int threads, Device device, SourceLocation where) {
  if (threads < 1)
    check::fail_invalid("CpuEngine::parallel",
                        "threads must be >= 1, got " + std::to_string(threads), "threads", where);
  return CpuEngine(device, threads);
}

void CpuEngine::parallel_for(std::int64_t n, std::int64_t grain,
                             const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const std::int64_t chunks = (n + grain - 1) / grain;
  auto chunk = [&](std::int64_t k) { body(k * grain, std::min(n, (k + 1) * grain)); };
  if (!pool_ || chunks == 1) {
    for (std::int64_t k = 0; k < chunks; ++k) chunk(k);
    return;
  }
  pool_->run(chunks, chunk);
}

}  // namespace tensora
