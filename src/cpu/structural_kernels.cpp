// Structural kernels: fill, index gathers, scatter_add and the triangle mask. Data movement is
// written once per element size (Bytes<N>), arithmetic once per element type (visit_dtype).
#include "cpu/structural_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dispatch.hpp"
#include "core/strided_loop.hpp"
#include "core/element_access.hpp"
#include "ops/elementwise_functors.hpp"
#include "cpu/elementwise_loop.hpp"

namespace tensora::cpu {

namespace {

// N raw bytes: one element of any dtype of that size, moved with memcpy.
template <std::size_t N>
struct Bytes {
  unsigned char b[N];
};

// Calls f.template operator()<Bytes<N>>() for the element size of `dtype`.
template <class F>
void visit_size(DType dtype, F&& f) {
  switch (size_of(dtype)) {
    case 1: f.template operator()<Bytes<1>>(); break;
    case 2: f.template operator()<Bytes<2>>(); break;
    case 4: f.template operator()<Bytes<4>>(); break;
    case 8: f.template operator()<Bytes<8>>(); break;
    default: f.template operator()<Bytes<16>>(); break;
  }
}

// Calls f.template operator()<I>() for an index dtype (validated to be I32 or I64).
template <class F>
void visit_index(DType dtype, F&& f) {
  if (dtype == DType::I32) f.template operator()<std::int32_t>();
  else f.template operator()<std::int64_t>();
}

template <class I>
inline std::int64_t load_index(const char* p) {
  I v;
  std::memcpy(&v, p, sizeof(I));
  return static_cast<std::int64_t>(v);
}

inline std::int64_t normalize(std::int64_t k, std::int64_t extent) { return k < 0 ? k + extent : k; }

Strides byte_strides(const Tensor& t) {
  Strides s = t.strides();
  for (auto& v : s) v *= static_cast<std::int64_t>(size_of(t.dtype()));
  return s;
}

char* base_ptr(const Tensor& t) { return static_cast<char*>(const_cast<void*>(t.element_ptr())); }

}  // namespace

void fill(const Tensor& out, const void* value, Engine& engine) {
  visit_size(out.dtype(), [&]<class E>() {
    E v;
    std::memcpy(&v, value, sizeof(E));
    run_elementwise<1>(engine, {&out}, [v](std::array<char*, 1> p, std::array<std::int64_t, 1> s,
                                           std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i) std::memcpy(p[0] + i * s[0], &v, sizeof(E));
    });
  });
}

std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent,
                                              Engine& engine) {
  const std::int64_t count = indices.numel();
  if (count == 0) return std::nullopt;
  const auto loop = make_strided_loop<1>(indices.shape(), {base_ptr(indices)}, {byte_strides(indices)});
  // One slot per fixed chunk; the first chunk with a bad index wins, whatever the threads.
  const std::int64_t chunks = (count + kElementGrain - 1) / kElementGrain;
  std::vector<std::optional<std::int64_t>> first(static_cast<std::size_t>(chunks));
  visit_index(indices.dtype(), [&]<class I>() {
    auto scan = [&](std::int64_t b, std::int64_t e) {
      auto& slot = first[static_cast<std::size_t>(b / kElementGrain)];
      run_strided_range(loop, [&](std::array<char*, 1> p, std::array<std::int64_t, 1> s, std::int64_t n) {
        if (slot) return;
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t k = load_index<I>(p[0] + i * s[0]);
          if (k < -extent || k >= extent) {
            slot = k;
            return;
          }
        }
      }, b, e);
    };
    if (count <= kElementGrain) scan(0, count);
    else engine.parallel_for(count, kElementGrain, scan);
  });
  for (const auto& slot : first)
    if (slot) return slot;
  return std::nullopt;
}

