// Zero-copy views: each builds new shape/strides/offset over the same storage.
#include <algorithm>
#include <optional>

#include "core/checks.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

namespace {

// Strides that view `old` data (shape/strides) as `shape` in column-major element order, or
// nullopt when that needs a copy. This is ATen's computeStride run over reversed axes.
std::optional<Strides> reshape_strides(const Shape& old_shape, const Strides& old_strides,
                                       const Shape& shape) {
  if (numel(old_shape) == 0 || old_shape.empty()) return col_major_strides(shape);
  // Reverse so the slowest axis comes first, as the row-major algorithm expects.
  const Shape os(old_shape.rbegin(), old_shape.rend());
  const Strides ost(old_strides.rbegin(), old_strides.rend());
  const Shape ns(shape.rbegin(), shape.rend());
  Strides nst(ns.size(), 1);
  std::int64_t view_d = static_cast<std::int64_t>(ns.size()) - 1;
  std::int64_t chunk_base_stride = ost.back();
  std::int64_t tensor_numel = 1, view_numel = 1;
  for (std::int64_t tensor_d = static_cast<std::int64_t>(os.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= os[static_cast<std::size_t>(tensor_d)];
    if (tensor_d == 0 || (os[static_cast<std::size_t>(tensor_d - 1)] != 1 &&
                          ost[static_cast<std::size_t>(tensor_d - 1)] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || ns[static_cast<std::size_t>(view_d)] == 1)) {
        nst[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= ns[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = ost[static_cast<std::size_t>(tensor_d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return Strides(nst.rbegin(), nst.rend());
}

}  // namespace

Tensor Tensor::permute(std::vector<std::int64_t> axes, Loc where) const {
  check_defined("permute", where);
  if (static_cast<std::int64_t>(axes.size()) != rank())
    check::fail_invalid("permute",
                        "needs " + std::to_string(rank()) + " axes, got " + std::to_string(axes.size()),
                        "axes", where);
  std::vector<bool> seen(axes.size(), false);
  Shape shape(axes.size());
  Strides strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(check::axis("permute", axes[i], rank(), where));
    if (seen[a])
      check::fail_invalid("permute", "axis " + std::to_string(axes[i]) + " appears twice", "axes", where);
    seen[a] = true;
    shape[i] = shape_[a];
    strides[i] = strides_[a];
  }
  return with_view(std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::transpose(Loc where) const {
  check_defined("transpose", where);
  return with_view(Shape(shape_.rbegin(), shape_.rend()), Strides(strides_.rbegin(), strides_.rend()),
                   offset_);
}

Tensor Tensor::transpose(std::int64_t a, std::int64_t b, Loc where) const {
  check_defined("transpose", where);
  const auto i = static_cast<std::size_t>(check::axis("transpose", a, rank(), where));
  const auto j = static_cast<std::size_t>(check::axis("transpose", b, rank(), where));
  Shape shape = shape_;
  Strides strides = strides_;
  std::swap(shape[i], shape[j]);
  std::swap(strides[i], strides[j]);
  return with_view(std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::reshape(Shape shape, Loc where) const {
  check_defined("reshape", where);
  std::int64_t known = 1;
  std::optional<std::size_t> inferred;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred)
        check::fail_invalid("reshape", "only one extent may be -1 in " + tensora::to_string(shape),
                            "shape", where);
      inferred = d;
    } else if (shape[d] < 0) {
      check::fail_invalid("reshape", "negative extent in shape " + tensora::to_string(shape), "shape",
                          where);
    } else if (__builtin_mul_overflow(known, shape[d], &known)) {
      check::fail_invalid("reshape",
                          "shape " + tensora::to_string(shape) + " has more elements than int64 can count (2^63 - 1)",
                          "shape", where);
    }
  }
  if (inferred) {
    if (known == 0 || numel() % known != 0)
      check::fail_shape("reshape",
                        "cannot reshape " + std::to_string(numel()) + " elements (shape " +
                            tensora::to_string(shape_) + ") into " + tensora::to_string(shape),
                        shape_, shape, where);
    shape[*inferred] = numel() / known;
  }
  check::valid_shape("reshape", shape, where);  // strides of a zero-size shape must fit too
  if (tensora::numel(shape) != numel())
    check::fail_shape("reshape",
                      "cannot reshape " + std::to_string(numel()) + " elements (shape " +
                          tensora::to_string(shape_) + ") into " + tensora::to_string(shape),
                      shape_, shape, where);
  if (auto strides = reshape_strides(shape_, strides_, shape))
    return with_view(std::move(shape), std::move(*strides), offset_);
  // The strides do not allow a view: copy into column-major order, then view that.
  Tensor dense = duplicate(where);
  return dense.with_view(shape, col_major_strides(shape), 0);
}

Tensor Tensor::slice(std::int64_t axis, std::optional<std::int64_t> start,
                     std::optional<std::int64_t> stop, std::int64_t step, Loc where) const {
  check_defined("slice", where);
  const auto a = static_cast<std::size_t>(check::axis("slice", axis, rank(), where));
  if (step == 0) check::fail_invalid("slice", "step must not be 0", "step", where);
  const std::int64_t n = shape_[a];
  // Python's slice.indices(): clamp into range, with defaults that depend on the sign of step.
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t fallback) {
    if (!v) return fallback;
    std::int64_t x = *v < 0 ? *v + n : *v;
    if (step > 0) return std::clamp<std::int64_t>(x, 0, n);
    return std::clamp<std::int64_t>(x, -1, n - 1);
  };
  const std::int64_t b = clamp(start, step > 0 ? 0 : n - 1);
  const std::int64_t e = clamp(stop, step > 0 ? n : -1);
  std::int64_t len = 0;
  if (step > 0 && e > b) len = (e - b + step - 1) / step;
  if (step < 0 && b > e) len = (b - e - step - 1) / -step;
  Shape shape = shape_;
  Strides strides = strides_;
  shape[a] = len;
  strides[a] = strides_[a] * step;
  return with_view(std::move(shape), std::move(strides), len > 0 ? offset_ + b * strides_[a] : offset_);
}

Tensor Tensor::broadcast_to(Shape shape, Loc where) const {
  check_defined("broadcast_to", where);
  check::valid_shape("broadcast_to", shape, where);
  const std::size_t r = shape.size(), own = shape_.size();
  auto fail = [&] {
    check::fail_shape("broadcast_to",
                      "cannot broadcast shape " + tensora::to_string(shape_) + " to " +
                          tensora::to_string(shape) + " (trailing axes must match or be 1)",
                      shape, shape_, where);
  };
  if (own > r) fail();
  Strides strides(r, 0);
  for (std::size_t i = 0; i < own; ++i) {
    const std::size_t d = r - own + i;
    if (shape_[i] == shape[d]) strides[d] = shape_[i] == 1 ? 0 : strides_[i];
    else if (shape_[i] == 1) strides[d] = 0;
    else fail();
  }
  return with_view(std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::squeeze(Loc where) const {
  check_defined("squeeze", where);
  Shape shape;
  Strides strides;
  for (std::size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] != 1) {
      shape.push_back(shape_[d]);
      strides.push_back(strides_[d]);
    }
  return with_view(std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::squeeze(std::vector<std::int64_t> axes, Loc where) const {
  check_defined("squeeze", where);
  std::vector<bool> drop(shape_.size(), false);
  for (auto axis : axes) {
    const auto a = static_cast<std::size_t>(check::axis("squeeze", axis, rank(), where));
    if (shape_[a] != 1)
      check::fail_shape("squeeze",
                        "axis " + std::to_string(axis) + " has extent " + std::to_string(shape_[a]) +
                            ", only extent-1 axes can be squeezed",
                        Shape{1}, Shape{shape_[a]}, where);
    drop[a] = true;
  }
  Shape shape;
  Strides strides;
  for (std::size_t d = 0; d < shape_.size(); ++d)
    if (!drop[d]) {
      shape.push_back(shape_[d]);
      strides.push_back(strides_[d]);
    }
  return with_view(std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::unsqueeze(std::int64_t axis, Loc where) const {
  check_defined("unsqueeze", where);
  const auto a = static_cast<std::size_t>(check::axis("unsqueeze", axis, rank() + 1, where));
  Shape shape = shape_;
  Strides strides = strides_;
  // The new axis gets the stride that keeps the result column-major contiguous when self is.
  const std::int64_t stride = a == 0 ? 1 : strides_[a - 1] * shape_[a - 1];
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), 1);
  strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(a), stride);
  return with_view(std::move(shape), std::move(strides), offset_);
}

}  // namespace tensora
