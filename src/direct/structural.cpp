// The structural ops of the direct API. Each validates everything at the boundary (device,
// dtypes, axes, shapes, index ranges), then allocates a column-major result and runs CPU
// kernels; split, reverse and diagonal build views and do no work at all.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "backend/backend.hpp"
#include "ops/elementwise_catalog.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"
#include "core/tensor_internals.hpp"

namespace tensora {

namespace {

using Loc = SourceLocation;
constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int64_t>::max();

std::string str(std::int64_t v) { return std::to_string(v); }

// A view over `base`'s storage with another shape, strides and offset.
Tensor view_of(const Tensor& base, Shape shape, Strides strides, std::int64_t offset) {
  return TensorInternals::restride(base, std::move(shape), std::move(strides), offset);
}

// Index tensors are I32 or I64; anything else is a dtype mismatch that names the dtype.
void check_index_dtype(std::string_view op, const Tensor& indices, Loc where) {
  if (indices.dtype() == DType::I32 || indices.dtype() == DType::I64) return;
  throw Error(ErrorKind::Validation, std::string(op),
              "dtype mismatch: indices must be I32 or I64, got " + std::string(name(indices.dtype())) +
                  "; cast the indices first",
              DTypeMismatch{DType::I64, indices.dtype()}, where);
}

// Every index within [-extent, extent), checked before any work is done.
void check_index_range(std::string_view op, const Tensor& indices, std::int64_t axis, std::int64_t extent,
                       Engine& engine, Loc where) {
  if (auto bad = engine.backend().find_out_of_range(indices, extent, engine)) {
    const std::string valid = extent == 0 ? "none, the axis is empty" : str(-extent) + ".." + str(extent - 1);
    check::fail_invalid(op,
                        "index " + str(*bad) + " is out of range for axis " + str(axis) + " with extent " +
                            str(extent) + " (valid: " + valid + ")",
                        "indices", where);
  }
}

// ---- concat / stack ---------------------------------------------------------------------

void check_joinable(std::string_view op, const std::vector<Tensor>& tensors, Engine& engine, Loc where) {
  if (tensors.empty()) check::fail_invalid(op, "needs at least one tensor", "tensors", where);
  const Tensor& first = tensors.front();
  validate::operands(op, engine, {&first}, where);
  for (const Tensor& t : tensors) validate::operands(op, engine, {&first, &t}, where);
  for (const Tensor& t : tensors) check::same_dtype(op, first.dtype(), t.dtype(), where);
}

// Copies each piece into its slice of `out` along `axis` (pieces already validated).
void join_into(const Tensor& out, const std::vector<Tensor>& pieces, std::int64_t axis, Engine& engine) {
  std::int64_t at = 0;
  for (const Tensor& t : pieces) {
    const std::int64_t n = t.shape()[static_cast<std::size_t>(axis)];
    if (n > 0 && t.numel() > 0) engine.backend().copy(out.slice(axis, at, at + n), t, engine);
    at += n;
  }
}

// ---- gathers ----------------------------------------------------------------------------

Tensor take_along_axis_op(std::string_view op, const Tensor& self, const Tensor& indices, std::int64_t axis,
                          Engine& engine, Loc where) {
  validate::operands(op, engine, {&self, &indices}, where);
  const Shape shape = infer::take_along_axis(op, self, indices, axis, where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, self.rank(), where));
  const Shape& s = self.shape();
  check_index_range(op, indices, axis, s[a], engine, where);
  Tensor out = Tensor::empty(shape, self.dtype(), self.device(), where);
  if (out.numel() == 0) return out;
  Strides src_strides(s.size(), 0);
  for (std::size_t d = 0; d < s.size(); ++d)
    if (d != a && s[d] == shape[d] && s[d] != 1) src_strides[d] = self.strides()[d];
  const Tensor src = view_of(self, shape, std::move(src_strides), self.offset());
  const Tensor idx = indices.broadcast_to(shape, where);
  engine.backend().take_along(out, src, idx, self.strides()[a], s[a], engine);
  return out;
}

// ---- pad --------------------------------------------------------------------------------

std::string pair_str(const std::pair<std::int64_t, std::int64_t>& w) {
  // Appended piece by piece: `"(" + std::string&&` trips GCC 12's false -Wrestrict at -O3.
  std::string s = "(";
  s += str(w.first);
  s += ", ";
  s += str(w.second);
  s += ")";
  return s;
}

// Slices `t` to [start, start + n) on axis d.
Tensor range(const Tensor& t, std::size_t d, std::int64_t start, std::int64_t n) {
  return t.slice(static_cast<std::int64_t>(d), start, start + n);
}

// The NumPy 'edge' / 'reflect' border of axis d of `w` (whose interior on d is already set).
// The Constant mode's fill as a 0-d tensor of `dtype`; no value means the dtype's zero (the
// Bool scalar false converts exactly to every dtype's zero).
Tensor pad_fill(const PadOptions& options, DType dtype, Device device, Loc where) {
  return validate::weak_scalar("pad", options.value.value_or(Scalar(false)), dtype, device, where);
}

void pad_mirror(const Tensor& w, std::size_t d, std::int64_t before, std::int64_t n, std::int64_t after,
                PadMode mode, Engine& engine) {
  const auto ax = static_cast<std::int64_t>(d);
  if (before > 0) {
    const Tensor dst = range(w, d, 0, before);
    const Tensor src = mode == PadMode::Edge ? range(w, d, before, 1).broadcast_to(dst.shape())
                                             : w.slice(ax, 2 * before, before, -1);  // 2b .. b+1
    engine.backend().copy(dst, src, engine);
  }
  if (after > 0) {
    const std::int64_t last = before + n - 1;
    const Tensor dst = range(w, d, before + n, after);
    Tensor src;
    if (mode == PadMode::Edge) {
      src = range(w, d, last, 1).broadcast_to(dst.shape());
    } else {
      // last-1 down to last-after; a stop of -1 would mean "from the end", so omit it.
      const std::int64_t stop = last - 1 - after;
      src = w.slice(ax, last - 1, stop < 0 ? std::nullopt : std::optional<std::int64_t>(stop), -1);
    }
    engine.backend().copy(dst, src, engine);
  }
}

}  // namespace

