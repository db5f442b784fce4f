// Linear algebra side by side: tensora, LibTorch's torch::linalg and LAPACK called directly (the
// library tensora loads, through the same typed wrappers, one call per matrix on one thread).
// bench/numpy_linalg.py runs this binary, times numpy.linalg on the same cases and prints
// docs/BENCHMARKS.md's table. F64 throughout; every library gets its own natural layout
// (tensora column-major with the batch fastest, torch row-major stacks).
//
// Rows: BM_Linalg/<lib>/<op>/<case>/threads:<n>
//   op    solve (one right-hand side vector) cholesky qr (q and r) svd (values: svdvals) eigh
//         (values: eigvalsh) inv det matmul
//   case  256, 1024 (one n x n matrix) | 100000x3 (100000 matrices of 3 x 3) | 10000x8
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "cpu/lapack.hpp"
#include "tensora/linalg.hpp"

namespace {

namespace ta = tensora;
namespace la = tensora::linalg;
namespace lapack = tensora::cpu::lapack;

enum class Op { Solve, Cholesky, Qr, Svd, Eigh, Inv, Det, Matmul };
constexpr const char* kOpNames[] = {"solve", "cholesky", "qr", "svd", "eigh", "inv", "det", "matmul"};

struct Case {
  std::int64_t batch, n;  // batch 0: one matrix
  std::string name() const { return batch == 0 ? std::to_string(n) : std::to_string(batch) + "x" + std::to_string(n); }
};

// The matrix an op needs, n I + uniform(-1, 1) (well conditioned), symmetrized for cholesky
// (then x x^T + n I) and eigh: tensora's column-major [batch, n, n].
ta::Tensor input(const Case& c, Op op) {
  ta::Engine& e = bench::engine(1);
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  const ta::Shape shape = c.batch == 0 ? ta::Shape{c.n, c.n} : ta::Shape{c.batch, c.n, c.n};
  const ta::Tensor x = ta::Tensor::uniform(shape, 7, f64, -1, 1);
  const ta::Tensor eye = ta::Tensor::eye(c.n, f64).mul(ta::Scalar(static_cast<double>(c.n)), e);
  if (op == Op::Cholesky) return x.matmul(x.transpose(-2, -1), e).add(eye, e);
  if (op == Op::Eigh) return x.add(x.transpose(-2, -1), e);
  return x.add(eye, e);
}

ta::Tensor rhs(const Case& c) {
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  return ta::Tensor::uniform(c.batch == 0 ? ta::Shape{c.n} : ta::Shape{c.batch, c.n}, 8, f64, -1, 1);
}

void tensora_row(benchmark::State& state, const Case& c, Op op, int threads) {
  const ta::Tensor a = input(c, op), b = rhs(c);
  ta::Engine& e = bench::engine(threads);
  for (auto _ : state) {
    ta::Tensor r;
    switch (op) {
      case Op::Solve: r = la::solve(a, b, e); break;
      case Op::Cholesky: r = la::cholesky(a, e); break;
      case Op::Qr: r = la::qr(a, e).r; break;
      case Op::Svd: r = la::svdvals(a, e); break;
      case Op::Eigh: r = la::eigvalsh(a, e); break;
      case Op::Inv: r = la::inv(a, e); break;
      case Op::Det: r = la::det(a, e); break;
      case Op::Matmul: r = a.matmul(a, e); break;
    }
    benchmark::DoNotOptimize(r);
  }
}

// LAPACK directly: per matrix, copy it to a dense column-major buffer (the routine overwrites
// it) and make the driver call NumPy and PyTorch make.
void lapack_row(benchmark::State& state, const Case& c, Op op) {
  if (!lapack::available()) return state.SkipWithError("no LAPACK");
  const std::int64_t count = std::max<std::int64_t>(c.batch, 1), n = c.n;
  const int in = static_cast<int>(n);
  // Matrix by matrix, each dense (one after another): what a loop over a stack sees.
  const ta::Tensor a = input(c, op);
  std::vector<double> mats(static_cast<std::size_t>(count * n * n));
  const std::vector<double> col = a.to_vec<double>();  // column-major [batch, n, n]
  for (std::int64_t k = 0; k < count; ++k)
    for (std::int64_t j = 0; j < n * n; ++j) mats[static_cast<std::size_t>(k * n * n + j)] = col[static_cast<std::size_t>(k + j * count)];
  std::vector<double> work(static_cast<std::size_t>(n * n)), u(static_cast<std::size_t>(n * n)),
      vt(static_cast<std::size_t>(n * n)), w(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n), 1.0);
  std::vector<int> piv(static_cast<std::size_t>(n));
  for (auto _ : state) {
    for (std::int64_t k = 0; k < count; ++k) {
      std::memcpy(work.data(), mats.data() + k * n * n, sizeof(double) * static_cast<std::size_t>(n * n));
      switch (op) {
        case Op::Solve:
          lapack::getrf(in, in, work.data(), in, piv.data());
          lapack::getrs('N', in, 1, work.data(), in, piv.data(), x.data(), in);
          break;
        case Op::Cholesky: lapack::potrf('L', in, work.data(), in); break;
        case Op::Qr:
          lapack::geqrf(in, in, work.data(), in, w.data());
          lapack::orgqr(in, in, in, work.data(), in, w.data());
          break;
        case Op::Svd: lapack::gesdd('N', in, in, work.data(), in, w.data(), u.data(), in, vt.data(), in); break;
        case Op::Eigh: lapack::heevd('N', 'L', in, work.data(), in, w.data()); break;
        case Op::Det:
        case Op::Inv:
        case Op::Matmul: break;  // no rows: LAPACK has no driver of its own for them
      }
      benchmark::DoNotOptimize(work.data());
    }
  }
}

