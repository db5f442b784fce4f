// libFuzzer target: .npz parsing (zip directory, stored and deflate members, inner .npy).
#include "fuzz/fuzz_common.hpp"
#include "io/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tensora_fuzz::input_bytes(data, size);
  tensora_fuzz::run([&] {
    for (const auto& [name, t] : tensora::io_detail::parse_npz("load_npz", file, {})) tensora_fuzz::touch(t);
  });
  return 0;
}