// ---- shape inference shared with the traced front door -------------------------------

Shape infer::take_along_axis(std::string_view op, const Tensor& self, const Tensor& indices, std::int64_t axis,
                             Loc where) {
  check_index_dtype(op, indices, where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, self.rank(), where));
  const Shape& s = self.shape();
  const Shape& is = indices.shape();
  if (is.size() != s.size())
    check::fail_shape(op,
                      "indices shape " + to_string(is) + " must have the rank of self shape " + to_string(s) +
                          " (" + str(self.rank()) + ") to index along axis " + str(axis),
                      s, is, where);
  Shape shape(s.size());
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (d == a) {
      shape[d] = is[d];
    } else if (s[d] == is[d] || s[d] == 1 || is[d] == 1) {
      shape[d] = s[d] == 1 ? is[d] : s[d];
    } else {
      check::fail_shape(op,
                        "indices shape " + to_string(is) + " does not broadcast against self shape " +
                            to_string(s) + " on axis " + str(static_cast<std::int64_t>(d)) +
                            " (every axis but axis " + str(axis) + " must match or be 1)",
                        s, is, where);
    }
  }
  return shape;
}

Shape infer::index_select(const Tensor& self, std::int64_t axis, const Tensor& indices, Loc where) {
  constexpr std::string_view op = "index_select";
  check_index_dtype(op, indices, where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, self.rank(), where));
  if (indices.rank() != 1)
    check::fail_shape(op,
                      "indices must be 1-D, got shape " + tensora::to_string(indices.shape()) +
                          "; flatten them with reshape(" + tensora::to_string(Shape{indices.numel()}) + ")",
                      Shape{indices.numel()}, indices.shape(), where);
  Shape shape = self.shape();
  shape[a] = indices.shape()[0];
  return shape;
}

