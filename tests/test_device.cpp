// Devices, TENSORA_DEVICE, and the set-once per-device settings (docs/creation.md).
// Each test that configures a device owns its device index: see test_support.hpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <complex>
#include <functional>
#include <latch>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::Device;
using tensora::DeviceSettings;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Tensor;
using tensora_test::expect_error;
using tensora_test::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Device, CpuZeroHasTheDefaultSettings) {
  const Device cpu = Device::cpu();
  EXPECT_EQ(cpu, Device::cpu(0));
  EXPECT_EQ(cpu.kind(), tensora::DeviceKind::Cpu);
  EXPECT_EQ(cpu.index(), 0);
  const DeviceSettings s = cpu.settings();
  EXPECT_EQ(s.float_dtype, DType::F32);
  EXPECT_EQ(s.int_dtype, DType::I64);
  EXPECT_EQ(s.bool_dtype, DType::Bool);
  EXPECT_EQ(s.complex_dtype(), DType::C64);
  EXPECT_EQ(s, DeviceSettings{});
}

TEST(Device, ComplexDefaultFollowsTheFloatDefault) {
  EXPECT_EQ((DeviceSettings{DType::F64}).complex_dtype(), DType::C128);
  EXPECT_EQ((DeviceSettings{DType::F32}).complex_dtype(), DType::C64);
  EXPECT_EQ((DeviceSettings{DType::F16}).complex_dtype(), DType::C64);
  EXPECT_EQ((DeviceSettings{DType::BF16}).complex_dtype(), DType::C64);
}

TEST(Device, EqualityPrintingAndHash) {
  EXPECT_EQ(Device::cpu(1), Device::cpu(1));
  EXPECT_NE(Device::cpu(1), Device::cpu(2));
  EXPECT_NE(Device::cpu(0), Device::cpu(7));
  EXPECT_EQ(Device::cpu().to_string(), "cpu:0");
  EXPECT_EQ(Device::cpu(7).to_string(), "cpu:7");
  std::ostringstream os;
  os << Device::cpu(3);
  EXPECT_EQ(os.str(), "cpu:3");
  const std::hash<Device> h;
  EXPECT_EQ(h(Device::cpu(2)), h(Device::cpu(2)));
  EXPECT_NE(h(Device::cpu(2)), h(Device::cpu(3)));
}

TEST(Device, IndexOutOfRangeThrowsInvalidArgument) {
  for (int bad : {-1, Device::kMaxCpuDevices, 99}) {
    const Error e = expect_error([&] { Device::cpu(bad); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "Device::cpu");
    EXPECT_EQ(e.message(), "cpu device index " + std::to_string(bad) + " out of range [0, 8)");
    const auto* detail = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->argument, "index");
  }
  EXPECT_NO_THROW(Device::cpu(Device::kMaxCpuDevices - 1));
}

TEST(Device, SupportsEveryDTypeOnCpu) {
  for (DType d : tensora::kAllDTypes) EXPECT_TRUE(Device::cpu().supports(d)) << tensora::name(d);
}

// ---- TENSORA_DEVICE -------------------------------------------------------------------------

TEST(DefaultDevice, UnsetOrEmptyIsCpu0) {
  {
    ScopedEnv env("TENSORA_DEVICE", nullptr);
    EXPECT_EQ(Device::default_device(), Device::cpu(0));
    EXPECT_EQ(tensora::TensorOptions().device, Device::cpu(0));
  }
  {
    ScopedEnv env("TENSORA_DEVICE", "");
    EXPECT_EQ(Device::default_device(), Device::cpu(0));
  }
}

TEST(DefaultDevice, ReadsCpuNames) {
  {
    ScopedEnv env("TENSORA_DEVICE", "cpu");
    EXPECT_EQ(Device::default_device(), Device::cpu(0));
  }
  {
    ScopedEnv env("TENSORA_DEVICE", "cpu:3");
    EXPECT_EQ(Device::default_device(), Device::cpu(3));
  }
  {
    // Creation without options goes there (cpu:6 is tensors-only, see test_support.hpp).
    ScopedEnv env("TENSORA_DEVICE", "cpu:6");
    const Tensor t = Tensor::zeros({2});
    EXPECT_EQ(t.device(), Device::cpu(6));
    EXPECT_EQ(t.dtype(), DType::F32);
  }
  EXPECT_EQ(Device::parse("cpu:7"), Device::cpu(7));
  EXPECT_EQ(Device::parse("cpu"), Device::cpu(0));
}

