// CPU kernels of the structural ops (src/ops/structural.cpp validates and allocates). Pure
// data movement is dispatched by element size, so one template serves every dtype of that
// size; scatter_add, which adds, is dispatched by dtype. Every kernel gives the same bits on
// every engine: writes never race and additions happen in a fixed order.
#pragma once

#include <cstdint>
#include <optional>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

// Sets every element of `out` (any strides, no overlap) to the element at `value` (out's dtype).
void fill(const Tensor& out, const void* value, Engine& engine);

// The first index in `indices` (I32 or I64) outside [-extent, extent), in a fixed scan order
// that does not depend on the engine; nullopt when all are in range.
std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent,
                                              Engine& engine);

// out[p] = src[p + normalize(idx[p]) * axis_stride] for every position p of out's shape. `src`
// and `idx` are views with out's shape; `src` has stride 0 on the gathered axis, which the
// index supplies (`axis_stride`, in elements; negative indices add `extent`).
void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                std::int64_t extent, Engine& engine);

// For every position p of the (common) shape of the three views, which is the index shape
// with the scatter axis cut to extent 1, and j in [0, length):
//   out[p + normalize(idx[p + j*idx_stride]) * out_stride] += src[p + j*src_stride]
// Work is split over p only: each p owns one fiber of out, filled in increasing j.
void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                 std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length,
                 std::int64_t extent, Engine& engine);

// out = in with the elements (i, j) of the last two axes zeroed where j - i > k (lower) or
// j - i < k (upper). `out` is dense column-major with in's shape (rank >= 2).
void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower, Engine& engine);

}  // namespace tensora::cpu
