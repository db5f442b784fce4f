// File I/O of one large F32 tensor: tensora's .npy / safetensors save and load against plain
// write()/read() of the same bytes; bench/numpy_io.py times NumPy on the same file size and
// prints the ratios (docs/BENCHMARKS.md, section "I/O").
//
// Rows: BM_Io<Op>/<who>/f32/<MiB>MiB
//   Save    tensora-npy (atomic: temp file, fsync, rename) | ref-write-fsync (write + fsync)
//   LoadMap tensora-npy | tensora-safetensors: load with mmap (zero-copy view)
//   LoadMapTouch  the same plus one read of every page (what the first use costs)
//   LoadRead tensora-npy (mmap = false) | ref-read (read() into a fresh buffer)
// The file sits in the page cache after the first iteration: these are memory-speed figures.
// Size: TENSORA_BENCH_IO_MIB (default 1024); files go to TENSORA_BENCH_IO_DIR (default /tmp).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "tensora/io.hpp"
#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;

std::int64_t mib() {
  const char* e = std::getenv("TENSORA_BENCH_IO_MIB");
  return e ? std::atoll(e) : 1024;
}
std::filesystem::path dir() {
  const char* e = std::getenv("TENSORA_BENCH_IO_DIR");
  return e ? e : "/tmp";
}
std::string suffix() { return "f32/" + std::to_string(mib()) + "MiB"; }

const ta::Tensor& tensor() {
  static const ta::Tensor t = [] {
    const std::int64_t n = mib() * 1024 * 1024 / 4;
    return ta::Tensor::uniform({1024, n / 1024}, 1, {ta::Device::cpu(), ta::DType::F32});
  }();
  return t;
}
std::size_t nbytes() { return static_cast<std::size_t>(tensor().numel()) * 4; }

const std::filesystem::path& npy_file() {
  static const std::filesystem::path p = [] {
    auto path = dir() / "tensora_bench_io.npy";
    ta::io::save_npy(path, tensor());
    return path;
  }();
  return p;
}
const std::filesystem::path& st_file() {
  static const std::filesystem::path p = [] {
    auto path = dir() / "tensora_bench_io.safetensors";
    ta::io::save_safetensors(path, {{"t", tensor().transpose()}});  // row-major view: no copy
    return path;
  }();
  return p;
}

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(nbytes()));
}

// Reads one byte per 4 KiB page, so every page of a mapping is faulted in once.
float touch(const ta::Tensor& t) {
  const auto* p = static_cast<const unsigned char*>(t.element_ptr());
  unsigned acc = 0;
  for (std::size_t i = 0; i < nbytes(); i += 4096) acc += p[i];
  return static_cast<float>(acc);
}

void BM_IoSave_tensora(benchmark::State& state) {
  const auto path = dir() / "tensora_bench_io_save.npy";
  for (auto _ : state) ta::io::save_npy(path, tensor());
  std::filesystem::remove(path);
  set_bytes(state);
}

void BM_IoSave_ref(benchmark::State& state) {
  const auto path = dir() / "tensora_bench_io_save.raw";
  const auto* data = static_cast<const char*>(tensor().element_ptr());
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (std::size_t done = 0; done < nbytes();) {
      const ssize_t w = ::write(fd, data + done, nbytes() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    ::fsync(fd);
    ::close(fd);
  }
  std::filesystem::remove(path);
  set_bytes(state);
}

void BM_IoLoadMap_npy(benchmark::State& state) {
  npy_file();
  for (auto _ : state) benchmark::DoNotOptimize(ta::io::load_npy(npy_file()));
}

void BM_IoLoadMap_safetensors(benchmark::State& state) {
  st_file();
  for (auto _ : state) benchmark::DoNotOptimize(ta::io::load_safetensors(st_file()));
}

void BM_IoLoadMapTouch_npy(benchmark::State& state) {
  npy_file();
  for (auto _ : state) benchmark::DoNotOptimize(touch(ta::io::load_npy(npy_file())));
  set_bytes(state);
}

void BM_IoLoadRead_npy(benchmark::State& state) {
  npy_file();
  for (auto _ : state) benchmark::DoNotOptimize(ta::io::load_npy(npy_file(), ta::io::LoadOptions{.mmap = false}));
  set_bytes(state);
}

void BM_IoLoadRead_ref(benchmark::State& state) {
  npy_file();
  for (auto _ : state) {
    std::unique_ptr<char[]> buf(new char[nbytes() + 128]);
    const int fd = ::open(npy_file().c_str(), O_RDONLY);
    std::size_t done = 0;
    while (true) {
      const ssize_t r = ::read(fd, buf.get() + done, nbytes() + 128 - done);
      if (r <= 0) break;
      done += static_cast<std::size_t>(r);
    }
    ::close(fd);
    benchmark::DoNotOptimize(buf.get());
  }
  set_bytes(state);
}

const int kRegistered = [] {
  const auto reg = [](const std::string& name, void (*fn)(benchmark::State&)) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
  };
  reg("BM_IoSave/tensora-npy/" + suffix(), BM_IoSave_tensora);
  reg("BM_IoSave/ref-write-fsync/" + suffix(), BM_IoSave_ref);
  reg("BM_IoLoadMap/tensora-npy/" + suffix(), BM_IoLoadMap_npy);
  reg("BM_IoLoadMap/tensora-safetensors/" + suffix(), BM_IoLoadMap_safetensors);
  reg("BM_IoLoadMapTouch/tensora-npy/" + suffix(), BM_IoLoadMapTouch_npy);
  reg("BM_IoLoadRead/tensora-npy/" + suffix(), BM_IoLoadRead_npy);
  reg("BM_IoLoadRead/ref-read/" + suffix(), BM_IoLoadRead_ref);
  return 0;
}();

}  // namespace
