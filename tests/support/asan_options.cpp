// AddressSanitizer's defaults for tensora's own sanitizer programs (the test suite and the fuzz
// targets), compiled in so that a binary run by hand behaves as it does under scripts/. Options
// given in ASAN_OPTIONS at run time still win.
//
// intercept_tls_get_addr=0: LeakSanitizer no longer scans the thread-local blocks of libraries
// loaded with dlopen. LLVM 14's runtime (Debian 12's clang) learns each such block from its
// __tls_get_addr interceptor, and when a block starts 16 bytes past a page boundary it takes
// the 16 bytes before it for a glibc 2.19 header holding the block's true start and size.
// glibc 2.36 allocates these blocks with malloc, so under ASan those bytes are ASan's own
// chunk header: the "start" read there is a stack-depot id, and LeakSanitizer's scan at exit
// faults on it ("Tracer caught signal 11: addr=0x57f0"; CI failed so, twice in a row in the
// same shard, on the 48-byte block of the BLIS that tensora loads). Whether a block lands there
// depends only on the allocation order, so a run that hits it hits it every time.
// Test: SanitizerRuntime.LeakCheckSurvivesADynamicTlsBlockAtPageOffset16. What is lost: heap
// memory that only a dlopen-ed library's thread-local variables point to would be reported as
// leaked. tensora's own thread_local variables are in the executable's static TLS, which
// LeakSanitizer still scans.
extern "C" __attribute__((no_sanitize("address", "undefined"), used, visibility("default")))
const char*
__asan_default_options() {
  return "intercept_tls_get_addr=0";
}
