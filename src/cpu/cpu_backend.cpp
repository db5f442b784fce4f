// The backend interface implemented by the CPU kernels: each entry forwards to its family's
// kernel. Transposed inputs of elementwise ops go through the tiles of cpu/elementwise_loop.hpp
// whether the output is fresh or given, so `Output` needs no case here.
#include "cpu/cpu_backend.hpp"

#include "cpu/blas_provider.hpp"
#include "cpu/fft_driver.hpp"
#include "cpu/linalg_driver.hpp"
#include "cpu/lapack.hpp"
#include "cpu/fft_provider.hpp"
#include "cpu/gemm.hpp"
#include "cpu/kernels.hpp"
#include "cpu/reduce_kernels.hpp"
#include "cpu/structural_kernels.hpp"
#include "tensora/fft.hpp"
#include "tensora/linalg.hpp"

namespace tensora {

namespace cpu {

namespace {

class CpuBackend final : public backend::Backend {
 public:
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, backend::Output,
              Engine& engine) override {
    cpu::binary(op, out, a, b, engine);
  }
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, backend::Output, Engine& engine) override {
    cpu::unary(op, out, in, engine);
  }
  void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine) override {
    cpu::select(out, pred, a, b, engine);
  }
  bool any_zero(const Tensor& t, Engine& engine) override { return cpu::any_zero(t, engine); }

  void copy(const Tensor& out, const Tensor& in, Engine& engine) override { cpu::copy(out, in, engine); }
  void cast(const Tensor& out, const Tensor& in, Engine& engine) override { cpu::cast(out, in, engine); }

  void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept, Engine& engine) override {
    cpu::reduce(op, out, x, kept, engine);
  }
  void arg_extreme(bool max, const Tensor& out, const Tensor& x, Engine& engine) override {
    cpu::arg_extreme(max, out, x, engine);
  }
  void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis, Engine& engine) override {
    cpu::scan(product, out, x, axis, engine);
  }

  void fill(const Tensor& out, const void* value, Engine& engine) override { cpu::fill(out, value, engine); }
  std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent, Engine& engine) override {
    return cpu::find_out_of_range(indices, extent, engine);
  }
  void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                  std::int64_t extent, Engine& engine) override {
    cpu::take_along(out, src, idx, axis_stride, extent, engine);
  }
  void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                   std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length, std::int64_t extent,
                   Engine& engine) override {
    cpu::scatter_add(out, idx, src, out_stride, idx_stride, src_stride, length, extent, engine);
  }
  void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower, Engine& engine) override {
    cpu::triangle(out, in, k, lower, engine);
  }

  void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const backend::ContractionDims& dims,
                   Engine& engine) override {
    cpu::dot_general(out, lhs, rhs, dims, engine);
  }

  void run_fused(const backend::FusedProgram& program, std::span<const Tensor> inputs, const Tensor& out,
                 Engine& engine) override {
    cpu::run_fused(*this, program, inputs, out, engine);
  }

  void fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine& engine) override {
    cpu::run_fft(spec, out, in, engine);
  }
  linalg_detail::Status linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                               std::span<const Tensor> ins, Engine& engine) override {
    return cpu::run_linalg(call, outs, ins, engine);
  }
};

}  // namespace

backend::Backend& cpu_backend() {
  static CpuBackend backend;
  return backend;
}

}  // namespace cpu

std::string blas_backend() { return cpu::blas().name(); }
std::string fft_backend() { return cpu::fft::provider_name(); }
std::string lapack_backend() { return cpu::lapack::name(); }

}  // namespace tensora