void infer::scatter_add(const Tensor& self, std::int64_t axis, const Tensor& indices, const Tensor& src,
                        Loc where) {
  constexpr std::string_view op = "scatter_add";
  check::same_dtype(op, self.dtype(), src.dtype(), where);
  check_index_dtype(op, indices, where);
  if (!accepts(info(BinaryOp::Add), self.dtype()))
    check::fail_unsupported_dtype(op, self.dtype(), "scatter_add adds; cast Bool to an integer dtype first", where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, self.rank(), where));
  const Shape& is = indices.shape();
  if (indices.rank() != self.rank() || src.rank() != self.rank())
    check::fail_shape(op,
                      "self " + tensora::to_string(self.shape()) + ", indices " + tensora::to_string(is) + " and src " +
                          tensora::to_string(src.shape()) + " must have one rank (scatter along axis " +
                          str(axis) + ")",
                      self.shape(), is, where);
  for (std::size_t d = 0; d < is.size(); ++d) {
    if (is[d] > src.shape()[d])
      check::fail_shape(op,
                        "indices shape " + tensora::to_string(is) + " exceeds src shape " +
                            tensora::to_string(src.shape()) + " on axis " + str(static_cast<std::int64_t>(d)) +
                            " (scatter along axis " + str(axis) + ")",
                        src.shape(), is, where);
    if (d != a && is[d] > self.shape()[d])
      check::fail_shape(op,
                        "indices shape " + tensora::to_string(is) + " exceeds self shape " +
                            tensora::to_string(self.shape()) + " on axis " + str(static_cast<std::int64_t>(d)) +
                            " (every axis but the scatter axis " + str(axis) + ")",
                        self.shape(), is, where);
  }
}

Shape infer::pad(const Tensor& self, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
                 const PadOptions& options, Loc where) {
  constexpr std::string_view op = "pad";
  const PadMode mode = options.mode;
  if (mode != PadMode::Constant && mode != PadMode::Edge && mode != PadMode::Reflect)
    check::fail_invalid(op, "unknown pad mode " + str(static_cast<int>(mode)), "mode", where);
  if (static_cast<std::int64_t>(widths.size()) != self.rank())
    check::fail_invalid(op,
                        "needs one (before, after) pair per axis: the tensor has rank " + str(self.rank()) + ", got " +
                            str(static_cast<std::int64_t>(widths.size())) + " pairs",
                        "widths", where);
  Shape shape = self.shape();
  for (std::size_t d = 0; d < self.shape().size(); ++d) {
    const auto [before, after] = widths[d];
    const std::int64_t n = self.shape()[d];
    const std::string axis = "axis " + str(static_cast<std::int64_t>(d));
    if (before < 0 || after < 0)
      check::fail_invalid(op, "width " + pair_str(widths[d]) + " on " + axis + " is negative; widths must be >= 0",
                          "widths", where);
    if (before > kMaxIndex - n || after > kMaxIndex - n - before)
      check::fail_invalid(op, "width " + pair_str(widths[d]) + " on " + axis + " overflows the extent", "widths",
                          where);
    if (mode == PadMode::Edge && n == 0 && (before > 0 || after > 0))
      check::fail_invalid(op, "edge padding of " + axis + " needs a non-empty axis, its extent is 0", "widths",
                          where);
    if (mode == PadMode::Reflect && (before >= n || after >= n) && (before > 0 || after > 0))
      check::fail_invalid(op,
                          "reflect padding of " + axis + " by " + pair_str(widths[d]) +
                              " needs each width below the extent " + str(n),
                          "widths", where);
    shape[d] = n + before + after;
  }
  if (mode == PadMode::Constant) (void)pad_fill(options, self.dtype(), self.device(), where);
  check::valid_shape(op, shape, where);  // the result's element count must fit int64
  return shape;
}

void infer::triangle(std::string_view op, const Tensor& self, Loc where) {
  check::axis(op, -2, self.rank(), where);  // a matrix or a batch of them
}

Shape infer::embed_diag(const Tensor& self, std::int64_t offset, Loc where) {
  constexpr std::string_view op = "embed_diag";
  check::axis(op, -1, self.rank(), where);
  const std::int64_t n = self.shape().back();
  if (offset < -(kMaxIndex - n) || offset > kMaxIndex - n)
    check::fail_invalid(op, "offset " + str(offset) + " is too large", "offset", where);
  const std::int64_t m = n + std::abs(offset);
  Shape shape(self.shape().begin(), self.shape().end() - 1);
  shape.push_back(m);
  shape.push_back(m);
  check::valid_shape(op, shape, where);  // the result's element count must fit int64
  return shape;
}

