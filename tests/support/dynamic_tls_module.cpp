// A shared library with one general-dynamic thread-local block of 48 bytes, the size of the one
// in BLIS 0.9. tests/support/dynamic_tls_check.cpp loads it with dlopen; it is built without
// instrumentation, as the BLAS libraries tensora loads are.

// Exported, so the compiler keeps all 48 bytes.
extern "C" __attribute__((visibility("default"))) __thread long tensora_test_tls_block[6];
__thread long tensora_test_tls_block[6];

// The calling thread's block; its first call in a thread allocates the block.
extern "C" __attribute__((visibility("default"))) void* tensora_test_tls_block_address() {
  return &tensora_test_tls_block[0];
}
