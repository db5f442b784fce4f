// libFuzzer target: .npy parsing (io_detail::parse_npy, behind io::load_npy).
#include "fuzz/fuzz_common.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tensora_fuzz::input_bytes(data, size);
  tensora_fuzz::run([&] {
    tensora_fuzz::touch(tensora::io_detail::parse_npy("load_npy", file, 0, file.size, {}));
  });
  return 0;
}
