// The umbrella header: everything a user of tensora needs.
#pragma once

#include "tensora/device.hpp"
#include "tensora/dtype.hpp"
#include "tensora/eager.hpp"
#include "tensora/traced.hpp"
#include "tensora/einsum.hpp"
#include "tensora/fft.hpp"
#include "tensora/linalg.hpp"
#include "tensora/engine.hpp"
#include "tensora/error.hpp"
#include "tensora/half.hpp"
#include "tensora/memory.hpp"
#include "tensora/scalar.hpp"
#include "tensora/shape.hpp"
#include "tensora/tensor.hpp"
#include "tensora/tensor_options.hpp"
#include "tensora/typed_tensor.hpp"
#include "tensora/io.hpp"  // <tensora/dlpack.hpp> is separate: it defines the global DLPack C structs
