// Shared helpers for the test suite.
//
// Device settings are process-wide and set once. ctest runs every test in its own process, but a
// developer may run the whole binary in one process, so every test that configures a device
// owns a device index of its own, and the order in which tests run never matters:
//
//   cpu:0  never configured: the default settings F32 / I64 / Bool.
//   cpu:1  configured to float F64 by the environment below, before any test runs, in every
//          process of this binary (Must-show scenario 2). Any test may create tensors on it.
//   cpu:2  test_device.cpp: configure after the first tensor throws.
//   cpu:3  test_device.cpp: the configure race.
//   cpu:4  test_tensor_create.cpp: an F64 device for from_floats (Must-show scenario 3).
//   cpu:5  test_device.cpp: configure with F16 / I32 defaults.
//   cpu:6, cpu:7  free: tensors only, never configure them in a test (test_limits.cpp sets and
//                 clears a memory limit on cpu:7).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "tensora/tensora.hpp"

namespace tensora_test {

inline constexpr int kF64Device = 1;

// What the one configure of cpu:1 did (it runs once per process, in the environment's SetUp).
struct F64DeviceOutcome {
  bool attempted = false;
  bool ok = false;
  std::string error;  // what() when it threw
};

inline F64DeviceOutcome& f64_device_outcome() {
  static F64DeviceOutcome outcome;
  return outcome;
}

class F64DeviceEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    auto& outcome = f64_device_outcome();
    if (outcome.attempted) return;  // --gtest_repeat: configure is once per process
    outcome.attempted = true;
    try {
      tensora::Device::cpu(kF64Device).configure({tensora::DType::F64});
      outcome.ok = true;
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
  }
};

// Registered once per process (an inline variable is initialized once across translation units).
inline ::testing::Environment* const kF64Environment =
    ::testing::AddGlobalTestEnvironment(new F64DeviceEnvironment);

// Sets an environment variable for one scope and restores the old value afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// n values in dtype d with signs, fractions, NaN and signed zeros in the mix (integers: scaled
// by 1000 before the cast, so they differ). A cheap generator: the library's Philox is slow in
// Debug builds.
inline tensora::Tensor mixed_values(tensora::DType d, std::uint64_t seed, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& e : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    e = static_cast<double>(x >> 11) * 0x1p-53 * 12.0 - 6.0;
    if (tensora::is_integer(d)) e *= 1000.0;
  }
  if (tensora::is_floating(d) || tensora::is_complex(d))
    for (std::size_t i = 0; i < v.size(); i += 1000) {
      v[i] = std::nan("");
      if (i + 1 < v.size()) v[i + 1] = -0.0;
    }
  tensora::CpuEngine e = tensora::CpuEngine::serial();
  return tensora::Tensor::from_vec_col_major({n}, v).cast(d, e);
}

// The bytes of every element in column-major order, for bitwise comparison.
inline std::vector<unsigned char> bytes_of(const tensora::Tensor& t) {
  std::vector<unsigned char> out(static_cast<std::size_t>(t.numel()) * tensora::size_of(t.dtype()));
  if (!out.empty()) t.copy_to_buffer(out.data(), tensora::Layout::ColMajor);
  return out;
}

// A serial engine and one of 3 threads (an odd count, so work splits unevenly).
inline std::vector<tensora::CpuEngine> serial_and_three_threads() {
  std::vector<tensora::CpuEngine> out;
  out.push_back(tensora::CpuEngine::serial());
  out.push_back(tensora::CpuEngine::parallel(3));
  return out;
}

// Runs `f`, which must throw tensora::Error, and returns the error (a test failure otherwise).
template <class F>
tensora::Error expect_error(F&& f) {
  try {
    f();
  } catch (const tensora::Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected tensora::Error, got another exception: " << e.what();
    throw;
  }
  ADD_FAILURE() << "expected tensora::Error, nothing was thrown";
  return tensora::Error(tensora::ErrorKind::Internal, "test", "nothing was thrown");
}

}  // namespace tensora_test
