// The traced front door (docs/traced.md): ops build a graph instead of running. Shapes and
// dtypes are checked when a node is built (errors point at the line that built it), promotion
// inserts visible convert nodes from the same plan as eager, GraphCompiler turns outputs into an
// immutable Program (dead-code and common-subexpression elimination, constant folding,
// convert-chain folding, transpose folding into dot_general, elementwise fusion) and Runtime
// runs it on an engine. grad / vjp / jvp build gradient graphs with the eager AD rules.
// Semantics, the IR format and the passes: docs/traced.md.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

namespace graph_detail {
struct Node;
struct ProgramImpl;
}  // namespace graph_detail

// A value in a graph under construction: a placeholder, a constant or the result of an op.
// Copies share the node. Every op validates at once and names the caller's line on failure.
class TracedTensor {
 public:
  using Loc = SourceLocation;
  using Axes = std::vector<std::int64_t>;

  TracedTensor() = default;

  // A placeholder fed by Runtime::run (inputs in the order the placeholders were made). The
  // graph lives on `device` (default: Device::default_device()); its defaults steer promotion.
  static TracedTensor input(std::string name, DType dtype, Shape shape, Loc where = Loc::current());
  static TracedTensor input(std::string name, DType dtype, Shape shape, Device device,
                            Loc where = Loc::current());
  // A constant with the element type's dtype (float -> F32, double -> F64, ...).
  template <Element T>
  static TracedTensor from_vec_col_major(Shape shape, std::vector<T> values, Loc where = Loc::current()) {
    return constant(Tensor::from_vec_col_major(std::move(shape), std::move(values), where), where);
  }
  template <Element T>
  static TracedTensor from_vec_col_major(Shape shape, std::vector<T> values, TensorOptions options,
                                         Loc where = Loc::current()) {
    return constant(Tensor::from_vec_col_major(std::move(shape), std::move(values), options, where),
                    where);
  }
  // A constant holding `value` (shared, not copied: do not write to it afterwards).
  static TracedTensor constant(const Tensor& value, Loc where = Loc::current());

  bool defined() const { return node_ != nullptr; }
  DType dtype() const;
  const Shape& shape() const;
  Device device() const;
  std::int64_t rank() const { return static_cast<std::int64_t>(shape().size()); }
  std::int64_t numel() const { return tensora::numel(shape()); }
  // The op that built this value ("input", "constant", "add", "convert", ...).
  std::string_view op() const;

  // ---- elementwise (NumPy broadcasting; scalars are weak): one method per catalog row -------
#define TENSORA_TRACED_BINARY(name, ...)                                                  \
  TracedTensor name(const TracedTensor& other, Loc where = Loc::current()) const;        \
  TracedTensor name(Scalar other, Loc where = Loc::current()) const;
#define TENSORA_TRACED_UNARY(name, ...) TracedTensor name(Loc where = Loc::current()) const;
  TENSORA_BINARY_OPS(TENSORA_TRACED_BINARY)
  TENSORA_UNARY_OPS(TENSORA_TRACED_UNARY)
#undef TENSORA_TRACED_BINARY
#undef TENSORA_TRACED_UNARY
  TracedTensor clamp(Scalar lo, Scalar hi, Loc where = Loc::current()) const;
  TracedTensor clamp(const TracedTensor& lo, const TracedTensor& hi, Loc where = Loc::current()) const;

  // ---- dtype changes: convert is checked (up the lattice), cast is lossy ---------------------
  TracedTensor convert(DType dtype, Loc where = Loc::current()) const;
  TracedTensor cast(DType dtype, Loc where = Loc::current()) const;

  // ---- reductions (no axes: every axis), arg-reductions and scans; softmax / log_softmax ---
#define TENSORA_TRACED_REDUCTION_Axes(name)                                                      \
  TracedTensor name(Axes axes, ReduceOptions options = {}, Loc where = Loc::current()) const;   \
  TracedTensor name(Loc where = Loc::current()) const;
#define TENSORA_TRACED_REDUCTION_Axis(name) TracedTensor name(std::int64_t axis, Loc where = Loc::current()) const;
#define TENSORA_TRACED_REDUCTION(name, Enum, accepts, result, ad, form, ...) TENSORA_TRACED_REDUCTION_##form(name)
#define TENSORA_TRACED_REDUCTION_Scan TENSORA_TRACED_REDUCTION_Axis
#define TENSORA_TRACED_AXIS_OP(name, ...) TENSORA_TRACED_REDUCTION_Axis(name)
  TENSORA_REDUCTIONS(TENSORA_TRACED_REDUCTION)
  TENSORA_AXIS_OPS(TENSORA_TRACED_AXIS_OP)
#undef TENSORA_TRACED_REDUCTION
#undef TENSORA_TRACED_REDUCTION_Axes
#undef TENSORA_TRACED_REDUCTION_Axis
#undef TENSORA_TRACED_REDUCTION_Scan
#undef TENSORA_TRACED_AXIS_OP