Shape infer::concat(const std::vector<Tensor>& tensors, std::int64_t axis, Loc where) {
  constexpr std::string_view op = "concat";
  const Tensor& first = tensors.front();
  const auto a = static_cast<std::size_t>(check::axis(op, axis, first.rank(), where));
  Shape shape = first.shape();
  shape[a] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Shape& s = tensors[i].shape();
    bool ok = s.size() == first.shape().size();
    for (std::size_t d = 0; ok && d < s.size(); ++d) ok = d == a || s[d] == first.shape()[d];
    if (!ok)
      check::fail_shape(op,
                        "tensor " + str(static_cast<std::int64_t>(i)) + " has shape " + to_string(s) +
                            " but tensor 0 has shape " + to_string(first.shape()) +
                            "; every extent except the one of the concat axis " + str(axis) + " must match",
                        first.shape(), s, where);
    if (s[a] > kMaxIndex - shape[a])
      check::fail_invalid(op, "the joined extent overflows", "tensors", where);
    shape[a] += s[a];
  }
  check::valid_shape(op, shape, where);  // the result's element count must fit int64
  return shape;
}

Shape infer::stack(const std::vector<Tensor>& tensors, std::int64_t axis, Loc where) {
  constexpr std::string_view op = "stack";
  const Tensor& first = tensors.front();
  const std::int64_t a = check::axis(op, axis, first.rank() + 1, where);
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].shape() != first.shape())
      check::fail_shape(op,
                        "tensor " + str(static_cast<std::int64_t>(i)) + " has shape " +
                            to_string(tensors[i].shape()) + " but tensor 0 has shape " +
                            to_string(first.shape()) + "; stack (along new axis " + str(axis) +
                            ") needs equal shapes",
                        first.shape(), tensors[i].shape(), where);
  Shape shape = first.shape();
  shape.insert(shape.begin() + a, static_cast<std::int64_t>(tensors.size()));
  check::valid_shape(op, shape, where);  // the result's element count must fit int64
  return shape;
}

// ---- concat / stack ---------------------------------------------------------------------

Tensor concat(std::vector<Tensor> tensors, std::int64_t axis, Engine& engine, SourceLocation where) {
  constexpr std::string_view op = "concat";
  check_joinable(op, tensors, engine, where);
  Shape shape = infer::concat(tensors, axis, where);
  const Tensor& first = tensors.front();
  const auto a = static_cast<std::size_t>(check::axis(op, axis, first.rank(), where));
  Tensor out = Tensor::empty(std::move(shape), first.dtype(), first.device(), where);
  join_into(out, tensors, static_cast<std::int64_t>(a), engine);
  return out;
}

Tensor stack(std::vector<Tensor> tensors, std::int64_t axis, Engine& engine, SourceLocation where) {
  constexpr std::string_view op = "stack";
  check_joinable(op, tensors, engine, where);
  Shape shape = infer::stack(tensors, axis, where);
  const Tensor& first = tensors.front();
  const std::int64_t a = check::axis(op, axis, first.rank() + 1, where);
  Tensor out = Tensor::empty(std::move(shape), first.dtype(), first.device(), where);
  std::vector<Tensor> pieces;
  pieces.reserve(tensors.size());
  for (const Tensor& t : tensors) pieces.push_back(t.unsqueeze(a, where));
  join_into(out, pieces, a, engine);
  return out;
}

// ---- views ------------------------------------------------------------------------------

std::vector<Tensor> Tensor::split(std::vector<std::int64_t> sizes, std::int64_t axis, Loc where) const {
  check_defined("split", where);
  const auto a = static_cast<std::size_t>(check::axis("split", axis, rank(), where));
  const std::int64_t extent = shape_[a];
  std::int64_t total = 0;
  bool fits = true;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      check::fail_invalid("split",
                          "sizes must be >= 0, got " + str(sizes[i]) + " at position " +
                              str(static_cast<std::int64_t>(i)),
                          "sizes", where);
    if (sizes[i] > extent - total) fits = false;
    else total += sizes[i];
  }
  if (!fits || total != extent)
    check::fail_invalid("split",
                        "sizes " + tensora::to_string(sizes) + " do not sum to the extent " + str(extent) +
                            " of axis " + str(axis) + " (shape " + tensora::to_string(shape_) + ")",
                        "sizes", where);
  std::vector<Tensor> pieces;
  pieces.reserve(sizes.size());
  std::int64_t at = 0;
  for (std::int64_t n : sizes) {
    Shape shape = shape_;
    shape[a] = n;
    pieces.push_back(with_view(std::move(shape), strides_, n > 0 ? offset_ + at * strides_[a] : offset_));
    at += n;
  }
  return pieces;
}

