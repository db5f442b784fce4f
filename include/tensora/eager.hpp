// The eager front door (docs/eager.md): ops run at once on an engine, inputs are promoted
// along the lattice, and a tape records what reverse and forward mode autodiff need.
// Semantics, the promotion plan table and AD conventions: docs/eager.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tensora/einsum.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

namespace eager_detail {
struct Node;
}  // namespace eager_detail

class EagerSession;

// Each input's target dtype for `op` (a direct op name: "add", "matmul", "sum", "select", ...):
// the lattice join of `dtypes` plus the op's own policy (int inputs of float-only ops such as
// div/exp/mean go to the device's default float, Bool inputs of arithmetic go to the default
// int; index and predicate operands keep their dtype). The result dtype then follows the direct
// op (comparisons -> Bool, abs of complex -> real). Throws Validation for an unknown op name.
std::vector<DType> eager_input_promotion_plan(std::string_view op, const std::vector<DType>& dtypes,
                                              Device device);
std::vector<DType> eager_input_promotion_plan(std::string_view op,
                                              const std::vector<DType>& dtypes);
// The dtype a tensor of `tensor` takes in `op` with a weak scalar of kind `scalar` (docs/dtypes.md,
// weak scalars): the tensor's dtype when the scalar's kind is not higher, else the device default
// of the scalar's kind (complex scalars on a float tensor keep its precision), then op policy.
DType eager_scalar_promotion(std::string_view op, DType tensor, Scalar::Kind scalar, Device device);

// A tensor seen by the eager runtime: a value plus, when it requires grad, its place on the tape.
// Copies share the same node (same gradient).
class EagerTensor {
 public:
  EagerTensor() = default;

  const Tensor& value() const;
  DType dtype() const { return value().dtype(); }
  const Shape& shape() const { return value().shape(); }
  Device device() const { return value().device(); }
  bool defined() const { return node_ != nullptr; }
  // True for variables and for results recorded from them.
  bool requires_grad() const;
  bool is_leaf() const;

  // Reverse mode from this one-element, real-valued result: accumulates d(this)/d(leaf) into
  // every variable it depends on. Without an engine it uses the active session's.
  void backward() const;
  void backward(Engine& engine) const;
  // A variable's accumulated gradient in its own dtype and shape; zeros when nothing flowed in
  // yet. Throws InvalidArgument for a non-leaf or a constant.
  Tensor grad() const;
  bool has_grad() const;
  // Forgets this variable's accumulated gradient.
  void clear_grad() const;
  // The same value as a constant, cut off from the tape.
  EagerTensor detach() const;

