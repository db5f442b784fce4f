// Stand-alone driver for docs/linalg.md, "Threads": one large lu_factor, cholesky, qr, eigvalsh,
// eigh, svdvals and svd through tensora on the serial engine and on two threads, next to the bare
// LAPACK calls (getrf, potrf, geqrf + orgqr, syevd 'N' and 'V', gesdd 'N' and 'S'; zheevd for C128) of the OpenBLAS tensora
// loads, best of 9 calls each, interleaved. The tensora times include what the bare calls skip
// (the copy into a dense buffer, the finiteness scan, zeroing a triangle, gauging q and r or the
// eigenvectors).
//
//   g++ -std=c++20 -O2 -I include bench/large_factor_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -lopenblas -o /tmp/large_factor
//   OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 /tmp/large_factor 1024          # F64, every row; or any n
//   OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 /tmp/large_factor 1024 eig      # F64 eigvalsh and eigh
//   OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 /tmp/large_factor 1024 eig-c128 # the same in C128
//   OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512 /tmp/large_factor 1024 svd      # F64 svdvals and svd
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "tensora/linalg.hpp"
#include "tensora/tensora.hpp"

using cd = std::complex<double>;

extern "C" {
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void dpotrf_(const char*, const int*, double*, const int*, int*, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*, std::size_t, std::size_t);
void zheevd_(const char*, const char*, const int*, cd*, const int*, double*, cd*, const int*, double*, const int*,
             int*, const int*, int*, std::size_t, std::size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, std::size_t);
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

// One row: tensora on one and two threads, and the bare call (`prepare` restores its input
// outside the timing).
struct Row {
  const char* name;
  std::function<void(ta::Engine&)> tensora;
  std::function<void()> prepare, lapack;
  double best[3] = {1e30, 1e30, 1e30};
};

// A[i + j n] = uniform(-1, 1) + i uniform(-1, 1), made Hermitian: a + a^H.
std::vector<cd> hermitian(int n) {
  std::vector<cd> x(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  unsigned long long state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1p-53 * 2 - 1;
  };
  for (cd& v : x) {
    const double re = next();
    v = cd(re, next());
  }
  std::vector<cd> a(x.size());
  const auto at = [n](int r, int c) { return static_cast<std::size_t>(r) + static_cast<std::size_t>(c) * static_cast<std::size_t>(n); };
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < n; ++r) a[at(r, c)] = x[at(r, c)] + std::conj(x[at(c, r)]);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const std::string mode = argc > 2 ? argv[2] : "all";
  openblas_set_num_threads(1);
  auto serial = ta::CpuEngine::serial();
  auto two = ta::CpuEngine::parallel(2);
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  const ta::Tensor g = ta::Tensor::uniform({n, n}, 1, f64);
  const ta::Tensor shift = ta::Tensor::eye(n, f64).mul(ta::Scalar(static_cast<double>(n)), serial);
  const ta::Tensor spd = g.matmul(g.transpose(), serial).add(shift, serial);
  const std::vector<double> gv = g.to_vec<double>(), sv = spd.to_vec<double>();
  const std::vector<cd> hv = mode == "eig-c128" ? hermitian(n) : std::vector<cd>{};
  const ta::Tensor h = mode == "eig-c128" ? ta::Tensor::from_vec_col_major({n, n}, hv) : ta::Tensor();
  const std::size_t nn = static_cast<std::size_t>(n);
  std::vector<int> piv(nn);
  std::vector<double> a, tau(nn), work(std::max<std::size_t>(64 * nn, 1 + 6 * nn + 2 * nn * nn)), w(nn);  // enough for gesdd 'N' too
  std::vector<int> iwork(8 * nn);
  const int lwork = static_cast<int>(work.size()), liwork = static_cast<int>(iwork.size());
  // zheevd's workspaces, as queried (the documented minimum leaves unmtr unblocked).
  std::vector<cd> za, zwork;
  std::vector<double> zrwork;
  std::vector<int> ziwork;
  int zlwork = -1, zlrwork = -1, zliwork = -1, info = 0;
  if (mode == "eig-c128") {
    cd ws;
    double rs = 0;
    int is = 0;
    za = hv;
    zheevd_("V", "L", &n, za.data(), &n, w.data(), &ws, &zlwork, &rs, &zlrwork, &is, &zliwork, &info, 1, 1);
    zwork.resize(static_cast<std::size_t>(ws.real()) + 1);
    zrwork.resize(static_cast<std::size_t>(rs) + 1);
    ziwork.resize(static_cast<std::size_t>(is) + 1);
    zlwork = static_cast<int>(zwork.size());
    zlrwork = static_cast<int>(zrwork.size());
    zliwork = static_cast<int>(ziwork.size());
  }
  const auto zheevd = [&](const char* jobz) {
    zheevd_(jobz, "L", &n, za.data(), &n, w.data(), zwork.data(), &zlwork, zrwork.data(), &zlrwork, ziwork.data(),
            &zliwork, &info, 1, 1);
  };
  const auto dsyevd = [&](const char* jobz) {
    dsyevd_(jobz, "L", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  };
  std::vector<Row> rows;
  if (mode == "all") {
    rows.push_back({"lu_factor", [&](ta::Engine& e) { la::lu_factor(g, e); }, [&] { a = gv; },
                    [&] { dgetrf_(&n, &n, a.data(), &n, piv.data(), &info); }});
    rows.push_back({"cholesky", [&](ta::Engine& e) { la::cholesky(spd, e); }, [&] { a = sv; },
                    [&] { dpotrf_("L", &n, a.data(), &n, &info, 1); }});
    rows.push_back({"qr", [&](ta::Engine& e) { la::qr(g, e); }, [&] { a = gv; }, [&] {
                      dgeqrf_(&n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
                      dorgqr_(&n, &n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
                    }});
  }
  if (mode == "all" || mode == "eig") {
    rows.push_back({"eigvalsh", [&](ta::Engine& e) { la::eigvalsh(spd, e); }, [&] { a = sv; }, [&] { dsyevd("N"); }});
    rows.push_back({"eigh", [&](ta::Engine& e) { la::eigh(spd, e); }, [&] { a = sv; }, [&] { dsyevd("V"); }});
  }
  // gesdd 'S': u and vt, and its queried workspace.
  std::vector<double> su, svt, swork;
  int slwork = -1;
  if (mode == "all" || mode == "svd") {
    su.resize(nn * nn);
    svt.resize(nn * nn);
    double size = 0;
    a = gv;
    dgesdd_("S", &n, &n, a.data(), &n, w.data(), su.data(), &n, svt.data(), &n, &size, &slwork, iwork.data(), &info,
            1);
    swork.resize(static_cast<std::size_t>(size) + 1);
    slwork = static_cast<int>(swork.size());
  }
  if (mode == "all" || mode == "svd") {
    rows.push_back({"svdvals", [&](ta::Engine& e) { la::svdvals(g, e); }, [&] { a = gv; }, [&] {
                      double unused = 0;
                      const int one = 1;
                      dgesdd_("N", &n, &n, a.data(), &n, w.data(), &unused, &one, &unused, &one, work.data(), &lwork,
                              iwork.data(), &info, 1);
                    }});
    rows.push_back({"svd", [&](ta::Engine& e) { la::svd(g, e); }, [&] { a = gv; }, [&] {
                      dgesdd_("S", &n, &n, a.data(), &n, w.data(), su.data(), &n, svt.data(), &n, swork.data(),
                              &slwork, iwork.data(), &info, 1);
                    }});
  }
  if (mode == "eig-c128") {
    rows.push_back({"eigvalsh", [&](ta::Engine& e) { la::eigvalsh(h, e); }, [&] { za = hv; }, [&] { zheevd("N"); }});
    rows.push_back({"eigh", [&](ta::Engine& e) { la::eigh(h, e); }, [&] { za = hv; }, [&] { zheevd("V"); }});
  }
  for (int r = 0; r < 9; ++r)
    for (Row& row : rows) {
      row.best[0] = std::min(row.best[0], ms([&] { row.tensora(serial); }));
      row.best[1] = std::min(row.best[1], ms([&] { row.tensora(two); }));
      row.prepare();
      row.best[2] = std::min(row.best[2], ms(row.lapack));
    }
  const char* dtype = mode == "eig-c128" ? "C128" : "F64";
  for (const Row& row : rows)
    std::printf("%s n=%d %-9s  1 thread %8.2f ms  2 threads %8.2f ms  LAPACK %8.2f ms  "
                "1 thread / LAPACK %.3f  1 / 2 threads %.2f\n",
                dtype, n, row.name, row.best[0], row.best[1], row.best[2], row.best[0] / row.best[2],
                row.best[0] / row.best[1]);
  return 0;
}
