// The process-wide, thread-safe table of per-device settings.
#pragma once

#include "tensora/device.hpp"

namespace tensora {

// Settings for creating a tensor on `device`; freezes them (a later configure throws).
DeviceSettings settings_for_new_tensor(const Device& device);

}  // namespace tensora
