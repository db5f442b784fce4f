// The per-device caching allocator: statistics, reuse, release, cache limit, peak tracking.
//
// Every test here allocates on cpu:6 only, with explicit dtypes, so that no other test moves
// the numbers (test_support.hpp: cpu:6 is free for tensors and never configured).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/storage.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::MemoryStats;
using tensora::Tensor;

constexpr std::size_t kDefaultLimit = std::size_t{1} << 30;

class Memory : public ::testing::Test {
 protected:
  void SetUp() override {
    tensora::set_memory_cache_limit(dev, kDefaultLimit);
    tensora::release_cached_memory(dev);
    tensora::reset_peak_memory(dev);
    base = tensora::memory_stats(dev);
  }
  void TearDown() override {
    tensora::set_memory_cache_limit(dev, kDefaultLimit);
    tensora::release_cached_memory(dev);
  }
  MemoryStats stats() const { return tensora::memory_stats(dev); }
  Tensor f64(std::int64_t n) const { return Tensor::zeros({n}, {dev, DType::F64}); }

  const Device dev = Device::cpu(6);
  MemoryStats base;
};

TEST_F(Memory, StatsFollowATensorsLifetimeAndTheCacheIsReused) {
  EXPECT_EQ(base.bytes_cached, 0u);
  const void* first = nullptr;
  MemoryStats alive;
  {
    const Tensor t = f64(1000);  // 8000 bytes
    first = t.element_ptr();
    alive = stats();
    EXPECT_GE(alive.bytes_in_use, base.bytes_in_use + 8000);
    EXPECT_LE(alive.bytes_in_use, base.bytes_in_use + 8000 + 8000 / 4 + 64);  // size classes waste <= 25%
    EXPECT_EQ(alive.bytes_cached, base.bytes_cached);
    EXPECT_GE(alive.peak_bytes_in_use, alive.bytes_in_use);
  }
  const MemoryStats dead = stats();
  EXPECT_EQ(dead.bytes_in_use, base.bytes_in_use);
  EXPECT_GE(dead.bytes_cached, base.bytes_cached + 8000);
  EXPECT_EQ(dead.peak_bytes_in_use, alive.bytes_in_use);  // the peak stays

  // The same size again comes from the cache.
  const Tensor again = f64(1000);
  const MemoryStats reused = stats();
  EXPECT_LT(reused.bytes_cached, dead.bytes_cached);
  EXPECT_EQ(reused.bytes_cached, base.bytes_cached);
  EXPECT_EQ(reused.bytes_in_use, alive.bytes_in_use);
  EXPECT_EQ(again.element_ptr(), first);
  EXPECT_EQ(again.to_vec<double>(), std::vector<double>(1000, 0.0));  // zeros() still zeroes a reused buffer
}

TEST_F(Memory, ARequestOfAnotherSizeInTheSameSizeClassReusesTheCache) {
  // 8000, 8192 and 7500 bytes are all served from the 8192-byte size class.
  { const Tensor a = f64(1000); }
  const MemoryStats one = stats();
  ASSERT_GT(one.bytes_cached, 0u);
  {
    const Tensor b = f64(1024);
    EXPECT_EQ(stats().bytes_cached, base.bytes_cached);  // taken from the cache
  }
  {
    const Tensor c = Tensor::zeros({1875}, {dev, DType::F32});  // 7500 bytes
    EXPECT_EQ(stats().bytes_cached, base.bytes_cached);
  }
  EXPECT_EQ(stats().bytes_cached, one.bytes_cached);  // still one buffer
  // Small sizes round to 64 bytes (600 and 620 bytes share the 640-byte class).
  { const Tensor d = Tensor::zeros({600}, {dev, DType::U8}); }
  const MemoryStats small = stats();
  { const Tensor e = Tensor::zeros({620}, {dev, DType::U8}); EXPECT_LT(stats().bytes_cached, small.bytes_cached); }
}

TEST_F(Memory, ATinyBufferLivesWithItsStorageAndIsCountedButNotCached) {
  // Up to 512 bytes the buffer shares one heap block with its Storage (one allocation per
  // tiny op): it counts in bytes_in_use like any other, is never cached, and stays aligned.
  MemoryStats alive;
  {
    const Tensor t = f64(64);  // 512 bytes, the largest such buffer
    const Tensor u = Tensor::zeros({3}, {dev, DType::U8});  // 3 bytes: the 64-byte class
    alive = stats();
    EXPECT_EQ(alive.bytes_in_use, base.bytes_in_use + 512 + 64);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.element_ptr()) % 64, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(u.element_ptr()) % 64, 0u);
    EXPECT_EQ(t.to_vec<double>(), std::vector<double>(64, 0.0));
    EXPECT_GE(alive.peak_bytes_in_use, alive.bytes_in_use);
  }
  const MemoryStats dead = stats();
  EXPECT_EQ(dead.bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(dead.bytes_cached, base.bytes_cached);
  EXPECT_EQ(dead.peak_bytes_in_use, alive.bytes_in_use);
  // 513 bytes take the cached path again.
  { const Tensor big = Tensor::zeros({513}, {dev, DType::U8}); }
  EXPECT_EQ(stats().bytes_cached, base.bytes_cached + 576);
}

