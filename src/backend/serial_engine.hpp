// A serial engine for a device, for work that runs outside any caller's engine (constant
// folding while a graph compiles). The backend that owns the device's kind defines it
// (src/cpu/serial_engine.cpp for CPU devices): a link-time seam, so nothing above the backend
// names an engine class, and no registration can be dropped by the static linker.
#pragma once

#include <memory>

#include "tensora/engine.hpp"

namespace tensora::backend {

std::unique_ptr<Engine> serial_engine(Device device);

}  // namespace tensora::backend
