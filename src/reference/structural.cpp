// Reference structural kernels: element by element, indices read one at a time.
#include <algorithm>
#include <cstring>

#include "core/element_access.hpp"
#include "ops/elementwise_functors.hpp"
#include "reference/reference_backend.hpp"
#include "reference/walk.hpp"

namespace tensora::reference {

namespace {

std::int64_t load_index(const char* p, DType dtype) {
  if (dtype == DType::I32) {
    std::int32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

std::int64_t normalize(std::int64_t k, std::int64_t extent) { return k < 0 ? k + extent : k; }

}  // namespace

void fill(const Tensor& out, const void* value) {
  const std::size_t size = size_of(out.dtype());
  for_each_position<1>(out.shape(), {&out}, [&](const std::array<char*, 1>& p) { std::memcpy(p[0], value, size); });
}

std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent) {
  std::optional<std::int64_t> bad;
  for_each_position<1>(indices.shape(), {&indices}, [&](const std::array<char*, 1>& p) {
    const std::int64_t k = load_index(p[0], indices.dtype());
    if (!bad && (k < -extent || k >= extent)) bad = k;
  });
  return bad;
}

void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                std::int64_t extent) {
  const std::size_t size = size_of(out.dtype());
  const std::int64_t axis_bytes = axis_stride * static_cast<std::int64_t>(size);
  for_each_position<3>(out.shape(), {&out, &src, &idx}, [&](const std::array<char*, 3>& p) {
    std::memcpy(p[0], p[1] + normalize(load_index(p[2], idx.dtype()), extent) * axis_bytes, size);
  });
}

void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                 std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length, std::int64_t extent) {
  const std::int64_t out_b = out_stride * static_cast<std::int64_t>(size_of(out.dtype()));
  const std::int64_t idx_b = idx_stride * static_cast<std::int64_t>(size_of(idx.dtype()));
  const std::int64_t src_b = src_stride * static_cast<std::int64_t>(size_of(src.dtype()));
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // Bool is rejected by the op layer
      for_each_position<3>(out.shape(), {&out, &idx, &src}, [&](const std::array<char*, 3>& p) {
        for (std::int64_t j = 0; j < length; ++j) {
          char* dst = p[0] + normalize(load_index(p[1] + j * idx_b, idx.dtype()), extent) * out_b;
          store_from_compute<T>(dst, fn::binary<BinaryOp::Add>(load_as_compute<T>(dst),
                                                               load_as_compute<T>(p[2] + j * src_b)));
        }
      });
    }
  });
}

void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower) {
  const std::size_t r = in.shape().size(), size = size_of(in.dtype());
  const Shape& shape = in.shape();
  std::vector<std::int64_t> index(r, 0);
  for (std::int64_t n = 0; n < numel(shape); ++n) {
    index = unravel(n, shape);
    const std::int64_t i = index[r - 2], j = index[r - 1];
    const bool keep = lower ? j - i <= k : j - i >= k;
    std::vector<std::int64_t> all(r);
    for (std::size_t d = 0; d < r; ++d) all[d] = static_cast<std::int64_t>(d);
    char* dst = base_of(out) + byte_offset(out, all, index);
    if (keep) std::memcpy(dst, base_of(in) + byte_offset(in, all, index), size);
    else std::memset(dst, 0, size);
  }
}

}  // namespace tensora::reference