void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                std::int64_t extent, Engine& engine) {
  const std::int64_t axis_bytes = axis_stride * static_cast<std::int64_t>(size_of(src.dtype()));
  visit_size(out.dtype(), [&]<class E>() {
    visit_index(idx.dtype(), [&]<class I>() {
      run_elementwise<3>(engine, {&out, &src, &idx},
                         [axis_bytes, extent](std::array<char*, 3> p, std::array<std::int64_t, 3> s,
                                              std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t k = normalize(load_index<I>(p[2] + i * s[2]), extent);
          std::memcpy(p[0] + i * s[0], p[1] + i * s[1] + k * axis_bytes, sizeof(E));
        }
      });
    });
  });
}

void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                 std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length,
                 std::int64_t extent, Engine& engine) {
  if (length == 0) return;
  const std::int64_t out_b = out_stride * static_cast<std::int64_t>(size_of(out.dtype()));
  const std::int64_t idx_b = idx_stride * static_cast<std::int64_t>(size_of(idx.dtype()));
  const std::int64_t src_b = src_stride * static_cast<std::int64_t>(size_of(src.dtype()));
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // Bool is rejected by the op layer
      visit_index(idx.dtype(), [&]<class I>() {
        run_elementwise<3>(engine, {&out, &idx, &src},
                           [=](std::array<char*, 3> p, std::array<std::int64_t, 3> s, std::int64_t n) {
          for (std::int64_t i = 0; i < n; ++i) {
            char* o = p[0] + i * s[0];
            const char* x = p[1] + i * s[1];
            const char* y = p[2] + i * s[2];
            for (std::int64_t j = 0; j < length; ++j) {
              char* dst = o + normalize(load_index<I>(x + j * idx_b), extent) * out_b;
              store_from_compute<T>(dst, fn::binary<BinaryOp::Add>(load_as_compute<T>(dst),
                                                                   load_as_compute<T>(y + j * src_b)));
            }
          }
        });
      });
    }
  });
}

void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower, Engine& engine) {
  const Shape& shape = in.shape();
  const std::size_t r = shape.size();
  const std::int64_t rows = shape[r - 2], cols = shape[r - 1];
  const std::size_t batch_rank = r - 2;
  std::int64_t batch = 1;
  for (std::size_t d = 0; d < batch_rank; ++d) batch *= shape[d];
  const std::int64_t units = batch * cols;  // one unit = one column of one matrix
  if (units == 0 || rows == 0) return;
  const Strides in_b = byte_strides(in), out_b = byte_strides(out);
  char* const in_base = base_ptr(in);
  char* const out_base = base_ptr(out);
  // Beyond this range every element is kept or every one zeroed, and j - k cannot overflow.
  k = std::clamp<std::int64_t>(k, -rows - 1, cols + 1);
  const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / rows);
  visit_size(in.dtype(), [&]<class E>() {
    constexpr auto esize = static_cast<std::int64_t>(sizeof(E));
    const std::int64_t in_r = in_b[r - 2], in_c = in_b[r - 1];
    const std::int64_t out_r = out_b[r - 2], out_c = out_b[r - 1];
    auto body = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t u = begin; u < end; ++u) {
        const std::int64_t j = u % cols;
        std::int64_t rest = u / cols;
        const char* src = in_base + j * in_c;
        char* dst = out_base + j * out_c;
        for (std::size_t d = 0; d < batch_rank; ++d) {  // column-major unravel of the batch index
          const std::int64_t at = rest % shape[d];
          rest /= shape[d];
          src += at * in_b[d];
          dst += at * out_b[d];
        }
        // Rows [keep_lo, keep_hi) keep their value, the rest become zero.
        const std::int64_t edge = std::clamp<std::int64_t>(j - k, 0, rows);
        const std::int64_t keep_lo = lower ? edge : 0;
        const std::int64_t keep_hi = lower ? rows : std::clamp<std::int64_t>(j - k + 1, 0, rows);
        for (std::int64_t i = 0; i < rows; ++i) {
          if (i >= keep_lo && i < keep_hi) std::memcpy(dst + i * out_r, src + i * in_r, esize);
          else std::memset(dst + i * out_r, 0, esize);
        }
      }
    };
    if (units <= grain) body(0, units);
    else engine.parallel_for(units, grain, body);
  });
}

}  // namespace tensora::cpu
