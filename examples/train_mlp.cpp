// Trains a 2-layer MLP (tanh hidden layer) with eager autodiff and plain SGD on a synthetic
// regression problem, printing the loss as it falls.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include <tensora/tensora.hpp>

namespace ta = tensora;
using ta::DType;
using ta::Tensor;

int main() {
  constexpr std::int64_t kSamples = 256, kInputs = 4, kHidden = 32;
  constexpr double kLearningRate = 0.1;
  constexpr int kSteps = 400;
  auto engine = ta::CpuEngine::serial();
  const ta::TensorOptions f32(ta::Device::cpu(), DType::F32);

  // Targets: y = sin(x0) + 0.5 x1 x2 - 0.25 x3^2, rows are samples.
  const Tensor x = Tensor::uniform({kSamples, kInputs}, 1, f32, -1.5, 1.5);
  std::vector<float> yv(static_cast<std::size_t>(kSamples));
  {
    const auto xv = x.to_vec_row_major<float>();
    for (std::int64_t i = 0; i < kSamples; ++i) {
      const float* r = &xv[static_cast<std::size_t>(i * kInputs)];
      yv[static_cast<std::size_t>(i)] = std::sin(r[0]) + 0.5f * r[1] * r[2] - 0.25f * r[3] * r[3];
    }
  }
  const Tensor y = Tensor::from_vec_col_major({kSamples, 1}, yv);

  ta::EagerRuntime rt;
  const auto scale = [](std::int64_t fan_in) {
    return 1.0 / std::sqrt(static_cast<double>(fan_in));
  };
  std::vector<ta::EagerTensor> params = {
      rt.variable_from(Tensor::normal({kInputs, kHidden}, 2, f32, 0.0, scale(kInputs))),
      rt.variable_from(Tensor::zeros({kHidden}, f32)),
      rt.variable_from(Tensor::normal({kHidden, 1}, 3, f32, 0.0, scale(kHidden))),
      rt.variable_from(Tensor::zeros({1}, f32)),
  };
  const auto ex = rt.constant_from(x);
  const auto ey = rt.constant_from(y);

  const auto start = std::chrono::steady_clock::now();
  double first = 0, last = 0;
  for (int step = 0; step <= kSteps; ++step) {
    const double loss = rt.with_eager_session(engine, [&](ta::EagerSession& s) {
      const auto hidden = s.tanh(s.matmul(ex, params[0]) + params[1]);
      const auto out = s.matmul(hidden, params[2]) + params[3];
      const auto diff = out - ey;
      auto l = s.mean(diff * diff);
      l.backward();
      return static_cast<double>(l.value().item<float>());
    });
    // Plain SGD: each parameter becomes a fresh variable p - lr * grad.
    for (auto& p : params)
      p = rt.variable_from(p.value().sub(p.grad().mul(kLearningRate, engine), engine));
    if (step == 0) first = loss;
    last = loss;
    if (step % 50 == 0) std::printf("step %3d  loss %.6f\n", step, loss);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("loss %.6f -> %.6f in %d steps (%.0f ms)\n", first, last, kSteps, ms);
  return last < first ? 0 : 1;
}
