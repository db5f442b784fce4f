// Tensor-train (TT-SVD) compression of a smooth function sampled on 2^20 points: the samples
// are read as a 2 x 2 x ... x 2 tensor (20 axes, the first fastest) and split into 20 cores by
// truncated SVDs and reshapes. Prints the ranks, the discarded weight and the reconstruction
// error, then differentiates the compressed function's mean with respect to one core in eager
// mode (the gradient flows through the cores' contraction) and checks one entry against a
// finite difference.
#include <cmath>
#include <cstdio>
#include <vector>

#include "tensora/tensora.hpp"

namespace ta = tensora;
namespace la = tensora::linalg;

namespace {

constexpr int kAxes = 20;

double f(double x) { return std::sin(12 * x) * std::exp(-x) + 1 / (1 + 4 * x * x); }

// The contraction of the cores back to the 2^20 samples. core k is (r_{k-1}, 2, r_k); in
// column-major order the product's rows are (i_1, ..., i_k) with i_1 fastest, as the samples.
template <class Ops, class T>
T contract(Ops& ops, const std::vector<T>& cores) {
  const auto& first = cores[0].shape();  // (1, 2, r_1)
  T p = ops.reshape(cores[0], {first[1], first[2]});
  std::int64_t rows = first[1];
  for (std::size_t k = 1; k < cores.size(); ++k) {
    const auto& s = cores[k].shape();
    p = ops.reshape(ops.matmul(p, ops.reshape(cores[k], {s[0], s[1] * s[2]})), {rows * s[1], s[2]});
    rows *= s[1];
  }
  return ops.reshape(p, {rows});
}

struct DirectOps {
  ta::Engine& e;
  ta::Tensor reshape(const ta::Tensor& x, ta::Shape s) { return x.reshape(s); }
  ta::Tensor matmul(const ta::Tensor& a, const ta::Tensor& b) { return a.matmul(b, e); }
};
struct EagerOps {
  ta::EagerSession& s;
  ta::EagerTensor reshape(const ta::EagerTensor& x, ta::Shape shape) { return x.reshape(shape); }
  ta::EagerTensor matmul(const ta::EagerTensor& a, const ta::EagerTensor& b) { return s.matmul(a, b); }
};

}  // namespace

int main() {
  auto e = ta::CpuEngine::parallel(2);
  const std::int64_t n = std::int64_t{1} << kAxes;
  std::vector<double> samples(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) samples[static_cast<std::size_t>(i)] = f(static_cast<double>(i) / n);
  const ta::Tensor data = ta::Tensor::from_vec_col_major({n}, samples);

  // TT-SVD: split off one axis at a time, keeping singular values above 1e-10 of the largest.
  std::vector<ta::Tensor> cores;
  ta::Tensor rest = data.reshape({1, n});
  double discarded = 0;
  std::int64_t rank = 1;
  std::printf("ranks:");
  for (int k = 0; k + 1 < kAxes; ++k) {
    const std::int64_t cols = rest.numel() / (rank * 2);
    const la::SVD svd = la::svd(rest.reshape({rank * 2, cols}), la::SvdOptions{.cutoff = 1e-10}, e);
    discarded += svd.discarded_weight.item<double>();
    const std::int64_t kept = svd.s.shape()[0];
    cores.push_back(svd.u.reshape({rank, 2, kept}));
    rest = svd.vh.mul(svd.s.reshape({kept, 1}), e);  // diag(s) vh
    rank = kept;
    std::printf(" %lld", static_cast<long long>(rank));
  }
  cores.push_back(rest.reshape({rank, 2, 1}));
  std::printf("\n");

  std::int64_t parameters = 0;
  for (const auto& c : cores) parameters += c.numel();
  DirectOps direct{e};
  const ta::Tensor back = contract(direct, cores);
  const ta::Tensor diff = back.sub(data, e);
  const double error = std::sqrt(diff.mul(diff, e).sum(e).item<double>() / data.mul(data, e).sum(e).item<double>());
  std::printf("samples %lld, TT parameters %lld, discarded weight %.3e, relative reconstruction error %.3e\n",
              static_cast<long long>(n), static_cast<long long>(parameters), discarded, error);

  // d mean(reconstruction) / d core 10, in eager mode, and a finite difference of one entry.
  const std::size_t which = 10;
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](ta::EagerSession& s) {
    std::vector<ta::EagerTensor> vars;
    for (std::size_t k = 0; k < cores.size(); ++k)
      vars.push_back(k == which ? rt.variable_from(cores[k]) : rt.constant_from(cores[k]));
    EagerOps ops{s};
    const ta::EagerTensor mean = s.mean(contract(ops, vars));
    mean.backward();
    const ta::Tensor g = vars[which].grad();
    const double gnorm = std::sqrt(g.mul(g, e).sum(e).item<double>());

    const double h = 1e-6;
    std::vector<double> v = cores[which].to_vec<double>();
    auto mean_with = [&](double delta) {
      std::vector<double> w = v;
      w[0] += delta;
      std::vector<ta::Tensor> c = cores;
      c[which] = ta::Tensor::from_vec_col_major(cores[which].shape(), w);
      return contract(direct, c).mean(e).item<double>();
    };
    const double numeric = (mean_with(h) - mean_with(-h)) / (2 * h);
    std::printf("mean %.12f (exact samples: %.12f); |d mean / d core %zu| = %.6e, entry 0: %.9e (finite difference %.9e)\n",
                mean.value().item<double>(), data.mean(e).item<double>(), which, gnorm, g.to_vec<double>()[0], numeric);
  });
  return 0;
}
