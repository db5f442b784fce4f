// The library's own access to a tensor's storage: views over a buffer, and the buffer behind a
// view. Not installed: users make tensors by creation, views, the file loaders and DLPack.
#pragma once

#include <memory>

#include "tensora/tensor.hpp"

namespace tensora {

class Storage;

struct TensorInternals {
  // A tensor over `storage` (which must hold every element the strides reach).
  static Tensor view(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
                     DType dtype, Device device) {
    return Tensor(std::move(storage), std::move(shape), std::move(strides), offset, dtype, device);
  }
  // `base`'s storage under another shape, strides and offset (a meta base gives a meta view).
  static Tensor restride(const Tensor& base, Shape shape, Strides strides, std::int64_t offset) {
    return base.with_view(std::move(shape), std::move(strides), offset);
  }
  // The same bytes read as another dtype of the same size.
  static Tensor reinterpret(const Tensor& base, DType dtype) {  // sizes equal: the cached address holds
    Tensor t = base;
    t.dtype_ = dtype;
    return t;
  }
  // Null for an empty handle or a meta tensor.
  static const std::shared_ptr<Storage>& storage(const Tensor& t) { return t.storage_; }
};

}  // namespace tensora
