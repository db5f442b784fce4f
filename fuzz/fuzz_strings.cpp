// Every string the library parses (docs/testing.md, docs/robustness.md), chosen by the first
// byte, the rest of the input being the string:
//   0  Device::parse: an Error (InvalidArgument or Unsupported), or a device whose name parses
//      back to itself;
//   1  TENSORA_DEVICE through Device::default_device: the same, and an error names the variable;
//   2  the JSON parser of safetensors headers: ParseError or a value whose strings and keys
//      survive quote() and parse() unchanged;
//   3  the .npy header dictionary (dtype descr, fortran_order, shape), wrapped in a valid v1
//      preamble with 64 data bytes behind it: IoError or a tensor whose bytes are all readable.
// einsum subscripts have their own target (fuzz_einsum.cpp); TENSORA_BLAS is compared with
// three names ("blis", "openblas", "reference"), not parsed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/fuzz_common.hpp"
#include "io/json.hpp"
#include "io/npy.hpp"
#include "tensora/device.hpp"
#include "tensora/error.hpp"

namespace {

namespace ta = tensora;
namespace json = tensora::io_detail::json;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_strings: %s\n", what.c_str());
  std::abort();
}

void check_device(ta::Device d) {
  if (ta::Device::parse(d.to_string()) != d) fail("a parsed device does not round-trip: " + d.to_string());
}

void check_device_error(const ta::Error& e) {
  if (e.kind() != ta::ErrorKind::InvalidArgument && e.kind() != ta::ErrorKind::Unsupported)
    fail(std::string("unexpected error kind: ") + e.what());
}

void check_strings(const json::Value& v) {
  if (v.type == json::Value::Type::String) {
    const json::Value back = json::parse(json::quote(v.text));
    if (back.type != json::Value::Type::String || back.text != v.text) fail("a JSON string does not round-trip");
  }
  for (const auto& item : v.items) check_strings(item);
  for (const auto& m : v.members) {
    if (json::parse(json::quote(m.key)).text != m.key) fail("a JSON key does not round-trip");
    check_strings(m.value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      try {
        check_device(ta::Device::parse(text));
      } catch (const ta::Error& e) {
        check_device_error(e);
      }
      break;
    case 1: {
      const std::string value = text.substr(0, text.find('\0'));  // what an environment can hold
      ::setenv("TENSORA_DEVICE", value.c_str(), 1);
      try {
        check_device(ta::Device::default_device());
      } catch (const ta::Error& e) {
        check_device_error(e);
        if (std::string(e.message()).rfind("TENSORA_DEVICE: ", 0) != 0) fail("the error does not name TENSORA_DEVICE");
      }
      ::unsetenv("TENSORA_DEVICE");
      break;
    }
    case 2:
      try {
        check_strings(json::parse(text));
      } catch (const json::ParseError&) {
      }
      break;
    default: {
      if (text.size() > 60000) return 0;
      std::string file = "\x93NUMPY\x01";
      file += '\0';
      file += static_cast<char>(text.size() & 0xff);
      file += static_cast<char>(text.size() >> 8);
      file += text;
      file += std::string(64, '\x3f');
      const auto bytes = tensora_fuzz::input_bytes(reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
      tensora_fuzz::run([&] {
        tensora_fuzz::touch(tensora::io_detail::parse_npy("load_npy", bytes, 0, bytes.size, {}));
      });
    }
  }
  return 0;
}
