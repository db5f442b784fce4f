#include "tensora/device.hpp"

#include <array>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <string>

#include "core/checks.hpp"
#include "core/device_registry.hpp"

namespace tensora {

DType DeviceSettings::complex_dtype() const {
  return float_dtype == DType::F64 ? DType::C128 : DType::C64;
}

namespace {

struct DeviceState {
  std::mutex mutex;
  DeviceSettings settings;
  bool configured = false;
  // Set once a tensor exists on the device; from then on `settings` never changes, so
  // readers that see `frozen` may read it without the lock.
  std::atomic<bool> frozen{false};
};

DeviceState& state_of(const Device& device) {
  static auto* states = new std::array<DeviceState, Device::kMaxCpuDevices>();
  return (*states)[static_cast<std::size_t>(device.index())];
}

void check_settings(const DeviceSettings& s, SourceLocation where) {
  if (!is_floating(s.float_dtype))
    check::fail_invalid("configure",
                        "float_dtype must be a float dtype, got " + std::string(name(s.float_dtype)),
                        "float_dtype", where);
  if (!is_integer(s.int_dtype))
    check::fail_invalid("configure",
                        "int_dtype must be an integer dtype, got " + std::string(name(s.int_dtype)),
                        "int_dtype", where);
  if (s.bool_dtype != DType::Bool)
    check::fail_invalid("configure",
                        "bool_dtype must be Bool, got " + std::string(name(s.bool_dtype)),
                        "bool_dtype", where);
}

}  // namespace

void Device::fail_cpu_index(int index, SourceLocation where) {
  check::fail_invalid("Device::cpu",
                      "cpu device index " + std::to_string(index) + " out of range [0, " +
                          std::to_string(kMaxCpuDevices) + ")",
                      "index", where);
}

Device Device::parse(std::string_view text, SourceLocation where) {
  auto bad = [&](const std::string& why) -> Device {
    check::fail_invalid("Device::parse",
                        "unknown device '" + std::string(text) + "': " + why +
                            " (expected 'cpu' or 'cpu:N' with 0 <= N < " +
                            std::to_string(kMaxCpuDevices) + ")",
                        "device", where);
  };
  std::string_view kind = text.substr(0, text.find(':'));
  if (kind == "cuda" || kind == "gpu")
    throw Error(ErrorKind::Unsupported, "Device::parse",
                "device '" + std::string(text) + "' is not available: this build has no CUDA engine",
                NoDetail{}, where);
  if (kind != "cpu") return bad("unknown device kind");
  if (kind.size() == text.size()) return Device(DeviceKind::Cpu, 0);
  std::string_view digits = text.substr(kind.size() + 1);
  int index = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
    return bad("the index is not a number");
  if (index < 0 || index >= kMaxCpuDevices) return bad("the index is out of range");
  return Device(DeviceKind::Cpu, index);
}

Device Device::default_device(SourceLocation where) {
  const char* env = std::getenv("TENSORA_DEVICE");
  if (env == nullptr || *env == '\0') return Device(DeviceKind::Cpu, 0);
  try {
    return parse(env, where);
  } catch (const Error& e) {
    // Say where the bad name came from.
    throw Error(e.kind(), "Device::default_device",
                "TENSORA_DEVICE: " + std::string(e.message()), e.detail(), where);
  }
}

DeviceSettings Device::settings() const {
  DeviceState& s = state_of(*this);
  if (s.frozen.load(std::memory_order_acquire)) return s.settings;
  std::lock_guard lock(s.mutex);
  return s.settings;
}

void Device::configure(const DeviceSettings& settings, SourceLocation where) const {
  check_settings(settings, where);
  DeviceState& s = state_of(*this);
  std::lock_guard lock(s.mutex);
  const std::string dev = to_string();
  const std::string example = "{Device::cpu(" + std::to_string(index_) + "), DType::F64}";
  if (s.configured)
    throw Error(ErrorKind::AlreadyInitialized, "configure",
                "device " + dev +
                    " is already configured; defaults can be set once per process. Pass an "
                    "explicit dtype instead, e.g. " + example,
                AlreadyInitialized{dev}, where);
  if (s.frozen.load(std::memory_order_relaxed))
    throw Error(ErrorKind::AlreadyInitialized, "configure",
                "device " + dev +
                    " already has tensors created with its default dtypes; configure it before "
                    "the first tensor, or pass an explicit dtype instead, e.g. " + example,
                AlreadyInitialized{dev}, where);
  s.settings = settings;
  s.configured = true;
}

DeviceSettings settings_for_new_tensor(const Device& device) {
  DeviceState& s = state_of(device);
  if (s.frozen.load(std::memory_order_acquire)) return s.settings;
  std::lock_guard lock(s.mutex);
  s.frozen.store(true, std::memory_order_release);
  return s.settings;
}

bool Device::supports(DType) const { return kind_ == DeviceKind::Cpu; }

std::string Device::to_string() const {
  return (kind_ == DeviceKind::Cpu ? "cpu:" : "cuda:") + std::to_string(index_);
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.to_string(); }

}  // namespace tensora
