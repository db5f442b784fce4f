#include "cpu/linalg_driver.hpp"

#include <algorithm>
#include <climits>
#include <complex>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "backend/matrix_batch.hpp"
#include "core/checks.hpp"
#include "cpu/lapack.hpp"
#include "cpu/blocked_factor.hpp"
#include "cpu/scratch.hpp"
#include "cpu/simd.hpp"
#include "cpu/small_linalg.hpp"
#include "ops/det_product.hpp"
#include "ops/linalg_gauge.hpp"

namespace tensora::cpu {

namespace {

using linalg_detail::Call;
using linalg_detail::Failure;
using linalg_detail::Kind;
using linalg_detail::Status;
using linalg_detail::Trans;
using backend::MatrixBatch;

// Work per parallel task: about this many multiply-adds (a matrix's ~n^3).
constexpr std::int64_t kFlopsPerTask = 1 << 18;

// Whether all of p[0, count) are finite (a complex matrix as its 2 count reals), with the
// widest vectors the CPU has: a scalar test was an eighth of a 256 x 256 Cholesky.
template <class T>
bool all_finite(const T* p, std::int64_t count) {
  using R = lapack::Real<T>;
  const std::int64_t reals = count * static_cast<std::int64_t>(sizeof(T) / sizeof(R));
  const R* x = reinterpret_cast<const R*>(p);
  if constexpr (std::is_same_v<R, float>) return simd::all_finite_f32(x, reals);
  else return simd::all_finite_f64(x, reals);
}

char trans_char(Trans t) { return t == Trans::None ? 'N' : t == Trans::Transpose ? 'T' : 'C'; }

// p (n x n, column-major) = the identity.
template <class T>
void set_identity(T* p, std::int64_t n) {
  std::fill(p, p + n * n, T(0));
  for (std::int64_t i = 0; i < n; ++i) p[i + i * n] = T(1);
}

// One matrix of the batch: returns LAPACK's info, or -1 for a non-finite input. LU, Cholesky,
// QR and the solves with many right-hand sides take the engine's threads for one matrix
// (cpu/blocked_factor.hpp); inside a task of the batch's own split they run on its thread.
template <class T>
int solve_one(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t i,
              Engine& engine) {
  using R = lapack::Real<T>;
  const MatrixBatch a(ins[0]);
  const std::int64_t m = a.rows(), n = a.cols(), k = std::min(m, n);
  // The work matrix: where LAPACK's in-place result is the op's first result (cholesky,
  // lu_factor, and qr's q when q has a's shape: reduced with m >= n, or square, so that orgqr
  // works in place too) and that result is one dense column-major matrix, the result's own
  // memory, which saves a copy of the whole matrix back out; else scratch.
  const std::int64_t kq = call.vectors && call.complete ? m : k;
  const bool in_place = call.kind == Kind::Cholesky || call.kind == Kind::LuFactor ||
                        (call.kind == Kind::Qr && call.vectors && kq == n);
  T* const own = in_place ? MatrixBatch(outs[0]).dense<T>(i) : nullptr;
  std::optional<Scratch<T>> scratch;
  T* const buf = own != nullptr ? own : scratch.emplace(static_cast<std::size_t>(m * n)).data();
  a.gather(i, buf, m);
  if (linalg_detail::factorizes(call.kind) && !all_finite(buf, m * n)) return -1;
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  const int ld = std::max(1, im);
  switch (call.kind) {
    case Kind::Cholesky: {
      const int info = n == 0 ? 0 : potrf_on(engine, call.upper ? 'U' : 'L', in, buf, ld);
      for (std::int64_t c = 0; c < n; ++c) {  // the triangle LAPACK leaves untouched
        T* column = buf + c * n;
        if (call.upper) std::fill(column + c + 1, column + n, T(0));
        else std::fill(column, column + c, T(0));
      }
      if (own == nullptr) MatrixBatch(outs[0]).scatter(i, buf, n);
      return info;
    }
    case Kind::TriangularSolve:
    case Kind::LuSolve: {
      const Tensor& rhs = ins[call.kind == Kind::LuSolve ? 2 : 1];
      const MatrixBatch b(rhs);
      const std::int64_t r = b.cols();
      Scratch<T> x(static_cast<std::size_t>(n * r));
      b.gather(i, x.data(), n);
      int info = 0;
      if (n > 0 && r > 0) {
        if (call.kind == Kind::TriangularSolve) {
          info = trtrs_on(engine, call.upper ? 'U' : 'L', trans_char(call.trans), call.unit_diagonal ? 'U' : 'N', in,
                          static_cast<int>(r), buf, ld, x.data(), ld);
        } else {
          Scratch<int> piv(static_cast<std::size_t>(n));
          MatrixBatch(ins[1], 1).gather(i, piv.data(), n);
          info = getrs_on(engine, trans_char(call.trans), in, static_cast<int>(r), buf, ld, piv.data(), x.data(),
                          ld);
        }
      }
      MatrixBatch(outs[0]).scatter(i, x.data(), n);
      return info;
    }
    case Kind::Solve: {
      const MatrixBatch b(ins[1]);
      const std::int64_t r = b.cols();
      Scratch<T> x(static_cast<std::size_t>(n * r));
      b.gather(i, x.data(), n);
      Scratch<int> piv(static_cast<std::size_t>(n));
      const int info = n == 0 ? 0 : getrf_on(engine, in, in, buf, ld, piv.data());
      if (info != 0) return info;
      if (r > 0) getrs_on(engine, 'N', in, static_cast<int>(r), buf, ld, piv.data(), x.data(), ld);
      MatrixBatch(outs[0]).scatter(i, x.data(), n);
      return 0;
    }
    case Kind::LuFactor: {
      Scratch<int> piv(static_cast<std::size_t>(k));
      const int info = k == 0 ? 0 : getrf_on(engine, im, in, buf, ld, piv.data());
      if (own == nullptr) MatrixBatch(outs[0]).scatter(i, buf, m);
      MatrixBatch(outs[1], 1).scatter(i, piv.data(), k);
      return info;
    }
    case Kind::Det: {
      Scratch<int> piv(static_cast<std::size_t>(n));
      const int info = n == 0 ? 0 : getrf_on(engine, in, in, buf, ld, piv.data());
      DetProduct<T> det;
      for (std::int64_t c = 0; c < n; ++c) det.step(buf[c + c * n], piv[static_cast<std::size_t>(c)] != c + 1);
      const T value = det.value();
      MatrixBatch(outs[0], 1).scatter(i, &value, 1);
      return info;
    }
    case Kind::Qr: {
      Scratch<T> tau(static_cast<std::size_t>(k) + 1);
      if (k > 0) geqrf_on(engine, im, in, buf, ld, tau.data());
      // r (kq x n): straight into the result when it is one dense matrix, else through scratch.
      const MatrixBatch r_out(outs[call.vectors ? 1 : 0]);
      T* const r_own = r_out.dense<T>(i);
      std::optional<Scratch<T>> r_scratch;
      T* const r = r_own != nullptr ? r_own : r_scratch.emplace(static_cast<std::size_t>(kq * n)).data();
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t row = 0; row < kq; ++row) r[row + c * kq] = row <= c ? buf[row + c * m] : T(0);
      if (!call.vectors) {
        linalg_detail::gauge_qr<T>(nullptr, m, m, r, k, n, kq);
        if (r_own == nullptr) r_out.scatter(i, r, kq);
        return 0;
      }
      // q (m x kq): orgqr in buf itself when q has a's shape, else in a copy of its columns.
      T* q = buf;
      std::optional<Scratch<T>> q_copy;
      if (kq != n) {
        q = q_copy.emplace(static_cast<std::size_t>(m * kq)).data();
        std::fill(std::copy(buf, buf + m * std::min(n, kq), q), q + m * kq, T(0));
      }
      if (kq > 0) {
        if (k > 0) orgqr_on(engine, im, static_cast<int>(kq), ik, q, ld, tau.data());
        else set_identity(q, m);  // n == 0, complete: no reflectors
      }
      linalg_detail::gauge_qr(q, m, m, r, k, n, kq);
      if (q != own) MatrixBatch(outs[0]).scatter(i, q, m);
      if (r_own == nullptr) r_out.scatter(i, r, kq);
      return 0;
    }
    case Kind::Eigh: {
      Scratch<R> w(static_cast<std::size_t>(n));
      const int info = n == 0 ? 0 : heevd_on(engine, call.vectors ? 'V' : 'N', call.upper ? 'U' : 'L', in, buf, ld, w.data());
      MatrixBatch(outs[0], 1).scatter(i, w.data(), n);
      if (call.vectors) {
        linalg_detail::gauge_columns(buf, n, n, n);
        MatrixBatch(outs[1]).scatter(i, buf, n);
      }
      return info;
    }
    case Kind::Svd: {
      const std::int64_t ku = call.complete ? m : k, kv = call.complete ? n : k;
      Scratch<R> s(static_cast<std::size_t>(k));
      Scratch<T> u(call.vectors ? static_cast<std::size_t>(m * ku) : 1), vt(call.vectors ? static_cast<std::size_t>(kv * n) : 1);
      int info = 0;
      if (k > 0) {
        const char jobz = !call.vectors ? 'N' : call.complete ? 'A' : 'S';
        info = gesdd_on(engine, jobz, im, in, buf, ld, s.data(), u.data(), ld, vt.data(),
                        std::max(1, static_cast<int>(kv)));
      } else if (call.vectors) {  // an empty matrix: complete factors are identities
        if (ku > 0) set_identity(u.data(), m);
        if (kv > 0) set_identity(vt.data(), n);
      }
      if (!call.vectors) {
        MatrixBatch(outs[0], 1).scatter(i, s.data(), k);
        return info;
      }
      linalg_detail::gauge_columns(u.data(), m, k, m, vt.data(), n, kv, k);
      if (ku > k) linalg_detail::gauge_columns(u.data() + k * m, m, ku - k, m);
      if (kv > k) linalg_detail::gauge_rows(vt.data(), k, kv, n, kv);
      MatrixBatch(outs[0]).scatter(i, u.data(), m);
      MatrixBatch(outs[1], 1).scatter(i, s.data(), k);
      MatrixBatch(outs[2]).scatter(i, vt.data(), kv);
      return info;
    }
    case Kind::Eig: {
      using C = std::complex<R>;
      Scratch<C> w(static_cast<std::size_t>(n)), v(call.vectors ? static_cast<std::size_t>(n * n) : 1);
      const int info = n == 0 ? 0 : lapack::geev(call.vectors ? 'V' : 'N', in, buf, ld, w.data(), v.data(), ld);
      MatrixBatch(outs[0], 1).scatter(i, w.data(), n);
      if (call.vectors) {
        linalg_detail::gauge_columns(v.data(), n, n, n);
        MatrixBatch(outs[1]).scatter(i, v.data(), n);
      }
      return info;
    }
  }
  return 0;
}

// Keeps the failure of the lowest batch index.
void keep_first(Status& first, const Status& s, std::mutex& mutex) {
  if (!s) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!first || s->batch < first->batch) first = s;
}