  // ---- contractions: matmul becomes a dot_general node ---------------------------------------
  TracedTensor matmul(const TracedTensor& rhs, Loc where = Loc::current()) const;
  TracedTensor dot_general(const TracedTensor& rhs, DotGeneralConfig config,
                           Loc where = Loc::current()) const;

  // ---- structural ----------------------------------------------------------------------------
  TracedTensor reshape(Shape shape, Loc where = Loc::current()) const;
  TracedTensor permute(Axes axes, Loc where = Loc::current()) const;
  TracedTensor transpose(Loc where = Loc::current()) const;  // reverses all axes
  TracedTensor transpose(std::int64_t a, std::int64_t b, Loc where = Loc::current()) const;
  TracedTensor broadcast_to(Shape shape, Loc where = Loc::current()) const;
  TracedTensor expand(Shape shape, Loc where = Loc::current()) const { return broadcast_to(std::move(shape), where); }
  TracedTensor slice(std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                     std::int64_t step = 1, Loc where = Loc::current()) const;
  std::vector<TracedTensor> split(std::vector<std::int64_t> sizes, std::int64_t axis,
                                  Loc where = Loc::current()) const;
  TracedTensor squeeze(Axes axes, Loc where = Loc::current()) const;
  TracedTensor unsqueeze(std::int64_t axis, Loc where = Loc::current()) const;
  TracedTensor reverse(Axes axes, Loc where = Loc::current()) const;
  TracedTensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options = {},
                   Loc where = Loc::current()) const;
  TracedTensor take_along_axis(const TracedTensor& indices, std::int64_t axis, Loc where = Loc::current()) const;
  TracedTensor gather(const TracedTensor& indices, std::int64_t axis, Loc where = Loc::current()) const {
    return take_along_axis(indices, axis, where);
  }
  TracedTensor index_select(std::int64_t axis, const TracedTensor& indices, Loc where = Loc::current()) const;
  TracedTensor scatter_add(std::int64_t axis, const TracedTensor& indices, const TracedTensor& src,
                           Loc where = Loc::current()) const;
  TracedTensor tril(std::int64_t k = 0, Loc where = Loc::current()) const;
  TracedTensor triu(std::int64_t k = 0, Loc where = Loc::current()) const;
  TracedTensor diagonal(std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1,
                        Loc where = Loc::current()) const;
  TracedTensor embed_diag(std::int64_t offset = 0, Loc where = Loc::current()) const;

  // For the graph layer's own code.
  explicit TracedTensor(std::shared_ptr<const graph_detail::Node> node) : node_(std::move(node)) {}
  const std::shared_ptr<const graph_detail::Node>& node() const { return node_; }

 private:
  std::shared_ptr<const graph_detail::Node> node_;
};

// clang-format off
TracedTensor operator+(const TracedTensor& a, const TracedTensor& b);
TracedTensor operator-(const TracedTensor& a, const TracedTensor& b);
TracedTensor operator*(const TracedTensor& a, const TracedTensor& b);
TracedTensor operator/(const TracedTensor& a, const TracedTensor& b);
TracedTensor operator+(const TracedTensor& a, Scalar b);
TracedTensor operator-(const TracedTensor& a, Scalar b);
TracedTensor operator*(const TracedTensor& a, Scalar b);
TracedTensor operator/(const TracedTensor& a, Scalar b);
TracedTensor operator+(Scalar a, const TracedTensor& b);
TracedTensor operator-(Scalar a, const TracedTensor& b);
TracedTensor operator*(Scalar a, const TracedTensor& b);
TracedTensor operator/(Scalar a, const TracedTensor& b);
TracedTensor operator-(const TracedTensor& x);
// clang-format on

