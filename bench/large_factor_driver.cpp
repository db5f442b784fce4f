// Stand-alone driver for docs/linalg.md, "Threads": one large lu_factor, cholesky, qr, eigvalsh
// and eigh through tensora on the serial engine and on two threads, next to the bare LAPACK calls
// (getrf, potrf, geqrf + orgqr, syevd 'N' and 'V') of the OpenBLAS tensora loads, best of 9 calls each, interleaved. The tensora
// times include what the bare calls skip (the copy into a dense buffer, the finiteness scan,
// zeroing a triangle, gauging q and r).
//
//   g++ -std=c++20 -O2 -I include bench/large_factor_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -lopenblas -o /tmp/large_factor
//   OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 /tmp/large_factor 1024    # or any n; then `eig`: the eigen rows alone
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tensora/linalg.hpp"
#include "tensora/tensora.hpp"

extern "C" {
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void dpotrf_(const char*, const int*, double*, const int*, int*, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*, std::size_t, std::size_t);
void openblas_set_num_threads(int);
}

namespace ta = tensora;
namespace la = tensora::linalg;

namespace {

template <class F>
double ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  openblas_set_num_threads(1);
  auto serial = ta::CpuEngine::serial();
  auto two = ta::CpuEngine::parallel(2);
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  const ta::Tensor g = ta::Tensor::uniform({n, n}, 1, f64);
  const ta::Tensor shift = ta::Tensor::eye(n, f64).mul(ta::Scalar(static_cast<double>(n)), serial);
  const ta::Tensor spd = g.matmul(g.transpose(), serial).add(shift, serial);
  const std::vector<double> gv = g.to_vec<double>(), sv = spd.to_vec<double>();
  std::vector<int> piv(static_cast<std::size_t>(n));
  const std::size_t nn = static_cast<std::size_t>(n);
  std::vector<double> tau(nn), work(std::max<std::size_t>(64 * nn, 1 + 6 * nn + 2 * nn * nn)), w(nn);
  std::vector<int> iwork(3 + 5 * nn);
  const int lwork = static_cast<int>(work.size()), liwork = static_cast<int>(iwork.size());
  constexpr int kRows = 5;
  double best[kRows][3];
  for (auto& row : best) std::fill(row, row + 3, 1e30);
  const bool eigen_only = argc > 2 && std::string(argv[2]) == "eig";  // the eigen rows alone
  for (int r = 0; r < 9; ++r) {
    int info = 0;
    std::vector<double> a;
    if (!eigen_only) {
    best[0][0] = std::min(best[0][0], ms([&] { la::lu_factor(g, serial); }));
    best[0][1] = std::min(best[0][1], ms([&] { la::lu_factor(g, two); }));
    a = gv;
    best[0][2] = std::min(best[0][2], ms([&] { dgetrf_(&n, &n, a.data(), &n, piv.data(), &info); }));
    best[1][0] = std::min(best[1][0], ms([&] { la::cholesky(spd, serial); }));
    best[1][1] = std::min(best[1][1], ms([&] { la::cholesky(spd, two); }));
    a = sv;
    best[1][2] = std::min(best[1][2], ms([&] { dpotrf_("L", &n, a.data(), &n, &info, 1); }));
    best[2][0] = std::min(best[2][0], ms([&] { la::qr(g, serial); }));
    best[2][1] = std::min(best[2][1], ms([&] { la::qr(g, two); }));
    a = gv;
    best[2][2] = std::min(best[2][2], ms([&] {
      dgeqrf_(&n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
      dorgqr_(&n, &n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
    }));
    }
    best[3][0] = std::min(best[3][0], ms([&] { la::eigvalsh(spd, serial); }));
    best[3][1] = std::min(best[3][1], ms([&] { la::eigvalsh(spd, two); }));
    a = sv;
    best[3][2] = std::min(best[3][2], ms([&] {
      dsyevd_("N", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    }));
    best[4][0] = std::min(best[4][0], ms([&] { la::eigh(spd, serial); }));
    best[4][1] = std::min(best[4][1], ms([&] { la::eigh(spd, two); }));
    a = sv;
    best[4][2] = std::min(best[4][2], ms([&] {
      dsyevd_("V", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    }));
  }
  const char* names[kRows] = {"lu_factor", "cholesky", "qr", "eigvalsh", "eigh"};
  for (int k = eigen_only ? 3 : 0; k < kRows; ++k)
    std::printf("n=%d %-9s  1 thread %8.2f ms  2 threads %8.2f ms  LAPACK %8.2f ms  "
                "1 thread / LAPACK %.3f  1 / 2 threads %.2f\n",
                n, names[k], best[k][0], best[k][1], best[k][2], best[k][0] / best[k][2], best[k][0] / best[k][1]);
  return 0;
}
