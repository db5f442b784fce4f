// Helpers of the direct linalg tests (test_linalg*.cpp, test_small_linalg.cpp): the serial
// engine, random matrices in any linalg dtype, values as C128 and the largest entry difference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "tensora/tensora.hpp"

namespace linalg_test {

namespace ta = tensora;
using cd = std::complex<double>;

inline ta::CpuEngine& e() {
  static ta::CpuEngine engine = ta::CpuEngine::serial();
  return engine;
}

inline ta::TensorOptions opts(ta::DType d) { return ta::TensorOptions(ta::Device::cpu(), d); }

inline const ta::DType kDTypes[] = {ta::DType::F32, ta::DType::F64, ta::DType::C64, ta::DType::C128};

inline bool single(ta::DType d) { return d == ta::DType::F32 || d == ta::DType::C64; }

// Uniform entries in [-1, 1) (real and imaginary parts), deterministic per seed.
inline ta::Tensor random(ta::Shape shape, ta::DType dtype, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> v(static_cast<std::size_t>(ta::numel(shape)));
  for (auto& x : v) x = ta::is_complex(dtype) ? cd(u(rng), u(rng)) : cd(u(rng), 0);
  return ta::Tensor::from_vec_col_major(shape, v).cast(dtype, e());
}

inline std::vector<cd> values(const ta::Tensor& t) { return t.cast(ta::DType::C128, e()).to_vec<cd>(); }

inline double max_diff(const ta::Tensor& a, const ta::Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const auto x = values(a), y = values(b);
  double d = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d;
}

}  // namespace linalg_test