TEST_F(Memory, ConcurrentTinyAndCachedAllocationsKeepExactStats) {
  // The tiny path updates the atomics without the lock, the cached one under it: from four
  // threads at once every byte still comes back, and the peak covers what was alive.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([this, t] {
      for (int i = 0; i < 500; ++i) {
        const Tensor tiny = f64(1 + (i + t) % 64);   // <= 512 bytes: inline
        const Tensor cached = f64(100 + (i * 7) % 900);  // 800..7992 bytes: the cache
        ASSERT_EQ(tiny.numel() + cached.numel(), 1 + (i + t) % 64 + 100 + (i * 7) % 900);
      }
    });
  for (auto& th : threads) th.join();
  const MemoryStats after = stats();
  EXPECT_EQ(after.bytes_in_use, base.bytes_in_use);
  EXPECT_GE(after.peak_bytes_in_use, base.bytes_in_use + 64 + 832);
}

// Borrowed memory is the owner's to free, also when the borrowed pointer is null (an empty
// buffer, such as an empty std::vector's data()): the storage once tested the owner's pointer
// instead of whether it had an owner, and freed a buffer it never allocated.
TEST_F(Memory, ABorrowedNullBufferIsNotFreed) {
  bool released = false;
  {
    auto storage = tensora::Storage::wrap(nullptr, 0, dev, std::shared_ptr<void>(nullptr, [&](void*) { released = true; }),
                                          false);
    EXPECT_EQ(stats().bytes_in_use, base.bytes_in_use);
  }
  EXPECT_TRUE(released) << "the owner is released with the storage";
  EXPECT_EQ(stats().bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(f64(3).to_vec<double>(), (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST_F(Memory, ViewsShareOneAllocation) {
  const Tensor t = f64(2000);
  const MemoryStats one = stats();
  const Tensor v = t.reshape({40, 50}).transpose().slice(0, 1, std::nullopt, 2);
  const Tensor b = t.slice(0, 0, 1).broadcast_to({3, 2000});
  EXPECT_EQ(stats().bytes_in_use, one.bytes_in_use);
  const Tensor d = v.duplicate();
  EXPECT_GE(stats().bytes_in_use, one.bytes_in_use + static_cast<std::size_t>(v.numel()) * 8);
}

TEST_F(Memory, ReleaseCachedMemoryEmptiesTheCache) {
  const Tensor keep = Tensor::zeros({100}, {dev, DType::I32});
  for (std::int64_t n : {10, 1000, 5000, 70000, 1000}) (void)f64(n);
  const MemoryStats cached = stats();
  EXPECT_GT(cached.bytes_cached, 0u);
  tensora::release_cached_memory(dev);
  const MemoryStats released = stats();
  EXPECT_EQ(released.bytes_cached, 0u);
  EXPECT_EQ(released.bytes_in_use, cached.bytes_in_use);  // live tensors are untouched
  EXPECT_EQ(keep.to_vec<std::int32_t>(), std::vector<std::int32_t>(100, 0));
  // Releasing an empty cache is fine.
  tensora::release_cached_memory(dev);
  EXPECT_EQ(stats().bytes_cached, 0u);
}

TEST_F(Memory, CacheLimitCapsTheCache) {
  tensora::set_memory_cache_limit(dev, 16384);
  {
    std::vector<Tensor> ts;
    for (int i = 0; i < 4; ++i) ts.push_back(f64(1000));  // 4 x 8192 bytes
  }
  MemoryStats s = stats();
  EXPECT_GT(s.bytes_cached, 0u);
  EXPECT_LE(s.bytes_cached, 16384u);
  // A buffer larger than the limit is never cached.
  (void)f64(100000);
  EXPECT_LE(stats().bytes_cached, 16384u);
  EXPECT_EQ(stats().bytes_in_use, base.bytes_in_use);
  // Lowering the limit trims what is cached.
  tensora::set_memory_cache_limit(dev, 8192);
  EXPECT_LE(stats().bytes_cached, 8192u);
  tensora::set_memory_cache_limit(dev, 0);
  EXPECT_EQ(stats().bytes_cached, 0u);
  (void)f64(100);
  EXPECT_EQ(stats().bytes_cached, 0u);
  // Raising it again lets buffers be cached.
  tensora::set_memory_cache_limit(dev, kDefaultLimit);
  (void)f64(100);
  EXPECT_GT(stats().bytes_cached, 0u);
}

// A full cache evicts the buffers freed longest ago, not the largest: a loop that frees and
// allocates one large result per iteration keeps it cached (evicting the largest first threw
// that very buffer away on every free once older ones filled the cache, and each iteration
// paid its page faults again).
TEST_F(Memory, AFullCacheEvictsTheOldestBuffersFirst) {
  tensora::set_memory_cache_limit(dev, 65536);
  {
    std::vector<Tensor> stale;
    for (int i = 0; i < 7; ++i) stale.push_back(f64(1000));  // 7 x 8192 bytes
  }
  ASSERT_EQ(stats().bytes_cached, 7u * 8192);
  for (int iteration = 0; iteration < 3; ++iteration) {
    const std::size_t before = stats().bytes_cached;
    {
      const Tensor result = f64(4000);  // 32000 bytes: the 32768-byte class
      if (iteration > 0) {
        EXPECT_EQ(stats().bytes_cached, before - 32768) << "served from the cache";
      }
    }
    // Freed: kept, and three of the older 8192-byte buffers made room for it.
    EXPECT_EQ(stats().bytes_cached, 65536u) << iteration;
  }
  // The cached 32 KiB buffer is the one reused: the stale ones are what went.
  const Tensor again = f64(4000);
  EXPECT_EQ(stats().bytes_cached, 4u * 8192);
}

TEST_F(Memory, PeakTrackingAndReset) {
  EXPECT_EQ(base.peak_bytes_in_use, base.bytes_in_use);
  {
    const Tensor big = f64(1 << 17);  // 1 MiB
    EXPECT_GE(stats().peak_bytes_in_use, base.bytes_in_use + (std::size_t{1} << 20));
    {
      const Tensor more = f64(1 << 16);
      EXPECT_GE(stats().peak_bytes_in_use, base.bytes_in_use + (std::size_t{3} << 19));
    }
  }
  const MemoryStats after = stats();
  EXPECT_EQ(after.bytes_in_use, base.bytes_in_use);
  EXPECT_GE(after.peak_bytes_in_use, base.bytes_in_use + (std::size_t{3} << 19));
  tensora::reset_peak_memory(dev);
  EXPECT_EQ(stats().peak_bytes_in_use, stats().bytes_in_use);
  // A reused (cached) buffer counts toward the peak like a fresh one.
  const Tensor reuse = f64(1 << 17);
  EXPECT_GE(stats().peak_bytes_in_use, base.bytes_in_use + (std::size_t{1} << 20));
}

TEST_F(Memory, OpsAllocateOnTheirOwnDevice) {
  CpuEngine e6 = CpuEngine::serial(dev);
  const Tensor x = Tensor::ones({1000}, {dev, DType::F32});
  const MemoryStats before = stats();
  {
    const Tensor y = x.add(x, e6);
    EXPECT_GE(stats().bytes_in_use, before.bytes_in_use + 4000);
    const Tensor z = x.mul(2.0, e6).exp(e6).cast(DType::F64, e6);
    EXPECT_GE(stats().bytes_in_use, before.bytes_in_use + 4000 + 8000);
    EXPECT_EQ(y.device(), dev);
    EXPECT_EQ(z.device(), dev);
  }
  EXPECT_EQ(stats().bytes_in_use, before.bytes_in_use);
  // Work on cpu:0 and cpu:7 leaves cpu:6 alone.
  const MemoryStats mine = stats();
  CpuEngine e0 = CpuEngine::serial();
  const Tensor a = Tensor::ones({5000}, {Device::cpu(), DType::F64});
  const Tensor b = a.add(a, e0);
  const Tensor c = Tensor::ones({5000}, {Device::cpu(7), DType::F64});
  const MemoryStats still = stats();
  EXPECT_EQ(still.bytes_in_use, mine.bytes_in_use);
  EXPECT_EQ(still.bytes_cached, mine.bytes_cached);
  // A copy to cpu:6 is counted here.
  const Tensor moved = c.to_device(dev);
  EXPECT_GE(stats().bytes_in_use, mine.bytes_in_use + 40000);
}

TEST_F(Memory, ConcurrentAllocationsBalance) {
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const Tensor x = Tensor::full({(i % 7 + 1) * 100 + t}, static_cast<std::int64_t>(i), {dev, DType::I64});
        if (x.to_vec<std::int64_t>().back() != i) ++bad;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  const MemoryStats s = stats();
  EXPECT_EQ(s.bytes_in_use, base.bytes_in_use);
  EXPECT_GT(s.bytes_cached, 0u);
  tensora::release_cached_memory(dev);
  EXPECT_EQ(stats().bytes_cached, 0u);
}

}  // namespace