// pred ? a : b (pred Bool; a and b promoted to their join).
TracedTensor select(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b,
                    SourceLocation where = SourceLocation::current());
TracedTensor where(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b,
                   SourceLocation loc = SourceLocation::current());
TracedTensor concat(std::vector<TracedTensor> xs, std::int64_t axis,
                    SourceLocation where = SourceLocation::current());
TracedTensor stack(std::vector<TracedTensor> xs, std::int64_t axis,
                   SourceLocation where = SourceLocation::current());
TracedTensor einsum(std::string_view subscripts, std::vector<TracedTensor> operands,
                    SourceLocation where = SourceLocation::current());

// ---- graph-level autodiff: the results are traced tensors, so these compose ------------------
// d y / d x for each x, for a one-element real y; zeros where y does not depend on x. Each
// gradient has its x's dtype and shape.
std::vector<TracedTensor> grad(const TracedTensor& y, const std::vector<TracedTensor>& xs,
                               SourceLocation where = SourceLocation::current());
// Pulls `cotangents` (one per y, in its dtype and shape) back to each x.
std::vector<TracedTensor> vjp(const std::vector<TracedTensor>& ys, const std::vector<TracedTensor>& xs,
                              const std::vector<TracedTensor>& cotangents,
                              SourceLocation where = SourceLocation::current());
// Pushes `tangents` (one per x, in its dtype and shape) forward to each y.
std::vector<TracedTensor> jvp(const std::vector<TracedTensor>& ys, const std::vector<TracedTensor>& xs,
                              const std::vector<TracedTensor>& tangents,
                              SourceLocation where = SourceLocation::current());

// ---- compile and run ------------------------------------------------------------------------

// A precision change in a program: the op (convert or cast), its dtypes, where it was built.
struct Conversion {
  std::string op;
  DType from;
  DType to;
  SourceLocation where;
};

// A placeholder the program reads, in Runtime::run's input order.
struct ProgramInput {
  std::string name;
  DType dtype;
  Shape shape;
};

// An immutable compiled graph; copies share it. Safe to run from several threads at once.
class Program {
 public:
  Program() = default;
  const std::vector<ProgramInput>& inputs() const;
  std::size_t num_outputs() const;
  Device device() const;
  // Every convert and cast node left after optimization.
  std::vector<Conversion> conversions() const;
  // The IR: one line per node, fused kernels with their bodies, converts with their location.
  std::string to_string() const;
  // Nodes by op name in the optimized program ("fused", "dot_general", ...), for audits.
  std::size_t count(std::string_view op) const;

 private:
  // Made by GraphCompiler, read by Runtime; the compiled form is not part of the API.
  friend class GraphCompiler;
  friend class Runtime;
  explicit Program(std::shared_ptr<const graph_detail::ProgramImpl> impl) : impl_(std::move(impl)) {}
  const graph_detail::ProgramImpl& impl() const;

  std::shared_ptr<const graph_detail::ProgramImpl> impl_;
};
std::ostream& operator<<(std::ostream& os, const Program& program);

// Which passes compile runs (all by default; turn some off to compare or debug).
struct CompileOptions {
  bool eliminate_common_subexpressions = true;
  bool fold_constants = true;
  bool fold_convert_chains = true;
  bool fold_transposes = true;
  bool fuse_elementwise = true;
};

class GraphCompiler {
 public:
  GraphCompiler() = default;
  explicit GraphCompiler(CompileOptions options) : options_(options) {}
  // The program computing `outputs`; its inputs are the placeholders they depend on, in the
  // order the placeholders were made.
  Program compile(std::vector<TracedTensor> outputs, SourceLocation where = SourceLocation::current());
  // The same with an explicit input order (every placeholder the outputs need must be listed).
  Program compile(std::vector<TracedTensor> outputs, std::vector<TracedTensor> inputs,
                  SourceLocation where = SourceLocation::current());

 private:
  CompileOptions options_;
};

class Runtime {
 public:
  // Checks each input against its placeholder (count, name order, dtype, shape, device) and
  // returns the outputs in compile order. Intermediates are released after their last use.
  std::vector<Tensor> run(const Program& program, Engine& engine, std::vector<Tensor> inputs,
                          SourceLocation where = SourceLocation::current()) const;
};

}  // namespace tensora
