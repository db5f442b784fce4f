// Gradient checking for the eager tests: analytic VJP against central finite differences in
// F64, and JVP/VJP consistency <w, J u> == <J^T w, u>.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "tensora/tensora.hpp"

namespace eager_test {

namespace ta = tensora;
using Fn = std::function<ta::EagerTensor(ta::EagerSession&, const std::vector<ta::EagerTensor>&)>;

inline ta::TensorOptions f64() {
  return ta::TensorOptions(ta::Device::cpu(0), ta::DType::F64);
}

// Uniform F64 values in [lo, hi) (deterministic per seed).
inline ta::Tensor rnd(ta::Shape shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  return ta::Tensor::uniform(std::move(shape), seed, f64(), lo, hi);
}

// A C128 tensor from two real parameter tensors (complex functions checked through their real
// parametrization).
inline ta::EagerTensor complex_of(ta::EagerSession& s, const ta::EagerTensor& re, const ta::EagerTensor& im) {
  return s.add(s.convert(re, ta::DType::C128), s.mul(s.convert(im, ta::DType::C128), ta::Scalar(std::complex<double>(0, 1))));
}
// A real view of a complex result, so the F64 gradient checker sees every part.
inline ta::EagerTensor parts(ta::EagerSession& s, const ta::EagerTensor& y) {
  if (!ta::is_complex(y.dtype())) return y;
  return s.add(s.real(y), s.mul(s.imag(y), 0.37));
}

inline double dot(const ta::Tensor& a, const ta::Tensor& b) {
  const auto x = a.to_vec<double>();
  const auto y = b.to_vec<double>();
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

inline ta::EagerFunction wrap(const Fn& f) {
  return [f](ta::EagerSession& s, const std::vector<ta::EagerTensor>& xs) {
    return std::vector<ta::EagerTensor>{f(s, xs)};
  };
}

// <w, f(inputs)> without recording.
inline double probe(ta::EagerSession& s, const Fn& f, const std::vector<ta::Tensor>& inputs,
                    const ta::Tensor& w) {
  ta::NoGradGuard guard;
  std::vector<ta::EagerTensor> xs;
  for (const auto& t : inputs) xs.push_back(s.constant(t));
  return dot(f(s, xs).value(), w);
}

// Checks every input's cotangent element by element, then <w, J u> both ways with random u.
inline void check_gradients(const std::string& label, const Fn& f, std::vector<ta::Tensor> inputs,
                            double tol = 1e-6, double h = 1e-6) {
  SCOPED_TRACE(label);
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](ta::EagerSession& s) {
    ta::Tensor out;
    {
      ta::NoGradGuard guard;
      std::vector<ta::EagerTensor> xs;
      for (const auto& t : inputs) xs.push_back(s.constant(t));
      out = f(s, xs).value();
    }
    ASSERT_EQ(out.dtype(), ta::DType::F64);
    const ta::Tensor w = rnd(out.shape(), 977);
    const auto r = ta::vjp(s, wrap(f), inputs, {w});
    ASSERT_EQ(r.cotangents.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(r.cotangents[i].shape(), inputs[i].shape()) << "input " << i;
      ASSERT_EQ(r.cotangents[i].dtype(), ta::DType::F64);
      const auto analytic = r.cotangents[i].to_vec<double>();
      auto base = inputs[i].to_vec<double>();
      for (std::size_t k = 0; k < base.size(); ++k) {
        auto plus = base, minus = base;
        plus[k] += h;
        minus[k] -= h;
        auto in_p = inputs, in_m = inputs;
        in_p[i] = ta::Tensor::from_vec_col_major(inputs[i].shape(), plus);
        in_m[i] = ta::Tensor::from_vec_col_major(inputs[i].shape(), minus);
        const double numeric = (probe(s, f, in_p, w) - probe(s, f, in_m, w)) / (2 * h);
        EXPECT_NEAR(analytic[k], numeric, tol * (1 + std::abs(numeric)))
            << "input " << i << " element " << k;
      }
    }
    // Forward mode: <w, J u> from jvp equals sum_i <vjp_i, u_i>.
    std::vector<ta::Tensor> u;
    for (std::size_t i = 0; i < inputs.size(); ++i) u.push_back(rnd(inputs[i].shape(), 300 + i));
    const auto jr = ta::jvp(s, wrap(f), inputs, u);
    ASSERT_EQ(jr.tangents.size(), 1u);
    ASSERT_EQ(jr.tangents[0].shape(), out.shape());
    double back = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) back += dot(r.cotangents[i], u[i]);
    const double fwd = dot(w, jr.tangents[0]);
    EXPECT_NEAR(fwd, back, tol * (1 + std::abs(back))) << "jvp vs vjp";
  });
}

}  // namespace eager_test
