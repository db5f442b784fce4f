// SanitizerRuntime.LeakCheckSurvivesADynamicTlsBlockAtPageOffset16 runs this program in a
// process of its own: in a fresh process ASan's allocator hands out a size class's chunks in
// address order, so the chunk glibc's malloc gets for a thread-local block can be chosen. It
// loads tests/support/dynamic_tls_module.cpp (argv[1]), has the block land 16 bytes past a page
// boundary, and runs LeakSanitizer's scan. Prints "arranged" and exits 0 when the scan came
// back; exits 3 when the block landed elsewhere. With intercept_tls_get_addr=1 (LLVM 14's
// default) the scan faults instead (tests/support/asan_options.cpp).
#include <dlfcn.h>
#include <sanitizer/lsan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* module = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    std::fprintf(stderr, "%s\n", ::dlerror());
    return 2;
  }
  auto block_address =
      reinterpret_cast<void* (*)()>(::dlsym(module, "tensora_test_tls_block_address"));
  if (block_address == nullptr) return 2;
  constexpr std::uintptr_t kPage = 4096, kChunk = 64;  // ASan's size class for 48 bytes
  // Fill the 48-byte class until the next chunk starts 16 bytes past a page, then take the
  // block: its first use in this thread mallocs it.
  std::vector<void*> filler;
  filler.reserve(kPage);
  while (filler.size() < kPage) {
    filler.push_back(std::malloc(48));
    if ((reinterpret_cast<std::uintptr_t>(filler.back()) + kChunk) % kPage == 16) break;
  }
  if (reinterpret_cast<std::uintptr_t>(block_address()) % kPage != 16) return 3;
  // The scan LeakSanitizer runs at exit, run while the block is live.
  static_cast<void>(__lsan_do_recoverable_leak_check());
  for (void* p : filler) std::free(p);
  std::puts("arranged");
  return 0;
}