Tensor Tensor::reverse(std::vector<std::int64_t> axes, Loc where) const {
  check_defined("reverse", where);
  std::vector<bool> seen(shape_.size(), false);
  Strides strides = strides_;
  std::int64_t offset = offset_;
  for (std::int64_t axis : axes) {
    const auto a = static_cast<std::size_t>(check::axis("reverse", axis, rank(), where));
    if (seen[a]) check::fail_invalid("reverse", "axis " + str(axis) + " appears twice", "axes", where);
    seen[a] = true;
  }
  for (std::size_t a = 0; a < shape_.size(); ++a) {
    if (!seen[a] || shape_[a] == 0) continue;
    offset += (shape_[a] - 1) * strides[a];
    strides[a] = -strides[a];
  }
  return with_view(shape_, std::move(strides), offset);
}

Tensor Tensor::diagonal(std::int64_t offset, std::int64_t axis1, std::int64_t axis2, Loc where) const {
  check_defined("diagonal", where);
  const auto a1 = static_cast<std::size_t>(check::axis("diagonal", axis1, rank(), where));
  const auto a2 = static_cast<std::size_t>(check::axis("diagonal", axis2, rank(), where));
  if (a1 == a2)
    check::fail_invalid("diagonal",
                        "axis1 and axis2 must be different axes, both are axis " + str(static_cast<std::int64_t>(a1)),
                        "axis2", where);
  const std::int64_t n1 = shape_[a1], n2 = shape_[a2];
  // Element i of the diagonal is (i, i + offset) for offset >= 0, else (i - offset, i).
  const std::int64_t len = std::max<std::int64_t>(0, offset >= 0 ? std::min(n1, n2 - offset)
                                                                  : std::min(n1 + offset, n2));
  Shape shape;
  Strides strides;
  for (std::size_t d = 0; d < shape_.size(); ++d)
    if (d != a1 && d != a2) {
      shape.push_back(shape_[d]);
      strides.push_back(strides_[d]);
    }
  shape.push_back(len);
  strides.push_back(strides_[a1] + strides_[a2]);
  std::int64_t start = offset_;
  if (len > 0) start += offset >= 0 ? offset * strides_[a2] : -offset * strides_[a1];
  return with_view(std::move(shape), std::move(strides), start);
}

// ---- copies -----------------------------------------------------------------------------

Tensor Tensor::pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, Engine& engine, Loc where) const {
  return pad(std::move(widths), PadOptions{}, engine, where);
}

Tensor Tensor::pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options,
                   Engine& engine, Loc where) const {
  constexpr std::string_view op = "pad";
  validate::operands(op, engine, {this}, where);
  const PadMode mode = options.mode;
  const Shape shape = infer::pad(*this, widths, options, where);
  Tensor value;
  if (mode == PadMode::Constant) value = pad_fill(options, dtype_, device_, where);

  Tensor out = Tensor::empty(shape, dtype_, device_, where);
  if (out.numel() == 0) return out;
  Tensor interior = out;
  for (std::size_t d = 0; d < shape_.size(); ++d) interior = range(interior, d, widths[d].first, shape_[d]);
  if (numel() > 0) engine.backend().copy(interior, *this, engine);
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    const auto [before, after] = widths[d];
    const std::int64_t n = shape_[d];
    if (mode == PadMode::Constant) {
      // Whole slabs of out; corners are written by several axes with the same value.
      if (before > 0) engine.backend().fill(range(out, d, 0, before), value.element_ptr(), engine);
      if (after > 0) engine.backend().fill(range(out, d, before + n, after), value.element_ptr(), engine);
    } else {
      // Axis by axis, as NumPy: axes below d are padded already, axes above d stay interior.
      Tensor w = out;
      for (std::size_t e = d + 1; e < shape_.size(); ++e) w = range(w, e, widths[e].first, shape_[e]);
      if (w.numel() > 0) pad_mirror(w, d, before, n, after, mode, engine);
    }
  }
  return out;
}

