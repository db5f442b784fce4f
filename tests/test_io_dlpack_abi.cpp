// The DLPack ABI of <tensora/dlpack.hpp>: the 1.x layout, and coexistence with a dlpack.h
// included first (Debian's libdlpack-dev 0.6, a pre-1.0 header, when it is installed).
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#define TENSORA_TEST_HAD_DLPACK_H 1
#endif
#include "tensora/dlpack.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace {

// Offsets on LP64 from the DLPack 1.x header (dlpack.h, v1.0).
static_assert(sizeof(DLDevice) == 8);
static_assert(sizeof(DLDataType) == 4);
static_assert(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 &&
              offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
              offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
              offsetof(DLTensor, byte_offset) == 40 && sizeof(DLTensor) == 48);
static_assert(offsetof(DLManagedTensor, manager_ctx) == 48 && offsetof(DLManagedTensor, deleter) == 56);
static_assert(offsetof(DLManagedTensorVersioned, version) == 0 &&
              offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
              offsetof(DLManagedTensorVersioned, deleter) == 16 &&
              offsetof(DLManagedTensorVersioned, flags) == 24 &&
              offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == 1 && DLPACK_FLAG_BITMASK_IS_COPIED == 2);

TEST(IoDLPackAbi, CodesMatchTheSpec) {
  EXPECT_EQ(static_cast<int>(kDLCPU), 1);
  EXPECT_EQ(static_cast<int>(kDLInt), 0);
  EXPECT_EQ(static_cast<int>(kDLUInt), 1);
  EXPECT_EQ(static_cast<int>(kDLFloat), 2);
  EXPECT_EQ(static_cast<int>(kDLBfloat), 4);
  EXPECT_EQ(static_cast<int>(kDLComplex), 5);
#ifdef TENSORA_TEST_HAD_DLPACK_H
  GTEST_LOG_(INFO) << "compiled after the system dlpack.h (DLPACK_VERSION " << DLPACK_VERSION << ")";
#endif
}

}  // namespace
