// DLPack exchange (docs/io.md): zero-copy to and from other libraries.
//
// The ABI structs follow DLPack 1.x (dlpack/dlpack.h, https://github.com/dmlc/dlpack). When
// a dlpack.h was included first its definitions are used: a 1.x header has everything; a
// pre-1.0 one (Debian's 0.6) lacks the versioned struct, which is then added here. When this
// header comes first it defines DLPACK_DLPACK_H_ so a later dlpack.h is skipped.
#pragma once

#include <cstddef>
#include <cstdint>

#if !defined(DLPACK_DLPACK_H_)
#define DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define DLPACK_VERSION 100
#define DLPACK_ABI_VERSION 1
#define TENSORA_DLPACK_DEFINE_VERSIONED 1

extern "C" {
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;
}  // extern "C"
#endif  // !DLPACK_DLPACK_H_

// Defined here when this header defined the rest, or when a pre-1.0 dlpack.h came first.
#if defined(TENSORA_DLPACK_DEFINE_VERSIONED) || !defined(DLPACK_MAJOR_VERSION)
extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}  // extern "C"
#endif

#ifndef DLPACK_FLAG_BITMASK_READ_ONLY
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)
#endif

#include "tensora/tensor.hpp"

namespace tensora {

// The DLPack version tensora produces and the major version it accepts.
inline constexpr std::uint32_t kDLPackMajor = 1, kDLPackMinor = 0;

// Exports a zero-copy view: explicit strides (never NULL), kDLCPU, read-only flag when the
// storage is read-only. The tensor's memory stays alive until the consumer calls `deleter`.
DLManagedTensorVersioned* to_dlpack(const Tensor& tensor, SourceLocation where = SourceLocation::current());
// The pre-1.0 struct, for consumers that predate DLPack 1.0 (NumPy < 2, PyTorch < 2).
DLManagedTensor* to_dlpack_unversioned(const Tensor& tensor, SourceLocation where = SourceLocation::current());

// Imports zero-copy and takes ownership: the producer's deleter runs exactly once, when the
// last tensor using the memory goes (or right away when the import fails with an error). A
// NULL strides pointer means compact row-major; a read-only import rejects `_into` writes.
Tensor from_dlpack(DLManagedTensorVersioned* managed, SourceLocation where = SourceLocation::current());
Tensor from_dlpack(DLManagedTensor* managed, SourceLocation where = SourceLocation::current());

}  // namespace tensora