Tensor Tensor::take_along_axis(const Tensor& indices, std::int64_t axis, Engine& engine, Loc where) const {
  return take_along_axis_op("take_along_axis", *this, indices, axis, engine, where);
}

Tensor Tensor::gather(const Tensor& indices, std::int64_t axis, Engine& engine, Loc where) const {
  return take_along_axis_op("gather", *this, indices, axis, engine, where);
}

Tensor Tensor::index_select(std::int64_t axis, const Tensor& indices, Engine& engine, Loc where) const {
  constexpr std::string_view op = "index_select";
  validate::operands(op, engine, {this, &indices}, where);
  const Shape shape = infer::index_select(*this, axis, indices, where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, rank(), where));
  check_index_range(op, indices, axis, shape_[a], engine, where);
  Tensor out = Tensor::empty(shape, dtype_, device_, where);
  if (out.numel() == 0) return out;
  Strides src_strides = strides_;
  src_strides[a] = 0;
  Strides idx_strides(shape.size(), 0);
  idx_strides[a] = indices.strides()[0];
  const Tensor src = with_view(shape, std::move(src_strides), offset_);
  const Tensor idx = view_of(indices, shape, std::move(idx_strides), indices.offset());
  engine.backend().take_along(out, src, idx, strides_[a], shape_[a], engine);
  return out;
}

Tensor Tensor::scatter_add(std::int64_t axis, const Tensor& indices, const Tensor& src, Engine& engine,
                           Loc where) const {
  constexpr std::string_view op = "scatter_add";
  validate::operands(op, engine, {this, &indices, &src}, where);
  infer::scatter_add(*this, axis, indices, src, where);
  const auto a = static_cast<std::size_t>(check::axis(op, axis, rank(), where));
  const Shape& is = indices.shape();
  check_index_range(op, indices, axis, shape_[a], engine, where);
  Tensor out = Tensor::empty(shape_, dtype_, device_, where);
  if (out.numel() > 0) engine.backend().copy(out, *this, engine);
  if (indices.numel() == 0) return out;
  // Views over the index shape with the scatter axis cut to 1: one position per output fiber.
  Shape fibers = is;
  fibers[a] = 1;
  const Tensor out_v = view_of(out, fibers, out.strides(), out.offset());
  const Tensor idx_v = view_of(indices, fibers, indices.strides(), indices.offset());
  const Tensor src_v = view_of(src, fibers, src.strides(), src.offset());
  engine.backend().scatter_add(out_v, idx_v, src_v, out.strides()[a], indices.strides()[a], src.strides()[a], is[a],
                   shape_[a], engine);
  return out;
}

namespace {

Tensor triangle_op(std::string_view op, const Tensor& self, std::int64_t k, bool lower, Engine& engine,
                   Loc where) {
  validate::operands(op, engine, {&self}, where);
  infer::triangle(op, self, where);
  Tensor out = Tensor::empty(self.shape(), self.dtype(), self.device(), where);
  engine.backend().triangle(out, self, k, lower, engine);
  return out;
}

}  // namespace

Tensor Tensor::tril(std::int64_t k, Engine& engine, Loc where) const {
  return triangle_op("tril", *this, k, true, engine, where);
}

Tensor Tensor::triu(std::int64_t k, Engine& engine, Loc where) const {
  return triangle_op("triu", *this, k, false, engine, where);
}

Tensor Tensor::embed_diag(std::int64_t offset, Engine& engine, Loc where) const {
  constexpr std::string_view op = "embed_diag";
  validate::operands(op, engine, {this}, where);
  Tensor out = Tensor::empty(infer::embed_diag(*this, offset, where), dtype_, device_, where);
  if (out.numel() == 0) return out;
  static constexpr unsigned char kZero[16] = {};
  engine.backend().fill(out, kZero, engine);
  if (numel() > 0) engine.backend().copy(out.diagonal(offset, -2, -1, where), *this, engine);
  return out;
}

}  // namespace tensora
