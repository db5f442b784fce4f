// Device + optional dtype for creating tensors: `{device}` or `{device, DType::F64}`.
#pragma once

#include <optional>

#include "tensora/device.hpp"
#include "tensora/dtype.hpp"

namespace tensora {

struct TensorOptions {
  // On Device::default_device(), with the device's default dtype.
  TensorOptions();
  TensorOptions(Device d, std::optional<DType> t = {})  // NOLINT: implicit, so `{cpu}` works
      : device(d), dtype(t) {}
  TensorOptions(DType t);  // NOLINT: on the default device with dtype t

  Device device;
  std::optional<DType> dtype;  // empty: the device's default for the value's kind
};

}  // namespace tensora
