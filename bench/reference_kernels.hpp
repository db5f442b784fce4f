// Plain reference loops for the benchmarks: what a hand-written loop compiled with
// -O3 -march=native reaches on this machine (the "ref" column). Each splits [0, n) into
// `threads` equal contiguous parts, one per thread, on a small persistent pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace bench::ref {

// Calls body(begin, end) on `threads` equal parts of [0, n); returns when all are done.
void parallel(int threads, std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body);

// 64-byte aligned, zero-filled (so every page is touched before timing) buffer.
void* aligned_zeroed(std::size_t bytes);
void aligned_free(void* p);

// STREAM kernels (McCalpin): a = b + s * c is the bandwidth floor we quote.
void triad(int threads, double* a, const double* b, const double* c, double s, std::int64_t n);
void triad(int threads, float* a, const float* b, const float* c, float s, std::int64_t n);
// out = s * in: the memory floor of a unary op (one read, one write).
void scale(int threads, float* out, const float* in, float s, std::int64_t n);
void scale(int threads, double* out, const double* in, double s, std::int64_t n);

// out = a + b and out = a * b + c over dense arrays.
void add(int threads, float* out, const float* a, const float* b, std::int64_t n);
void add(int threads, double* out, const double* a, const double* b, std::int64_t n);
void fma(int threads, float* out, const float* a, const float* b, const float* c, std::int64_t n);
void fma(int threads, double* out, const double* a, const double* b, const double* c, std::int64_t n);

// The traced benchmark's 8-op chain in one pass (bench_traced.cpp):
//   out = maximum(((x * 1.5 + 0.25) * x - 0.5) op (x * x + 1), -0.25), op = / or *
void chain8(int threads, bool divide, float* out, const float* x, std::int64_t n);

// A 4-element add as a function call (not inlined into the benchmark loop).
void add_tiny(float* out, const float* a, const float* b, std::int64_t n);

// Reductions of a dense float array.
double sum(int threads, const float* x, std::int64_t n);  // accumulates in double
float max(int threads, const float* x, std::int64_t n);
// A rows x cols column-major matrix x (x[i + j * rows]):
//   out[j] = sum_i x[i, j]   (the inner, contiguous axis)
//   out[i] = sum_j x[i, j]   (the outer, strided axis)
void sum_inner(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols);
void sum_outer(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols);
void max_inner(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols);
void max_outer(int threads, float* out, const float* x, std::int64_t rows, std::int64_t cols);

}  // namespace bench::ref
