// CPU devices' serial engine for the backend layer (backend/serial_engine.hpp).
#include "backend/serial_engine.hpp"

namespace tensora::backend {

std::unique_ptr<Engine> serial_engine(Device device) {
  return std::make_unique<CpuEngine>(CpuEngine::serial(device));
}

}  // namespace tensora::backend