TEST(DefaultDevice, MalformedNamesThrowInvalidArgument) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c :
       {Case{"gpu0", "unknown device kind"}, Case{"tpu:0", "unknown device kind"},
        Case{"CPU", "unknown device kind"}, Case{"cpu:x", "the index is not a number"},
        Case{"cpu:", "the index is not a number"}, Case{"cpu:1x", "the index is not a number"},
        Case{"cpu:99", "the index is out of range"}, Case{"cpu:-1", "the index is out of range"}}) {
    SCOPED_TRACE(c.text);
    ScopedEnv env("TENSORA_DEVICE", c.text);
    const Error e = expect_error([] { Device::default_device(); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "Device::default_device");
    EXPECT_EQ(e.message(), "TENSORA_DEVICE: unknown device '" + std::string(c.text) +
                               "': " + c.why + " (expected 'cpu' or 'cpu:N' with 0 <= N < 8)");
    const auto* detail = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->argument, "device");
    // Device::parse gives the same error under its own name.
    const Error p = expect_error([&] { Device::parse(c.text); });
    EXPECT_EQ(p.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(p.op(), "Device::parse");
  }
}

TEST(DefaultDevice, CudaIsUnsupportedInThisBuild) {
  for (const char* text : {"cuda:0", "cuda", "gpu"}) {
    SCOPED_TRACE(text);
    ScopedEnv env("TENSORA_DEVICE", text);
    const Error e = expect_error([] { Device::default_device(); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.message(), "TENSORA_DEVICE: device '" + std::string(text) +
                               "' is not available: this build has no CUDA engine");
    EXPECT_TRUE(std::holds_alternative<tensora::NoDetail>(e.detail()));
  }
}

TEST(DefaultDevice, BadNameFailsCreationWithDefaultOptions) {
  ScopedEnv env("TENSORA_DEVICE", "cuda:0");
  const Error e = expect_error([] { Tensor::zeros({2}); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_THAT(e.what(), HasSubstr("TENSORA_DEVICE"));
}

// ---- configure ------------------------------------------------------------------------------

// Must-show scenario 2. The first configure of cpu:1 runs in the environment of
// test_support.hpp, before any test, so it cannot race with tests that use cpu:1.
TEST(DeviceConfigure, MustShow2_ConfigureOnceThenAlreadyInitialized) {
  const auto& outcome = tensora_test::f64_device_outcome();
  ASSERT_TRUE(outcome.attempted);
  ASSERT_TRUE(outcome.ok) << "Device::cpu(1).configure({DType::F64}) threw: " << outcome.error;

  const Device cpu1 = Device::cpu(1);
  const int line = __LINE__ + 1;
  const Error e = expect_error([&] { cpu1.configure({DType::F32}); });
  EXPECT_EQ(e.kind(), ErrorKind::AlreadyInitialized);
  EXPECT_EQ(e.op(), "configure");
  const auto* detail = std::get_if<tensora::AlreadyInitialized>(&e.detail());
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->device, "cpu:1");
  EXPECT_EQ(e.message(),
            "device cpu:1 is already configured; defaults can be set once per process. Pass an "
            "explicit dtype instead, e.g. {Device::cpu(1), DType::F64}");
  EXPECT_THAT(e.what(), StartsWith("configure: device cpu:1 is already configured"));
  EXPECT_THAT(e.what(), HasSubstr("(at test_device.cpp:" + std::to_string(line) + ")"));

  // Nothing changed, and every Device value equal to cpu:1 sees the settings.
  const DeviceSettings s = Device::cpu(1).settings();
  EXPECT_EQ(s.float_dtype, DType::F64);
  EXPECT_EQ(s.int_dtype, DType::I64);
  EXPECT_EQ(s.bool_dtype, DType::Bool);
  EXPECT_EQ(s.complex_dtype(), DType::C128);
  EXPECT_EQ(Device::cpu(0).settings().float_dtype, DType::F32);  // per device

  // Creation on cpu:1 uses the new defaults; an explicit dtype still wins.
  EXPECT_EQ(Tensor::zeros({2}, {cpu1}).dtype(), DType::F64);
  EXPECT_EQ(Tensor::from_floats({0.5}, {cpu1}).dtype(), DType::F64);
  EXPECT_EQ(Tensor::full({1}, std::complex<double>(1, 2), {cpu1}).dtype(), DType::C128);
  EXPECT_EQ(Tensor::arange(0, 3, {cpu1}).dtype(), DType::I64);
  EXPECT_EQ(Tensor::zeros({2}, {cpu1, DType::F32}).dtype(), DType::F32);

  // A configure with the same settings is still a second configure.
  const Error again = expect_error([&] { cpu1.configure({DType::F64}); });
  EXPECT_EQ(again.kind(), ErrorKind::AlreadyInitialized);
}

TEST(DeviceConfigure, AfterTheFirstTensorThrowsAlreadyInitialized) {
  const Device cpu2 = Device::cpu(2);
  const Tensor t = Tensor::zeros({3}, {cpu2});
  EXPECT_EQ(t.dtype(), DType::F32);
  const Error e = expect_error([&] { cpu2.configure({DType::F64}); });
  EXPECT_EQ(e.kind(), ErrorKind::AlreadyInitialized);
  const auto* detail = std::get_if<tensora::AlreadyInitialized>(&e.detail());
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->device, "cpu:2");
  EXPECT_EQ(
      e.message(),
      "device cpu:2 already has tensors created with its default dtypes; configure it before "
      "the first tensor, or pass an explicit dtype instead, e.g. {Device::cpu(2), DType::F64}");
  EXPECT_EQ(cpu2.settings(), DeviceSettings{});
}

// Configure is once per process; under --gtest_repeat a configuring test runs only once.
bool first_run(bool& ran) {
  const bool first = !ran;
  ran = true;
  return first;
}

TEST(DeviceConfigure, InvalidSettingsThrowInvalidArgumentAndDoNotCount) {
  static bool ran = false;
  if (!first_run(ran)) GTEST_SKIP() << "cpu:5 was configured by an earlier repetition";
  const Device cpu5 = Device::cpu(5);
  struct Case {
    DeviceSettings settings;
    const char* argument;
    const char* message;
  };
  const Case cases[] = {
      {{DType::I32, DType::I64, DType::Bool},
       "float_dtype",
       "float_dtype must be a float dtype, got I32"},
      {{DType::C64, DType::I64, DType::Bool},
       "float_dtype",
       "float_dtype must be a float dtype, got C64"},
      {{DType::F32, DType::F32, DType::Bool},
       "int_dtype",
       "int_dtype must be an integer dtype, got F32"},
      {{DType::F32, DType::Bool, DType::Bool},
       "int_dtype",
       "int_dtype must be an integer dtype, got Bool"},
      {{DType::F32, DType::I64, DType::U8}, "bool_dtype", "bool_dtype must be Bool, got U8"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    const Error e = expect_error([&] { cpu5.configure(c.settings); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "configure");
    EXPECT_EQ(e.message(), c.message);
    const auto* detail = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->argument, c.argument);
  }
  // The rejected calls did not use up the one configure.
  EXPECT_EQ(cpu5.settings(), DeviceSettings{});
  ASSERT_NO_THROW(cpu5.configure({DType::F16, DType::I32}));
  EXPECT_EQ(cpu5.settings(), (DeviceSettings{DType::F16, DType::I32, DType::Bool}));
  EXPECT_EQ(Tensor::zeros({1}, {cpu5}).dtype(), DType::F16);
  EXPECT_EQ(Tensor::from_floats({0.25}, {cpu5}).dtype(), DType::F16);
  EXPECT_EQ(Tensor::arange(0, 4, {cpu5}).dtype(), DType::I32);
  EXPECT_EQ(Tensor::from_ints({1, 2}, {cpu5}).dtype(), DType::I32);
  EXPECT_EQ(Tensor::full({1}, true, {cpu5}).dtype(), DType::Bool);
  EXPECT_EQ(Tensor::full({1}, std::complex<double>(0, 1), {cpu5}).dtype(), DType::C64);
}

// Eight threads configure cpu:3 at the same moment: exactly one wins, the others get
// AlreadyInitialized, and concurrent readers only ever see the defaults or the winner's settings.
TEST(DeviceConfigure, ConcurrentConfigureHasExactlyOneWinner) {
  static bool ran = false;
  if (!first_run(ran)) GTEST_SKIP() << "cpu:3 was configured by an earlier repetition";
  const Device cpu3 = Device::cpu(3);
  const DeviceSettings initial = cpu3.settings();
  ASSERT_EQ(initial, DeviceSettings{});

  constexpr int kWriters = 8;
  constexpr int kReaders = 3;
  // Distinct from each other and from the defaults, so an observed mix would be visible.
  const std::array<DeviceSettings, kWriters> candidates = {{
      {DType::F64, DType::I8},
      {DType::F16, DType::I16},
      {DType::BF16, DType::I32},
      {DType::F64, DType::U8},
      {DType::F16, DType::U16},
      {DType::BF16, DType::U32},
      {DType::F64, DType::U64},
      {DType::F16, DType::I64},
  }};
  enum Outcome { kPending, kWon, kAlreadyInitialized, kOther };
  std::array<Outcome, kWriters> outcomes{};
  std::array<std::string, kWriters> other_errors;
  std::vector<std::vector<DeviceSettings>> observed(kReaders);
  std::atomic<int> writers_left{kWriters};
  std::latch start(kWriters + kReaders);

  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        Device::cpu(3).configure(candidates[static_cast<std::size_t>(i)]);
        outcomes[static_cast<std::size_t>(i)] = kWon;
      } catch (const Error& e) {
        const auto* d = std::get_if<tensora::AlreadyInitialized>(&e.detail());
        const bool ok = e.kind() == ErrorKind::AlreadyInitialized && d && d->device == "cpu:3";
        outcomes[static_cast<std::size_t>(i)] = ok ? kAlreadyInitialized : kOther;
        if (!ok) other_errors[static_cast<std::size_t>(i)] = e.what();
      }
      writers_left.fetch_sub(1);
    });
  for (int r = 0; r < kReaders; ++r)
    threads.emplace_back([&, r] {
      auto& seen = observed[static_cast<std::size_t>(r)];
      start.arrive_and_wait();
      // Keep only changes, so the record stays small however long the race takes.
      auto record = [&] {
        const DeviceSettings s = Device::cpu(3).settings();
        if (seen.empty() || !(seen.back() == s)) seen.push_back(s);
      };
      while (writers_left.load() > 0) record();
      record();
    });
  for (auto& t : threads) t.join();

  int winners = 0;
  int winner = -1;
  for (int i = 0; i < kWriters; ++i) {
    EXPECT_NE(outcomes[static_cast<std::size_t>(i)], kOther)
        << other_errors[static_cast<std::size_t>(i)];
    EXPECT_NE(outcomes[static_cast<std::size_t>(i)], kPending);
    if (outcomes[static_cast<std::size_t>(i)] == kWon) {
      ++winners;
      winner = i;
    }
  }
  ASSERT_EQ(winners, 1);
  const DeviceSettings won = candidates[static_cast<std::size_t>(winner)];
  EXPECT_EQ(cpu3.settings(), won);
  for (int r = 0; r < kReaders; ++r) {
    const auto& seen = observed[static_cast<std::size_t>(r)];
    ASSERT_FALSE(seen.empty());
    // Each reader sees the defaults, then (once) the winner, and never goes back.
    EXPECT_LE(seen.size(), 2u);
    for (std::size_t k = 0; k < seen.size(); ++k) {
      EXPECT_TRUE(seen[k] == initial || seen[k] == won) << "reader " << r << " saw a mixed setting";
      if (k > 0) {
        EXPECT_EQ(seen[k - 1], initial);
        EXPECT_EQ(seen[k], won);
      }
    }
    EXPECT_EQ(seen.back(), won);
  }
}

}  // namespace
