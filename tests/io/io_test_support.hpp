// Helpers of the io tests: tensors of every dtype with arbitrary bit patterns, in each order,
// compared bit for bit; a scratch directory per test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tensora/tensora.hpp"

namespace tensora_io_test {

using tensora::DType;
using tensora::Layout;
using tensora::Shape;
using tensora::Tensor;

enum class Order { ColMajor, RowMajor, Strided };
inline const char* order_name(Order o) {
  return o == Order::ColMajor ? "col" : o == Order::RowMajor ? "row" : "strided";
}

inline const std::vector<Shape>& test_shapes() {
  static const std::vector<Shape> shapes = {{}, {0, 3}, {5}, {2, 3, 4}};
  return shapes;
}

// Deterministic bytes; Bool gets 0/1 (other bytes are not valid bools).
inline void fill_bytes(const Tensor& t, std::uint32_t seed) {
  auto* p = static_cast<unsigned char*>(const_cast<void*>(t.element_ptr()));
  const std::size_t n = static_cast<std::size_t>(t.numel()) * tensora::size_of(t.dtype());
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = t.dtype() == DType::Bool ? static_cast<unsigned char>((x >> 24) & 1) : static_cast<unsigned char>(x >> 24);
  }
}

// A tensor of `shape` in the given order: compact column-major, compact row-major, or a
// strided view (every other element along the first axis of a larger tensor).
inline Tensor make_tensor(DType dtype, const Shape& shape, Order order, std::uint32_t seed = 1) {
  if (order == Order::ColMajor) {
    Tensor t = Tensor::empty(shape, dtype, tensora::Device::cpu());
    fill_bytes(t, seed);
    return t;
  }
  if (order == Order::RowMajor) {
    Shape rev(shape.rbegin(), shape.rend());
    Tensor t = Tensor::empty(rev, dtype, tensora::Device::cpu());
    fill_bytes(t, seed);
    return t.transpose();
  }
  if (shape.empty()) return make_tensor(dtype, shape, Order::ColMajor, seed);
  Shape big = shape;
  big[0] = big[0] * 2 + 1;
  Tensor t = Tensor::empty(big, dtype, tensora::Device::cpu());
  fill_bytes(t, seed);
  return t.slice(0, 1, std::nullopt, 2).slice(0, 0, shape[0]);
}

inline std::vector<unsigned char> col_major_bytes(const Tensor& t) {
  std::vector<unsigned char> out(static_cast<std::size_t>(t.numel()) * tensora::size_of(t.dtype()));
  t.copy_to_buffer(out.data(), Layout::ColMajor);
  return out;
}

inline void expect_same(const Tensor& expected, const Tensor& actual, const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  EXPECT_EQ(actual.shape(), expected.shape()) << what;
  EXPECT_EQ(col_major_bytes(actual), col_major_bytes(expected)) << what;
}

// A fresh directory under the build's temporary dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/tensora_io_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The element strides a compact tensor of `shape` has in `layout`.
inline tensora::Strides strides_of(const Shape& shape, Layout layout) {
  return layout == Layout::ColMajor ? tensora::col_major_strides(shape) : tensora::row_major_strides(shape);
}

}  // namespace tensora_io_test