#if TENSORA_BENCH_HAVE_TORCH
void torch_row(benchmark::State& state, const Case& c, Op op, int threads) {
  bench::torch_threads(threads);
  // Row-major contiguous stacks: torch's own layout (the same values, transposed per matrix,
  // which for the symmetric inputs of cholesky and eigh is the same matrix).
  const ta::Tensor a = input(c, op), b = rhs(c);
  std::vector<std::int64_t> sizes = c.batch == 0 ? std::vector<std::int64_t>{c.n, c.n}
                                                 : std::vector<std::int64_t>{c.batch, c.n, c.n};
  const auto opt = torch::TensorOptions().dtype(torch::kFloat64);
  std::vector<std::int64_t> rev(a.shape().rbegin(), a.shape().rend());
  const torch::Tensor t = torch::from_blob(const_cast<void*>(a.element_ptr()), rev, opt).permute(
                              c.batch == 0 ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{2, 1, 0})
                              .contiguous();
  std::vector<std::int64_t> brev(b.shape().rbegin(), b.shape().rend());
  torch::Tensor tb = torch::from_blob(const_cast<void*>(b.element_ptr()), brev, opt);
  if (c.batch != 0) tb = tb.t().contiguous();
  for (auto _ : state) {
    torch::Tensor r;
    switch (op) {
      case Op::Solve: r = torch::linalg::solve(t, tb, true); break;
      case Op::Cholesky: r = torch::linalg::cholesky(t); break;
      case Op::Qr: r = std::get<1>(torch::linalg::qr(t)); break;
      case Op::Svd: r = torch::linalg::svdvals(t, c10::nullopt); break;
      case Op::Eigh: r = torch::linalg::eigvalsh(t, "L"); break;
      case Op::Inv: r = torch::linalg::inv(t); break;
      case Op::Det: r = torch::linalg::det(t); break;
      case Op::Matmul: r = torch::matmul(t, t); break;
    }
    benchmark::DoNotOptimize(r);
  }
}
#endif

const bool registered = [] {
  benchmark::AddCustomContext("tensora_lapack", ta::lapack_backend());
  struct Row {
    Op op;
    Case c;
  };
  std::vector<Row> rows;
  for (Op op : {Op::Solve, Op::Cholesky, Op::Qr, Op::Svd, Op::Eigh})
    for (std::int64_t n : {256, 1024}) rows.push_back({op, {0, n}});
  for (Op op : {Op::Inv, Op::Solve, Op::Det, Op::Cholesky, Op::Eigh})
    for (Case c : {Case{100000, 3}, Case{10000, 8}}) rows.push_back({op, c});
  rows.push_back({Op::Matmul, {10000, 8}});
  for (const Row& r : rows) {
    const std::string mid = std::string("/") + kOpNames[static_cast<int>(r.op)] + "/" + r.c.name();
    for (const int t : {1, 2}) {
      const std::string suffix = mid + "/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(("BM_Linalg/tensora" + suffix).c_str(), [r, t](benchmark::State& s) {
        tensora_row(s, r.c, r.op, t);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
#if TENSORA_BENCH_HAVE_TORCH
      benchmark::RegisterBenchmark(("BM_Linalg/torch" + suffix).c_str(), [r, t](benchmark::State& s) {
        torch_row(s, r.c, r.op, t);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
#endif
    }
    if (r.op != Op::Matmul && r.op != Op::Inv && r.op != Op::Det)
      benchmark::RegisterBenchmark(("BM_Linalg/lapack" + mid + "/threads:1").c_str(), [r](benchmark::State& s) {
        lapack_row(s, r.c, r.op);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