  // ---- the direct op set as methods, run on the thread's active session -------------------
  // x.exp(), a.add(b), a.matmul(b), x.sum({0}), ... mean s.exp(x), s.add(a, b), ... with s the
  // session of the enclosing with_eager_session (InvalidArgument outside one).
  using Loc = SourceLocation;
  using Axes = std::vector<std::int64_t>;
#define TENSORA_EAGER_TENSOR_BINARY(name, ...)                                     \
  EagerTensor name(const EagerTensor& other, Loc where = Loc::current()) const;    \
  EagerTensor name(Scalar other, Loc where = Loc::current()) const;
#define TENSORA_EAGER_TENSOR_UNARY(name, ...) EagerTensor name(Loc where = Loc::current()) const;
#define TENSORA_EAGER_TENSOR_REDUCTION_Axes(name)                                                   \
  EagerTensor name(Axes axes, ReduceOptions options = {}, Loc where = Loc::current()) const;        \
  EagerTensor name(Loc where = Loc::current()) const;
#define TENSORA_EAGER_TENSOR_REDUCTION_Axis(name) EagerTensor name(std::int64_t axis, Loc where = Loc::current()) const;
#define TENSORA_EAGER_TENSOR_REDUCTION_Scan(name) EagerTensor name(std::int64_t axis, Loc where = Loc::current()) const;
#define TENSORA_EAGER_TENSOR_REDUCTION(name, Enum, accepts, result, ad, form, ...) \
  TENSORA_EAGER_TENSOR_REDUCTION_##form(name)
  TENSORA_BINARY_OPS(TENSORA_EAGER_TENSOR_BINARY)
  TENSORA_UNARY_OPS(TENSORA_EAGER_TENSOR_UNARY)
  TENSORA_REDUCTIONS(TENSORA_EAGER_TENSOR_REDUCTION)
#define TENSORA_EAGER_TENSOR_AXIS_OP(name, ...) TENSORA_EAGER_TENSOR_REDUCTION_Scan(name)
  TENSORA_AXIS_OPS(TENSORA_EAGER_TENSOR_AXIS_OP)
#undef TENSORA_EAGER_TENSOR_AXIS_OP
#undef TENSORA_EAGER_TENSOR_BINARY
#undef TENSORA_EAGER_TENSOR_UNARY
#undef TENSORA_EAGER_TENSOR_REDUCTION
#undef TENSORA_EAGER_TENSOR_REDUCTION_Axes
#undef TENSORA_EAGER_TENSOR_REDUCTION_Axis
#undef TENSORA_EAGER_TENSOR_REDUCTION_Scan
  EagerTensor clamp(Scalar lo, Scalar hi, Loc where = Loc::current()) const;
  EagerTensor clamp(const EagerTensor& lo, const EagerTensor& hi, Loc where = Loc::current()) const;
  EagerTensor convert(DType dtype, Loc where = Loc::current()) const;
  EagerTensor cast(DType dtype, Loc where = Loc::current()) const;
  EagerTensor matmul(const EagerTensor& rhs, Loc where = Loc::current()) const;
  EagerTensor dot_general(const EagerTensor& rhs, DotGeneralConfig config, Loc where = Loc::current()) const;
  EagerTensor reshape(Shape shape, Loc where = Loc::current()) const;
  EagerTensor permute(Axes axes, Loc where = Loc::current()) const;
  EagerTensor transpose(Loc where = Loc::current()) const;
  EagerTensor transpose(std::int64_t a, std::int64_t b, Loc where = Loc::current()) const;
  EagerTensor broadcast_to(Shape shape, Loc where = Loc::current()) const;
  EagerTensor expand(Shape shape, Loc where = Loc::current()) const;
  std::vector<EagerTensor> split(std::vector<std::int64_t> sizes, std::int64_t axis, Loc where = Loc::current()) const;
  EagerTensor slice(std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                    std::int64_t step = 1, Loc where = Loc::current()) const;
  EagerTensor squeeze(Axes axes, Loc where = Loc::current()) const;
  EagerTensor unsqueeze(std::int64_t axis, Loc where = Loc::current()) const;
  EagerTensor reverse(Axes axes, Loc where = Loc::current()) const;
  EagerTensor pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options = {},
                  Loc where = Loc::current()) const;
  EagerTensor take_along_axis(const EagerTensor& indices, std::int64_t axis, Loc where = Loc::current()) const;
  EagerTensor gather(const EagerTensor& indices, std::int64_t axis, Loc where = Loc::current()) const;
  EagerTensor index_select(std::int64_t axis, const EagerTensor& indices, Loc where = Loc::current()) const;
  EagerTensor scatter_add(std::int64_t axis, const EagerTensor& indices, const EagerTensor& src,
                          Loc where = Loc::current()) const;
  EagerTensor tril(std::int64_t k = 0, Loc where = Loc::current()) const;
  EagerTensor triu(std::int64_t k = 0, Loc where = Loc::current()) const;
  EagerTensor diagonal(std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1,
                       Loc where = Loc::current()) const;
  EagerTensor embed_diag(std::int64_t offset = 0, Loc where = Loc::current()) const;

  // For the runtime's own layers.
  explicit EagerTensor(std::shared_ptr<eager_detail::Node> node) : node_(std::move(node)) {}
  const std::shared_ptr<eager_detail::Node>& node() const { return node_; }

 private:
  std::shared_ptr<eager_detail::Node> node_;
};

// Makes eager tensors and opens sessions. Keeps the variables it made so clear_grads() can reach
// them (weakly: a variable dropped by the user is gone).
class EagerRuntime {
 public:
  EagerRuntime();
  ~EagerRuntime();
  EagerRuntime(const EagerRuntime&) = delete;
  EagerRuntime& operator=(const EagerRuntime&) = delete;

  EagerTensor constant_from(const Tensor& value);
  // Requires grad; only float and complex tensors have gradients (InvalidArgument otherwise).
  EagerTensor variable_from(const Tensor& value);
  // Clears the gradients of every variable made here.
  void clear_grads();

  // Runs fn(session) with ops on `engine` and returns what fn returns. The session is also the
  // thread's active one (used by operators and backward()) until fn returns.
  template <class F>
  auto with_eager_session(Engine& engine, F&& fn);

 private:
  struct Variables;
  std::unique_ptr<Variables> variables_;
};

