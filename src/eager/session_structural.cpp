// Structural and indexing ops of the eager session.
#include "ad/structural_rules.hpp"
#include "eager/session_support.hpp"

namespace tensora {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {
template <class Rule>
EagerTensor one(Rule rule, const EagerTensor& x, Tensor out) {
  return record(std::move(rule), std::array<const EagerTensor*, 1>{&x}, std::move(out));
}
}  // namespace

EagerTensor EagerSession::reshape(const T& x, Shape shape, Loc where) {
  check_inputs("reshape", engine_, {&x}, where);
  return one(ad::ReshapeRule{}, x, x.value().reshape(std::move(shape), where));
}
EagerTensor EagerSession::squeeze(const T& x, Axes axes, Loc where) {
  check_inputs("squeeze", engine_, {&x}, where);
  return one(ad::ReshapeRule{}, x, x.value().squeeze(std::move(axes), where));
}
EagerTensor EagerSession::unsqueeze(const T& x, std::int64_t axis, Loc where) {
  check_inputs("unsqueeze", engine_, {&x}, where);
  return one(ad::ReshapeRule{}, x, x.value().unsqueeze(axis, where));
}

EagerTensor EagerSession::permute(const T& x, Axes axes, Loc where) {
  check_inputs("permute", engine_, {&x}, where);
  Tensor out = x.value().permute(axes, where);  // validates the axes
  for (auto& a : axes) a = ad::normalize_axis(a, x.value().rank());
  return one(ad::PermuteRule{std::move(axes)}, x, std::move(out));
}
EagerTensor EagerSession::transpose(const T& x, Loc where) {
  Axes axes;
  for (std::int64_t d = x.value().rank() - 1; d >= 0; --d) axes.push_back(d);
  return permute(x, std::move(axes), where);
}
EagerTensor EagerSession::transpose(const T& x, std::int64_t a, std::int64_t b, Loc where) {
  check_inputs("transpose", engine_, {&x}, where);
  Tensor out = x.value().transpose(a, b, where);
  Axes axes(static_cast<std::size_t>(x.value().rank()));
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[static_cast<std::size_t>(ad::normalize_axis(a, x.value().rank()))],
            axes[static_cast<std::size_t>(ad::normalize_axis(b, x.value().rank()))]);
  return one(ad::PermuteRule{std::move(axes)}, x, std::move(out));
}

EagerTensor EagerSession::broadcast_to(const T& x, Shape shape, Loc where) {
  check_inputs("broadcast_to", engine_, {&x}, where);
  return one(ad::BroadcastRule{}, x, x.value().broadcast_to(std::move(shape), where));
}

EagerTensor EagerSession::slice(const T& x, std::int64_t axis, std::optional<std::int64_t> start,
                                std::optional<std::int64_t> stop, std::int64_t step, Loc where) {
  check_inputs("slice", engine_, {&x}, where);
  Tensor out = x.value().slice(axis, start, stop, step, where);  // validates axis and step
  const std::int64_t ax = ad::normalize_axis(axis, x.value().rank());
  const std::int64_t n = x.value().shape()[static_cast<std::size_t>(ax)];
  return one(ad::SliceRule::of(ax, n, start, stop, step), x, std::move(out));
}

std::vector<EagerTensor> EagerSession::split(const T& x, std::vector<std::int64_t> sizes,
                                             std::int64_t axis, Loc where) {
  check_inputs("split", engine_, {&x}, where);
  (void)x.value().split(sizes, axis, where);  // validates sizes and axis
  std::vector<EagerTensor> pieces;
  std::int64_t at = 0;
  for (auto n : sizes) {
    pieces.push_back(slice(x, axis, at, at + n, 1, where));
    at += n;
  }
  return pieces;
}

EagerTensor EagerSession::reverse(const T& x, Axes axes, Loc where) {
  check_inputs("reverse", engine_, {&x}, where);
  Tensor out = x.value().reverse(axes, where);
  return one(ad::ReverseRule{std::move(axes)}, x, std::move(out));
}

EagerTensor EagerSession::pad(const T& x, std::vector<std::pair<std::int64_t, std::int64_t>> widths,
                              PadOptions options, Loc where) {
  check_inputs("pad", engine_, {&x}, where);
  Tensor out = x.value().pad(widths, options, engine_, where);
  if (options.mode != PadMode::Constant)
    return one(ad::GatherPadRule{std::move(widths), options.mode == PadMode::Reflect}, x, std::move(out));
  return one(ad::PadRule{std::move(widths)}, x, std::move(out));
}

