// A fixed pool of workers that help the calling thread through a list of chunks. Between
// jobs a worker spins for a short while (kSpin) before it sleeps, and so does the caller
// waiting for the last chunk: a futex wake-up costs tens of microseconds, as much as a
// 256 x 256 GEMM block, and ops come back to back.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tensora {

class ThreadPool {
 public:
  explicit ThreadPool(int workers);  // threads besides the caller
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs chunk(i) for i in [0, chunks) on the caller and the workers.
  void run(std::int64_t chunks, const std::function<void(std::int64_t)>& chunk);

 private:
  void worker_loop();
  void work_on_current_job();

  std::vector<std::thread> threads_;
  std::mutex mutex_;  // guards job fields and generation_
  std::mutex run_mutex_;  // one job at a time per pool
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> published_{0};  // generation_, for the spinning workers
  bool stop_ = false;
  const std::function<void(std::int64_t)>* job_ = nullptr;
  std::int64_t chunks_ = 0;
  std::atomic<std::int64_t> next_{0};
  std::atomic<std::int64_t> finished_{0};  // written under mutex_, read while spinning
  std::atomic<int> active_{0};
  std::exception_ptr error_;
};

}  // namespace tensora
