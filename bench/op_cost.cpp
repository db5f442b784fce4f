// Per-op cost driver for callgrind (bench/op_cost.py): N calls of one tiny op, so the
// instructions per call are (I(N2) - I(N1)) / (N2 - N1), a figure that repeats on a noisy
// machine where timings do not. Not a Google Benchmark binary: the loop must be exactly N calls.
//
//   tensora_op_cost N CASE    CASE: add | eager-const | eager-grad | fft1024 | fft1024-into | plain-loop
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "tensora/tensora.hpp"

namespace ta = tensora;

namespace {

const ta::TensorOptions kF32(ta::Device::cpu(), ta::DType::F32);

// Keeps the compiler from dropping a result it can see is unused.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "r"(&value) : "memory");
}

void eager_add(int n, bool grad, ta::Engine& e, const ta::Tensor& x, const ta::Tensor& y) {
  ta::EagerRuntime rt;
  const auto a = grad ? rt.variable_from(x) : rt.constant_from(x);
  const auto b = rt.constant_from(y);
  rt.with_eager_session(e, [&](ta::EagerSession& s) {
    for (int i = 0; i < n; ++i) keep(s.add(a, b));
  });
}

}  // namespace

// The measured part: op_cost.py counts only the instructions under this function, so the
// library's start-up (which times itself and so varies) stays out of the figure.
__attribute__((noinline)) int measured_calls(int n, const char* what) {
  auto e = ta::CpuEngine::serial();
  const auto x = ta::Tensor::uniform({4}, 1, kF32), y = ta::Tensor::uniform({4}, 2, kF32);
  if (std::strcmp(what, "add") == 0) {
    for (int i = 0; i < n; ++i) keep(x.add(y, e));
  } else if (std::strcmp(what, "eager-const") == 0) {
    eager_add(n, false, e, x, y);
  } else if (std::strcmp(what, "eager-grad") == 0) {
    eager_add(n, true, e, x, y);
  } else if (std::strcmp(what, "fft1024") == 0) {
    const auto c = ta::Tensor::uniform({1024}, 3, {ta::Device::cpu(), ta::DType::F64}).cast(ta::DType::C128, e);
    for (int i = 0; i < n; ++i) keep(ta::fft::fft(c, e));
  } else if (std::strcmp(what, "fft1024-into") == 0) {
    const auto c = ta::Tensor::uniform({1024}, 3, {ta::Device::cpu(), ta::DType::F64}).cast(ta::DType::C128, e);
    const auto dest = ta::fft::fft(c, e);
    for (int i = 0; i < n; ++i) {
      ta::fft::fft_into(c, e, dest);
      keep(dest);
    }
  } else if (std::strcmp(what, "plain-loop") == 0) {
    // The floor of issue 16: a loop that heap-allocates its 4-float result.
    const float* a = x.data<float>();
    const float* b = y.data<float>();
    for (int i = 0; i < n; ++i) {
      auto out = std::make_unique<float[]>(4);
      for (int k = 0; k < 4; ++k) out[k] = a[k] + b[k];
      keep(out);
    }
  } else {
    std::fprintf(stderr, "unknown case %s\n", what);
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s N add|eager-const|eager-grad|fft1024|fft1024-into|plain-loop\n", argv[0]);
    return 2;
  }
  return measured_calls(std::atoi(argv[1]), argv[2]);
}
