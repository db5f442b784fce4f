// Stand-alone probe for issue 16's C128 rows (docs/BENCHMARKS.md, "Transposed inputs"): how
// fast can a transposing C128 op run if each 16-byte element is moved by one 128-bit load and
// one store, with no staging buffer? C128 `neg` of a 4096 x 4096 transposed view into a
// column-major result, in tiles of R x Q elements (4 x 4 element blocks down strips of 4
// columns), with streaming and with ordinary stores, next to the flat streamed pass in the same
// process. x86 with SSE2 only; not part of the library or its build:
//
//   g++ -std=c++20 -O2 -march=native bench/c128_transpose_probe.cpp -o /tmp/c128_probe && /tmp/c128_probe
//
// Prints the best of 5 runs of each in ms. On the Zen 5 VM (2026-12-06, a noisy evening, several
// runs): flat 14-23 ms; tiles with R = 8-16, Q = 512-4096 streamed 19-46 ms, with ordinary
// stores 41-100 ms; the library's staged tiles took 53-117 ms for the same op (the allocating
// C128 `neg` row) that day. The streamed stores are the gain, as for the F32/F64 tile kernels.
// The library's C128 tile kernels (src/cpu/complex_tile.cpp) came from this loop.
#include <emmintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr long kN = 4096;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// out[k] = -in[k] over the whole array: the floor.
void flat(const double* in, double* out) {
  const __m128d sign = _mm_set1_pd(-0.0);
  for (long k = 0; k < kN * kN; ++k) _mm_stream_pd(out + 2 * k, _mm_xor_pd(_mm_load_pd(in + 2 * k), sign));
  _mm_sfence();
}

// out(i, j) = -in(j, i): element (i, j) of the view is in[i * kN + j] (a crossed row per i),
// out's column j is contiguous. A 4 x 4 block reads one line of each of 4 crossed rows and
// writes one line of each of 4 output columns.
void tiled(const double* in, double* out, long rows, long cols, bool stream) {
  const __m128d sign = _mm_set1_pd(-0.0);
  for (long q0 = 0; q0 < kN; q0 += cols)
    for (long r0 = 0; r0 < kN; r0 += rows)
      for (long j0 = q0; j0 < q0 + cols; j0 += 4)
        for (long i = r0; i < r0 + rows; i += 4)
          for (long j = j0; j < j0 + 4; ++j) {
            __m128d v[4];
            for (long a = 0; a < 4; ++a) v[a] = _mm_xor_pd(_mm_load_pd(in + 2 * ((i + a) * kN + j)), sign);
            double* o = out + 2 * (j * kN + i);
            for (long a = 0; a < 4; ++a) {
              if (stream) _mm_stream_pd(o + 2 * a, v[a]);
              else _mm_store_pd(o + 2 * a, v[a]);
            }
          }
  _mm_sfence();
}

template <class F>
double best_ms(F f) {
  double best = 1e9;
  for (int r = 0; r < 5; ++r) {
    const double t = now();
    f();
    best = std::min(best, now() - t);
  }
  return best * 1e3;
}

}  // namespace

int main() {
  auto* in = static_cast<double*>(std::aligned_alloc(64, kN * kN * 16));
  auto* out = static_cast<double*>(std::aligned_alloc(64, kN * kN * 16));
  for (long k = 0; k < 2 * kN * kN; ++k) in[k] = static_cast<double>(k) * 0.5;
  std::memset(out, 0, kN * kN * 16);
  std::printf("flat %.1f ms\n", best_ms([&] { flat(in, out); }));
  const long tiles[][2] = {{8, 256}, {16, 256}, {32, 256}, {8, 512}, {16, 512}, {8, 1024}, {16, 4096}};
  for (const auto& t : tiles)
    std::printf("R=%ld Q=%ld streamed %.1f ms, ordinary %.1f ms\n", t[0], t[1],
                best_ms([&] { tiled(in, out, t[0], t[1], true); }), best_ms([&] { tiled(in, out, t[0], t[1], false); }));
  tiled(in, out, 16, 512, true);
  for (long i : {0L, 5L, 4095L})
    for (long j : {0L, 7L, 4095L})
      if (out[2 * (j * kN + i)] != -in[2 * (i * kN + j)] || out[2 * (j * kN + i) + 1] != -in[2 * (i * kN + j) + 1]) {
        std::printf("wrong value at (%ld, %ld)\n", i, j);
        return 1;
      }
  std::printf("flat %.1f ms\n", best_ms([&] { flat(in, out); }));
  std::free(in);
  std::free(out);
}
