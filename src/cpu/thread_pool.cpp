#include "cpu/thread_pool.hpp"

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
  finished_ += done_here;
  if (finished_ == chunks_) done_.notify_all();
}

void ThreadPool::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++active_;
    }
    work_on_current_job();
    std::lock_guard lock(mutex_);
    if (--active_ == 0) done_.notify_all();
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
    done_.wait(lock, [&] { return active_ == 0; });
    job_ = &chunk;
    chunks_ = chunks;
    next_.store(0, std::memory_order_relaxed);
    finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  work_on_current_job();
  std::exception_ptr error;
  {
    // Wait for the chunks and for every worker to leave this job before job_ dies.
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return finished_ == chunks_ && active_ == 0; });
    job_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tensora