// Turns recording off on this thread while alive (results are constants).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};
bool grad_enabled();

// The ops of the direct set with promotion and recording. Every op checks that its inputs live on
// the engine's device (DeviceMismatch) before converting anything.
class EagerSession {
 public:
  using Loc = SourceLocation;
  using T = EagerTensor;
  using Axes = std::vector<std::int64_t>;

  explicit EagerSession(Engine& engine);
  ~EagerSession();
  EagerSession(const EagerSession&) = delete;
  EagerSession& operator=(const EagerSession&) = delete;

  Engine& engine() const { return engine_; }
  T constant(const Tensor& value) const;

  // ---- elementwise (NumPy broadcasting; scalars are weak on either side): one method per
  // catalog row (tensora/op_catalog.hpp) ------------------------------------------------------
#define TENSORA_EAGER_BINARY(name, ...)                        \
  T name(const T& a, const T& b, Loc where = Loc::current()); \
  T name(const T& a, Scalar b, Loc where = Loc::current());   \
  T name(Scalar a, const T& b, Loc where = Loc::current());
#define TENSORA_EAGER_UNARY(name, ...) T name(const T& x, Loc where = Loc::current());
  TENSORA_BINARY_OPS(TENSORA_EAGER_BINARY)
  TENSORA_UNARY_OPS(TENSORA_EAGER_UNARY)
#undef TENSORA_EAGER_BINARY
#undef TENSORA_EAGER_UNARY
  T clamp(const T& x, Scalar lo, Scalar hi, Loc where = Loc::current());
  // maximum(x, lo) then minimum(., hi), with their gradients.
  T clamp(const T& x, const T& lo, const T& hi, Loc where = Loc::current());
  T select(const T& pred, const T& a, const T& b, Loc where = Loc::current());
  T where(const T& pred, const T& a, const T& b, Loc loc = Loc::current()) {
    return select(pred, a, b, loc);
  }

  // ---- dtype changes (recorded: gradients flow back in the input's dtype) -----------------
  T convert(const T& x, DType dtype, Loc where = Loc::current());
  T cast(const T& x, DType dtype, Loc where = Loc::current());

  // ---- reductions (no axes: every axis), arg-reductions (not differentiable) and scans -------
#define TENSORA_EAGER_REDUCTION_Axes(name)                                             \
  T name(const T& x, Axes axes, ReduceOptions options = {}, Loc where = Loc::current()); \
  T name(const T& x, Loc where = Loc::current());
#define TENSORA_EAGER_REDUCTION_Axis(name) T name(const T& x, std::int64_t axis, Loc where = Loc::current());
#define TENSORA_EAGER_REDUCTION_Scan(name) T name(const T& x, std::int64_t axis, Loc where = Loc::current());
#define TENSORA_EAGER_REDUCTION(name, Enum, accepts, result, ad, form, ...) TENSORA_EAGER_REDUCTION_##form(name)
  TENSORA_REDUCTIONS(TENSORA_EAGER_REDUCTION)
#undef TENSORA_EAGER_REDUCTION
#undef TENSORA_EAGER_REDUCTION_Axes
#undef TENSORA_EAGER_REDUCTION_Axis
#undef TENSORA_EAGER_REDUCTION_Scan
  // softmax / log_softmax along `axis`.
#define TENSORA_EAGER_AXIS_OP(name, ...) T name(const T& x, std::int64_t axis, Loc where = Loc::current());
  TENSORA_AXIS_OPS(TENSORA_EAGER_AXIS_OP)
#undef TENSORA_EAGER_AXIS_OP

  // ---- contractions --------------------------------------------------------------------------
  T matmul(const T& a, const T& b, Loc where = Loc::current());
  T dot_general(const T& a, const T& b, DotGeneralConfig config, Loc where = Loc::current());
  T einsum(std::string_view subscripts, std::vector<T> operands, Loc where = Loc::current());

