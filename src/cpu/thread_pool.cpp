#include "cpu/thread_pool.hpp"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tensora {

namespace {

// The pool whose job this thread is running chunks of. A chunk that calls run() on the same
// pool again (an op on the same engine from inside parallel_for) runs its chunks inline: the
// job lock is held and the workers are busy, so waiting for them would deadlock.
thread_local const ThreadPool* t_running_pool = nullptr;

struct RunningScope {
  const ThreadPool* saved;
  explicit RunningScope(const ThreadPool* pool) : saved(t_running_pool) { t_running_pool = pool; }
  ~RunningScope() { t_running_pool = saved; }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;
};

constexpr auto kSpin = std::chrono::microseconds(100);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until done() or kSpin has passed; true if done() became true.
template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    cpu_relax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int workers) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::work_on_current_job() {
  const RunningScope running(this);
  std::int64_t done_here = 0;
  for (std::int64_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < chunks_;) {
    try {
      (*job_)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    ++done_here;
  }
  std::lock_guard lock(mutex_);
  finished_.fetch_add(done_here, std::memory_order_release);
  if (finished_.load(std::memory_order_relaxed) == chunks_) done_.notify_all();
}

void ThreadPool::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return published_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      active_.fetch_add(1, std::memory_order_relaxed);
    }
    work_on_current_job();
    std::lock_guard lock(mutex_);
    if (active_.fetch_sub(1, std::memory_order_release) == 1) done_.notify_all();
  }
}

void ThreadPool::run(std::int64_t chunks, const std::function<void(std::int64_t)>& chunk) {
  if (t_running_pool == this) {  // nested inside one of this pool's chunks
    for (std::int64_t i = 0; i < chunks; ++i) chunk(i);
    return;
  }
  std::lock_guard serialize(run_mutex_);
  {
    // A worker that woke late for the previous job may still be leaving it.
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return active_.load(std::memory_order_relaxed) == 0; });
    job_ = &chunk;
    chunks_ = chunks;
    next_.store(0, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    ++generation_;
    published_.store(generation_, std::memory_order_release);
  }
  wake_.notify_all();
  work_on_current_job();
  std::exception_ptr error;
  {
    // Wait for the chunks and for every worker to leave this job before job_ dies.
    auto all_done = [&] {
      return finished_.load(std::memory_order_acquire) == chunks_ && active_.load(std::memory_order_acquire) == 0;
    };
    spin_until(all_done);
    std::unique_lock lock(mutex_);
    done_.wait(lock, all_done);
    job_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tensora
