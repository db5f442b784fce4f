// ReferenceEngine and the backend class that forwards each entry point to its family's file.
#include "reference/reference_backend.hpp"

namespace tensora {

namespace reference {

namespace {

class ReferenceBackend final : public backend::Backend {
 public:
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, backend::Output, Engine&) override {
    reference::binary(op, out, a, b);
  }
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, backend::Output, Engine&) override {
    reference::unary(op, out, in);
  }
  void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b, Engine&) override {
    reference::select(out, pred, a, b);
  }
  bool any_zero(const Tensor& t, Engine&) override { return reference::any_zero(t); }
  void copy(const Tensor& out, const Tensor& in, Engine&) override { reference::copy(out, in); }
  void cast(const Tensor& out, const Tensor& in, Engine&) override { reference::cast(out, in); }
  void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept, Engine&) override {
    reference::reduce(op, out, x, kept);
  }
  void arg_extreme(bool max, const Tensor& out, const Tensor& x, Engine&) override {
    reference::arg_extreme(max, out, x);
  }
  void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis, Engine&) override {
    reference::scan(product, out, x, axis);
  }
  void fill(const Tensor& out, const void* value, Engine&) override { reference::fill(out, value); }
  std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent, Engine&) override {
    return reference::find_out_of_range(indices, extent);
  }
  void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                  std::int64_t extent, Engine&) override {
    reference::take_along(out, src, idx, axis_stride, extent);
  }
  void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                   std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length, std::int64_t extent,
                   Engine&) override {
    reference::scatter_add(out, idx, src, out_stride, idx_stride, src_stride, length, extent);
  }
  void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower, Engine&) override {
    reference::triangle(out, in, k, lower);
  }
  void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const backend::ContractionDims& dims,
                   Engine&) override {
    reference::dot_general(out, lhs, rhs, dims);
  }
  void run_fused(const backend::FusedProgram& program, std::span<const Tensor> inputs, const Tensor& out,
                 Engine&) override {
    reference::run_fused(program, inputs, out);
  }
  void fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine&) override {
    reference::fft(spec, out, in);
  }
  linalg_detail::Status linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                               std::span<const Tensor> ins, Engine&) override {
    return reference::linalg(call, outs, ins);
  }
};

}  // namespace

backend::Backend& reference_backend() {
  static ReferenceBackend backend;
  return backend;
}

}  // namespace reference

ReferenceEngine::ReferenceEngine(Device device) : Engine(device, reference::reference_backend()) {}

void ReferenceEngine::parallel_for(std::int64_t n, std::int64_t grain,
                                   const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  for (std::int64_t b = 0; b < n; b += grain) body(b, std::min(n, b + grain));
}


}  // namespace tensora