  // ---- structural ----------------------------------------------------------------------------
  T reshape(const T& x, Shape shape, Loc where = Loc::current());
  T permute(const T& x, Axes axes, Loc where = Loc::current());
  T transpose(const T& x, Loc where = Loc::current());
  T transpose(const T& x, std::int64_t a, std::int64_t b, Loc where = Loc::current());
  T broadcast_to(const T& x, Shape shape, Loc where = Loc::current());
  T expand(const T& x, Shape shape, Loc where = Loc::current()) {
    return broadcast_to(x, std::move(shape), where);
  }
  // Pieces along `axis` with the given extents (recorded slices).
  std::vector<T> split(const T& x, std::vector<std::int64_t> sizes, std::int64_t axis,
                       Loc where = Loc::current());
  T slice(const T& x, std::int64_t axis, std::optional<std::int64_t> start,
          std::optional<std::int64_t> stop, std::int64_t step = 1, Loc where = Loc::current());
  T squeeze(const T& x, Axes axes, Loc where = Loc::current());
  T unsqueeze(const T& x, std::int64_t axis, Loc where = Loc::current());
  T reverse(const T& x, Axes axes, Loc where = Loc::current());
  // Constant mode is differentiable; Edge/Reflect results are recorded only without grad.
  T pad(const T& x, std::vector<std::pair<std::int64_t, std::int64_t>> widths,
        PadOptions options = {}, Loc where = Loc::current());
  T concat(std::vector<T> xs, std::int64_t axis, Loc where = Loc::current());
  T stack(std::vector<T> xs, std::int64_t axis, Loc where = Loc::current());
  T take_along_axis(const T& x, const T& indices, std::int64_t axis, Loc where = Loc::current());
  T gather(const T& x, const T& indices, std::int64_t axis, Loc where = Loc::current()) {
    return take_along_axis(x, indices, axis, where);
  }
  T index_select(const T& x, std::int64_t axis, const T& indices, Loc where = Loc::current());
  T scatter_add(const T& x, std::int64_t axis, const T& indices, const T& src,
                Loc where = Loc::current());
  T tril(const T& x, std::int64_t k, Loc where = Loc::current());
  T triu(const T& x, std::int64_t k, Loc where = Loc::current());
  T diagonal(const T& x, std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1,
             Loc where = Loc::current());
  T embed_diag(const T& x, std::int64_t offset, Loc where = Loc::current());

  // The session active on this thread (with_eager_session), or null.
  static EagerSession* active();

 private:
  friend class EagerRuntime;
  Engine& engine_;
  EagerSession* previous_ = nullptr;
  bool installed_ = false;
  void install();
};

// Operators use the thread's active session (InvalidArgument outside one).
EagerTensor operator+(const EagerTensor& a, const EagerTensor& b);
EagerTensor operator-(const EagerTensor& a, const EagerTensor& b);
EagerTensor operator*(const EagerTensor& a, const EagerTensor& b);
EagerTensor operator/(const EagerTensor& a, const EagerTensor& b);
EagerTensor operator+(const EagerTensor& a, Scalar b);
EagerTensor operator-(const EagerTensor& a, Scalar b);
EagerTensor operator*(const EagerTensor& a, Scalar b);
EagerTensor operator/(const EagerTensor& a, Scalar b);
EagerTensor operator+(Scalar a, const EagerTensor& b);
EagerTensor operator-(Scalar a, const EagerTensor& b);
EagerTensor operator*(Scalar a, const EagerTensor& b);
EagerTensor operator/(Scalar a, const EagerTensor& b);
EagerTensor operator-(const EagerTensor& x);

// ---- functional forms ------------------------------------------------------------------------
// A function of eager tensors: called with fresh variables made from the primals.
using EagerFunction =
    std::function<std::vector<EagerTensor>(EagerSession&, const std::vector<EagerTensor>&)>;

struct VjpResult {
  std::vector<Tensor> outputs;
  std::vector<Tensor> cotangents;  // one per primal, in the primal's dtype and shape
};
struct JvpResult {
  std::vector<Tensor> outputs;
  std::vector<Tensor> tangents;  // one per output
};

// Pulls `cotangents` (one per output of f, output's dtype and shape) back to the primals. Leaves
// that f closes over are not touched (their grad() does not change).
VjpResult vjp(EagerSession& s, const EagerFunction& f, const std::vector<Tensor>& primals,
              const std::vector<Tensor>& cotangents);
// Pushes `tangents` (one per primal) forward through f with the JVP rules.
JvpResult jvp(EagerSession& s, const EagerFunction& f, const std::vector<Tensor>& primals,
              const std::vector<Tensor>& tangents);
// The gradient function of a function whose first output is a one-element real value.
std::function<std::vector<Tensor>(EagerSession&, const std::vector<Tensor>&)> grad(EagerFunction f);

// ---- template definitions ---------------------------------------------------------------------
template <class F>
auto EagerRuntime::with_eager_session(Engine& engine, F&& fn) {
  EagerSession session(engine);
  session.install();
  return std::forward<F>(fn)(session);
}

}  // namespace tensora
