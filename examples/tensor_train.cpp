// Tensor-train (TT-SVD) compression of a smooth function sampled on 2^20 points: the samples
// are read as a 2 x 2 x ... x 2 tensor (20 axes, the first fastest) and split into 20 cores by
// truncated SVDs and reshapes. Prints the ranks, the discarded weight and the reconstruction
// error; differentiates the compressed function's mean with respect to one core in eager mode
// (the gradient flows through the cores' contraction) and checks one entry against a finite
// difference; then differentiates through the truncated SVDs themselves: the samples depend on
// a parameter t, and d mean(TT-SVD(f_t)) / dt is checked against a finite difference in t.
#include <cmath>
#include <cstdio>
#include <vector>

#include "tensora/tensora.hpp"

namespace ta = tensora;
namespace la = tensora::linalg;

namespace {

constexpr int kAxes = 20;

double f(double x) { return std::sin(12 * x) * std::exp(-x) + 1 / (1 + 4 * x * x); }

// The cores of a TT-SVD of `data` (2^kAxes samples), keeping singular values above 1e-10 of the
// largest, over any front door whose svd takes SvdOptions: the direct one, or eager with `svd`
// recorded on the tape.
template <class T, class Svd, class Scale>
std::vector<T> tt_svd(const T& data, Svd svd, Scale scale_rows, std::vector<std::int64_t>* ranks, double* discarded) {
  std::vector<T> cores;
  T rest = data.reshape({1, data.shape()[0]});
  std::int64_t rank = 1;
  for (int k = 0; k + 1 < kAxes; ++k) {
    const std::int64_t cols = rest.shape()[0] * rest.shape()[1] / (rank * 2);
    auto r = svd(rest.reshape({rank * 2, cols}), la::SvdOptions{.cutoff = 1e-10});
    if (discarded) *discarded += r.discarded_weight_value();
    const std::int64_t kept = r.s.shape()[0];
    cores.push_back(r.u.reshape({rank, 2, kept}));
    rest = scale_rows(r.vh, r.s.reshape({kept, 1}));  // diag(s) vh
    rank = kept;
    if (ranks) ranks->push_back(rank);
  }
  cores.push_back(rest.reshape({rank, 2, 1}));
  return cores;
}

// la::svd's result with the discarded weight read as a number, for tt_svd.
template <class T>
struct Factors {
  T u, s, vh;
  double weight;
  double discarded_weight_value() const { return weight; }
};

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

  // TT-SVD: split off one axis at a time.
  std::vector<std::int64_t> ranks;
  double discarded = 0;
  const std::vector<ta::Tensor> cores = tt_svd(
      data,
      [&](const ta::Tensor& m, const la::SvdOptions& o) {
        la::SVD r = la::svd(m, o, e);
        return Factors<ta::Tensor>{r.u, r.s, r.vh, r.discarded_weight.sum(e).item<double>()};
      },
      [&](const ta::Tensor& vh, const ta::Tensor& s) { return vh.mul(s, e); }, &ranks, &discarded);
  std::printf("ranks:");
  for (auto r : ranks) std::printf(" %lld", static_cast<long long>(r));
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

  // Through the SVDs: f_t(x) = sin(12 x) exp(-t x) + 1 / (1 + 4 x^2), t = 1 above. The eager
  // svd records each truncated factorization, so d mean(TT-SVD(f_t)) / dt flows through all 19.
  std::vector<double> grid(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) grid[static_cast<std::size_t>(i)] = static_cast<double>(i) / n;
  const ta::Tensor x = ta::Tensor::from_vec_col_major({n}, grid);
  auto tt_mean = [&](ta::EagerSession& s, const ta::EagerTensor& t) {
    const ta::EagerTensor xs = s.constant(x);
    const ta::EagerTensor samples = s.add(s.mul(s.sin(s.mul(xs, 12.0)), s.exp(s.neg(s.mul(xs, t)))),
                                          s.reciprocal(s.add(s.mul(s.mul(xs, xs), 4.0), 1.0)));
    const auto tt = tt_svd(
        samples,
        [](const ta::EagerTensor& m, const la::SvdOptions& o) {
          auto r = la::svd(m, o);
          return Factors<ta::EagerTensor>{r.u, r.s, r.vh, 0.0};
        },
        [&](const ta::EagerTensor& vh, const ta::EagerTensor& sv) { return s.mul(vh, sv); }, nullptr, nullptr);
    EagerOps ops{s};
    return s.mean(contract(ops, tt));
  };
  ta::EagerRuntime rt2;
  rt2.with_eager_session(e, [&](ta::EagerSession& s) {
    const ta::EagerTensor t = rt2.variable_from(ta::Tensor::full({}, 1.0, {ta::Device::cpu(), ta::DType::F64}));
    const ta::EagerTensor mean = tt_mean(s, t);
    mean.backward();
    const double h = 1e-5;
    auto at = [&](double value) {
      ta::NoGradGuard guard;
      return tt_mean(s, s.constant(ta::Tensor::full({}, value, {ta::Device::cpu(), ta::DType::F64}))).value().item<double>();
    };
    std::printf("through the truncated SVDs: d mean / dt = %.9e (finite difference %.9e)\n", t.grad().item<double>(),
                (at(1 + h) - at(1 - h)) / (2 * h));
  });
  return 0;
}
