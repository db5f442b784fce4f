// The reductions the op set offers, as the backends know them (a kernel family's selector).
#pragma once

#include <cstdint>

namespace tensora {

enum class ReduceOp : std::uint8_t { Sum, Prod, Mean, Max, Min, All, Any };

}  // namespace tensora
