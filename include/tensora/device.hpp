// Devices and their per-device default dtypes (docs/creation.md).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "tensora/dtype.hpp"
#include "tensora/error.hpp"

namespace tensora {

// The dtypes that creation picks when the caller gives none, by the kind of the value.
struct DeviceSettings {
  DType float_dtype = DType::F32;
  DType int_dtype = DType::I64;
  DType bool_dtype = DType::Bool;

  // The complex default follows the float one: F64 -> C128, else C64.
  DType complex_dtype() const;
  friend bool operator==(const DeviceSettings&, const DeviceSettings&) = default;
};

enum class DeviceKind { Cpu, Cuda };

// A small value naming a memory space: kind + index. cpu:0, cpu:1, ... are separate logical
// CPU devices so cross-device rules are real on one machine.
class Device {
 public:
  static constexpr int kMaxCpuDevices = 8;

  // Inline: every default-constructed Tensor names cpu:0, so this is on the path of tiny ops.
  static Device cpu(int index = 0, SourceLocation where = SourceLocation::current()) {
    if (index < 0 || index >= kMaxCpuDevices) fail_cpu_index(index, where);
    return Device(DeviceKind::Cpu, index);
  }
  // Reads TENSORA_DEVICE ("cpu", "cpu:1", ...); cpu:0 when unset. Throws InvalidArgument for a
  // malformed name and Unsupported for a device this build cannot use.
  static Device default_device(SourceLocation where = SourceLocation::current());
  // Parses "cpu" / "cpu:N" with the same rules as default_device.
  static Device parse(std::string_view text, SourceLocation where = SourceLocation::current());

  DeviceKind kind() const { return kind_; }
  int index() const { return index_; }

  // The process-wide settings of this device (shared by every equal Device value).
  DeviceSettings settings() const;
  // Sets the defaults once. Throws AlreadyInitialized after an earlier configure or after the
  // first tensor was created on this device.
  void configure(const DeviceSettings&, SourceLocation where = SourceLocation::current()) const;
  bool supports(DType) const;
  std::string to_string() const;  // "cpu:1"

  friend bool operator==(const Device&, const Device&) = default;

 private:
  constexpr Device(DeviceKind k, int i) : kind_(k), index_(i) {}
  [[noreturn]] static void fail_cpu_index(int index, SourceLocation where);
  DeviceKind kind_;
  int index_;
};

std::ostream& operator<<(std::ostream&, const Device&);

}  // namespace tensora

template <>
struct std::hash<tensora::Device> {
  std::size_t operator()(const tensora::Device& d) const noexcept {
    return static_cast<std::size_t>(d.index()) * 2 + static_cast<std::size_t>(d.kind());
  }
};
