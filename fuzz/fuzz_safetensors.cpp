// libFuzzer target: safetensors parsing (header length, strict JSON, offsets, metadata).
#include "fuzz/fuzz_common.hpp"
#include "io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tensora_fuzz::input_bytes(data, size);
  tensora_fuzz::run([&] {
    for (const auto& [name, t] : tensora::io_detail::parse_safetensors("load_safetensors", file, {}).tensors)
      tensora_fuzz::touch(t);
  });
  return 0;
}
