// DLPack import and export (include/tensora/dlpack.hpp): zero-copy both ways.
#include "tensora/dlpack.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/checks.hpp"
#include "core/storage.hpp"
#include "core/tensor_internals.hpp"
#include "io/tensor_bytes.hpp"

namespace tensora {
namespace {

// DLDataTypeCode values by number: a pre-1.0 dlpack.h included first may lack kDLBool.
constexpr std::uint8_t kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kComplex = 5, kBool = 6;
constexpr int kMaxRank = 64;

DLDataType dl_dtype(DType d) {
  const auto bits = static_cast<std::uint8_t>(size_of(d) * 8);
  switch (kind(d)) {
    case DTypeKind::Bool: return {kBool, 8, 1};
    case DTypeKind::SignedInt: return {kInt, bits, 1};
    case DTypeKind::UnsignedInt: return {kUInt, bits, 1};
    case DTypeKind::Float: return {d == DType::BF16 ? kBfloat : kFloat, bits, 1};
    case DTypeKind::Complex: return {kComplex, bits, 1};
  }
  return {kFloat, bits, 1};
}

std::optional<DType> tensora_dtype(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  for (const DType d : kAllDTypes) {
    const DLDataType x = dl_dtype(d);
    if (x.code == t.code && x.bits == t.bits) return d;
  }
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& op, std::string message, SourceLocation where) {
  check::fail_invalid(op, std::move(message), "managed", where);
}

// What an exported tensor owns: the tensor (its storage stays alive) and the arrays the
// DLTensor points at.
struct ExportContext {
  Tensor tensor;
  std::vector<std::int64_t> shape, strides;
};

template <class Managed>
Managed* export_tensor(const Tensor& t, const char* op, SourceLocation where) {
  if (!t.defined()) fail(op, "the tensor is empty (default-constructed)", where);
  if (t.is_meta()) fail(op, "the tensor is a meta tensor (no data to share)", where);
  if (t.device().kind() != DeviceKind::Cpu) fail(op, "only CPU tensors can be exported", where);
  auto ctx = std::make_unique<ExportContext>(ExportContext{t, t.shape(), t.strides()});
  auto managed = std::make_unique<Managed>();
  DLTensor& dl = managed->dl_tensor;
  dl.data = const_cast<void*>(t.element_ptr());
  dl.device = DLDevice{kDLCPU, t.device().index()};
  dl.ndim = static_cast<std::int32_t>(t.rank());
  dl.dtype = dl_dtype(t.dtype());
  // Never NULL, also for 0-d tensors: a NULL strides pointer would mean row-major.
  ctx->shape.reserve(1);
  ctx->strides.reserve(1);
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  managed->deleter = [](Managed* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    managed->version = DLPackVersion{kDLPackMajor, kDLPackMinor};
    managed->flags = TensorInternals::storage(t)->read_only() ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  }
  managed->manager_ctx = ctx.release();
  return managed.release();
}

template <class Managed>
Tensor import_tensor(Managed* managed, bool read_only, const char* op, SourceLocation where) {
  if (managed == nullptr) fail(op, "the DLPack pointer is null", where);
  // Owns the producer's memory from here on: an error below runs the deleter exactly once.
  std::shared_ptr<void> owner(managed, [](void* p) {
    auto* m = static_cast<Managed*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
  const DLTensor& dl = managed->dl_tensor;
  if (dl.device.device_type != kDLCPU)
    fail(op, "device type " + std::to_string(static_cast<int>(dl.device.device_type)) +
                 " is not supported (tensora imports kDLCPU memory)", where);
  const int index = dl.device.device_id >= 0 && dl.device.device_id < Device::kMaxCpuDevices ? dl.device.device_id : 0;
  const Device device = Device::cpu(index);
  const auto dtype = tensora_dtype(dl.dtype);
  if (!dtype)
    fail(op, "unsupported DLPack dtype (code " + std::to_string(dl.dtype.code) + ", bits " +
                 std::to_string(dl.dtype.bits) + ", lanes " + std::to_string(dl.dtype.lanes) + ")", where);
  if (dl.ndim < 0 || dl.ndim > kMaxRank) fail(op, "ndim " + std::to_string(dl.ndim) + " is out of range", where);
  if (dl.ndim > 0 && dl.shape == nullptr) fail(op, "the shape pointer is null", where);
  Shape shape(dl.shape, dl.shape + dl.ndim);
  for (const auto e : shape)
    if (e < 0) fail(op, "negative extent " + std::to_string(e) + " in the shape", where);
  if (!io_detail::strides_fit(shape, *dtype)) fail(op, "the shape's strides overflow 64 bits", where);
  const Strides strides =
      dl.strides == nullptr ? row_major_strides(shape) : Strides(dl.strides, dl.strides + dl.ndim);
  // The span of memory the view reaches, from its lowest to its highest element.
  std::int64_t lo = 0, hi = 0;
  bool empty = false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) empty = true;
    std::int64_t reach = 0;
    if (shape[d] > 0 && __builtin_mul_overflow(strides[d], shape[d] - 1, &reach))
      fail(op, "the strides overflow", where);
    if ((reach < 0 ? __builtin_add_overflow(lo, reach, &lo) : __builtin_add_overflow(hi, reach, &hi)))
      fail(op, "the strides overflow", where);
  }
  const std::size_t elem = size_of(*dtype);
  if (empty) {  // nothing to reach: no memory of the producer is read
    lo = hi = 0;
  }
  if (dl.data == nullptr && !empty) fail(op, "the data pointer is null", where);
  auto* first = static_cast<std::byte*>(dl.data) + dl.byte_offset;
  if (!empty && reinterpret_cast<std::uintptr_t>(first) % io_detail::element_alignment(*dtype) != 0)
    fail(op, "the data pointer is not aligned for " + std::string(name(*dtype)), where);
  std::byte* base = empty ? first : first + lo * static_cast<std::int64_t>(elem);
  const auto nbytes = empty ? 0 : static_cast<std::size_t>(hi - lo + 1) * elem;
  auto storage = Storage::wrap(base, nbytes, device, std::move(owner), read_only);
  return io_detail::view_of(std::move(storage), std::move(shape), strides, empty ? 0 : -lo, *dtype, device);
}

}  // namespace

DLManagedTensorVersioned* to_dlpack(const Tensor& tensor, SourceLocation where) {
  return export_tensor<DLManagedTensorVersioned>(tensor, "to_dlpack", where);
}

DLManagedTensor* to_dlpack_unversioned(const Tensor& tensor, SourceLocation where) {
  return export_tensor<DLManagedTensor>(tensor, "to_dlpack_unversioned", where);
}

Tensor from_dlpack(DLManagedTensorVersioned* managed, SourceLocation where) {
  if (managed != nullptr && managed->version.major != kDLPackMajor) {
    const auto major = managed->version.major;
    if (managed->deleter != nullptr) managed->deleter(managed);  // ownership was taken
    fail("from_dlpack", "DLPack major version " + std::to_string(major) + " is not supported (tensora reads 1.x)", where);
  }
  const bool read_only = managed != nullptr && (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  return import_tensor(managed, read_only, "from_dlpack", where);
}

Tensor from_dlpack(DLManagedTensor* managed, SourceLocation where) {
  return import_tensor(managed, false, "from_dlpack", where);
}

}  // namespace tensora