template <class T>
Status run(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, Engine& engine) {
  const MatrixBatch a(ins[0]);
  const std::int64_t m = a.rows(), n = a.cols(), count = a.count();
  const std::int64_t work = std::max<std::int64_t>(1, m * n * std::max(m, n));
  std::mutex mutex;
  Status first;
  if (small_linalg::handles(call, ins[0].dtype(), m, n)) {
    // Groups of small matrices; a task takes whole groups, so every split groups alike.
    const std::int64_t group = small_linalg::kGroup, groups = (count + group - 1) / group;
    engine.parallel_for(groups, std::max<std::int64_t>(1, kFlopsPerTask / (work * group)),
                        [&](std::int64_t begin, std::int64_t end) {
                          keep_first(first, small_linalg::run(call, outs, ins, begin * group, std::min(end * group, count)),
                                     mutex);
                        });
    return first;
  }
  engine.parallel_for(count, std::max<std::int64_t>(1, kFlopsPerTask / work), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const int info = solve_one<T>(call, outs, ins, i, engine);
      if (info == 0) continue;
      // info < 0 from LAPACK is an argument this driver got wrong, never the user's input.
      keep_first(first, Failure{i, info > 0 ? info : 0, info == -1}, mutex);
    }
  });
  return first;
}

}  // namespace

Status run_linalg(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, Engine& engine) {
  if (!lapack::available())
    throw Error(ErrorKind::LinAlgError, "linalg",
                "no LAPACK library could be loaded (" + lapack::name() +
                    "); install one: apt-get install libopenblas0-pthread (or liblapack3)");
  for (const Tensor* t : {&ins[0], ins.size() > 1 ? &ins.back() : &ins[0]})
    for (std::int64_t e : t->shape())
      if (e > INT_MAX)
        check::fail_invalid("linalg", "a matrix extent of " + std::to_string(e) + " is beyond LAPACK's 32-bit indices",
                            "a", SourceLocation::current());
  switch (ins[0].dtype()) {
    case DType::F32: return run<float>(call, outs, ins, engine);
    case DType::F64: return run<double>(call, outs, ins, engine);
    case DType::C64: return run<std::complex<float>>(call, outs, ins, engine);
    case DType::C128: return run<std::complex<double>>(call, outs, ins, engine);
    default: check::fail_unsupported_dtype("linalg", ins[0].dtype(), "F32, F64, C64 or C128", SourceLocation::current());
  }
}

}  // namespace tensora::cpu