EagerTensor EagerSession::concat(std::vector<T> xs, std::int64_t axis, Loc where) {
  if (xs.empty()) check::fail_invalid("concat", "needs at least one tensor", "tensors", where);
  for (const auto& x : xs) check_inputs("concat", engine_, {&x}, where);
  LatticeType j = xs.front().dtype();
  for (const auto& x : xs) j = join(j, x.dtype());
  const DType target = apply_policy(policy("concat").accepts, j, engine_.device());
  std::vector<EagerTensor> converted;
  std::vector<Tensor> values;
  for (const auto& x : xs) {
    converted.push_back(convert_to(x, target, engine_, where));
    values.push_back(converted.back().value());
  }
  Tensor out = tensora::concat(std::move(values), axis, engine_, where);
  const std::int64_t ax = ad::normalize_axis(axis, out.rank());
  return record_n(ad::ConcatRule{ax}, converted, std::move(out));
}

// stack = concat of the inputs with a new extent-1 axis (recorded reshapes).
EagerTensor EagerSession::stack(std::vector<T> xs, std::int64_t axis, Loc where) {
  if (xs.empty()) check::fail_invalid("stack", "needs at least one tensor", "tensors", where);
  const std::int64_t rank = xs.front().value().rank();
  if (axis < -(rank + 1) || axis > rank)
    throw Error(
        ErrorKind::Validation, "stack",
        "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank + 1),
        AxisOutOfRange{axis, rank + 1}, where);
  const std::int64_t ax = axis < 0 ? axis + rank + 1 : axis;
  for (const auto& x : xs)
    if (x.shape() != xs.front().shape())
      check::fail_shape("stack",
                        "every tensor must have the shape " + to_string(xs.front().shape()) +
                            ", got " + to_string(x.shape()),
                        xs.front().shape(), x.shape(), where);
  for (auto& x : xs) x = unsqueeze(x, ax, where);
  return concat(std::move(xs), ax, where);
}

EagerTensor EagerSession::take_along_axis(const T& x, const T& indices, std::int64_t axis,
                                          Loc where) {
  check_inputs("take_along_axis", engine_, {&x, &indices}, where);
  Tensor out = x.value().take_along_axis(indices.value(), axis, engine_, where);
  return record(ad::TakeAlongAxisRule{ad::normalize_axis(axis, x.value().rank())},
                std::array<const EagerTensor*, 2>{&x, &indices}, std::move(out));
}

EagerTensor EagerSession::index_select(const T& x, std::int64_t axis, const T& indices, Loc where) {
  check_inputs("index_select", engine_, {&x, &indices}, where);
  Tensor out = x.value().index_select(axis, indices.value(), engine_, where);
  return record(ad::IndexSelectRule{ad::normalize_axis(axis, x.value().rank())},
                std::array<const EagerTensor*, 2>{&x, &indices}, std::move(out));
}

EagerTensor EagerSession::scatter_add(const T& x, std::int64_t axis, const T& indices, const T& src,
                                      Loc where) {
  check_inputs("scatter_add", engine_, {&x, &indices, &src}, where);
  const DType target = plan_target(policy("scatter_add"), {&x, &src}, engine_);
  const EagerTensor cx = convert_to(x, target, engine_, where);
  const EagerTensor cs = convert_to(src, target, engine_, where);
  Tensor out = cx.value().scatter_add(axis, indices.value(), cs.value(), engine_, where);
  return record(ad::ScatterAddRule{ad::normalize_axis(axis, x.value().rank())},
                std::array<const EagerTensor*, 3>{&cx, &indices, &cs}, std::move(out));
}

EagerTensor EagerSession::tril(const T& x, std::int64_t k, Loc where) {
  check_inputs("tril", engine_, {&x}, where);
  return one(ad::TriangleRule{true, k}, x, x.value().tril(k, engine_, where));
}
EagerTensor EagerSession::triu(const T& x, std::int64_t k, Loc where) {
  check_inputs("triu", engine_, {&x}, where);
  return one(ad::TriangleRule{false, k}, x, x.value().triu(k, engine_, where));
}

EagerTensor EagerSession::diagonal(const T& x, std::int64_t offset, std::int64_t axis1,
                                   std::int64_t axis2, Loc where) {
  check_inputs("diagonal", engine_, {&x}, where);
  Tensor out = x.value().diagonal(offset, axis1, axis2, where);
  const auto rank = x.value().rank();
  return one(
      ad::DiagonalRule{offset, ad::normalize_axis(axis1, rank), ad::normalize_axis(axis2, rank)}, x,
      std::move(out));
}

EagerTensor EagerSession::embed_diag(const T& x, std::int64_t offset, Loc where) {
  check_inputs("embed_diag", engine_, {&x}, where);
  return one(ad::EmbedDiagRule{offset}, x, x.value().embed_diag(offset, engine_, where));
}

}  // namespace tensora
