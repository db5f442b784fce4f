// A tour of tensora: the scenarios every user meets first, printed as they run.
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include <tensora/tensora.hpp>

namespace ta = tensora;
using ta::DType;
using ta::Tensor;

namespace {

void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }

// Runs `body` and prints the tensora::Error it throws (the tour expects one).
template <class F>
void expect_error(const char* what, F&& body) {
  try {
    body();
    std::cout << "  " << what << ": no error (unexpected)\n";
  } catch (const ta::Error& e) {
    std::cout << "  " << what << "\n    -> [" << ta::name(e.kind()) << "] " << e.what() << "\n";
  }
}

}  // namespace

int main() {
  std::cout << std::setprecision(17);
  const ta::Device cpu = ta::Device::cpu();

  section("1. per-device defaults; an explicit dtype wins");
  const auto s = cpu.settings();
  std::cout << "  cpu:0 defaults: float " << ta::name(s.float_dtype) << ", int " << ta::name(s.int_dtype)
            << ", bool " << ta::name(s.bool_dtype) << "\n";
  std::cout << "  zeros({2}, {cpu}) is " << ta::name(Tensor::zeros({2}, {cpu}).dtype()) << "\n";
  std::cout << "  arange(0, 3, {cpu}) is " << ta::name(Tensor::arange(0, 3, {cpu}).dtype()) << "\n";
  std::cout << "  zeros({2}, {cpu, F64}) is " << ta::name(Tensor::zeros({2}, {cpu, DType::F64}).dtype()) << "\n";

  section("2. configure a device once");
  const ta::Device cpu1 = ta::Device::cpu(1);
  cpu1.configure({.float_dtype = DType::F64});
  std::cout << "  configured cpu:1 with float F64\n";
  expect_error("configure cpu:1 again", [&] { cpu1.configure({.float_dtype = DType::F32}); });
  std::cout << "  a fresh Device::cpu(1) reports " << ta::name(ta::Device::cpu(1).settings().float_dtype) << "\n";
  const ta::Device cpu2 = ta::Device::cpu(2);
  (void)Tensor::zeros({1}, {cpu2});
  expect_error("configure cpu:2 after a tensor was created there",
               [&] { cpu2.configure({.float_dtype = DType::F64}); });

  section("3. literals go straight to the target dtype");
  const auto f64 = Tensor::from_floats({0.1, 0.2}, {cpu1}).to_vec<double>();
  std::cout << "  from_floats({0.1, 0.2}) on cpu:1 (F64) reads back exactly 0.1 and 0.2: "
            << std::boolalpha << (f64[0] == 0.1 && f64[1] == 0.2) << "\n";
  const auto f32 = Tensor::from_floats({0.1, 0.2}, {cpu1, DType::F32}).to_vec<float>();
  std::cout << "  with an explicit F32: " << static_cast<double>(f32[0]) << "\n";

  section("4. the element type sets the dtype");
  const Tensor d = Tensor::from_vec_col_major({2}, std::vector<double>{1.5, 2.5});
  const Tensor big = Tensor::from_vec_col_major({1}, std::vector<std::int64_t>{1LL << 40});
  std::cout << "  vector<double> -> " << ta::name(d.dtype()) << "; vector<int64_t>{1 << 40} -> "
            << ta::name(big.dtype()) << " holding " << big.item<std::int64_t>() << "\n";

  section("5. to_device keeps the dtype; the printer shows dtype and device");
  const Tensor ints = Tensor::from_vec_col_major({2, 3}, std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
  const Tensor moved = ints.to_device(cpu1);
  std::cout << moved;
  std::cout << "  (column-major: the vector fills columns first)\n";

  section("6. bad input is a structured error, never a crash");
  expect_error("length mismatch", [] { Tensor::from_vec_col_major({2, 2}, std::vector<float>{1, 2, 3}); });
  expect_error("bad axis", [&] { ints.transpose(0, 5); });
  expect_error("slice step 0", [&] { ints.slice(0, 0, 2, 0); });
  expect_error("reshape to the wrong size", [&] { ints.reshape({4, 2}); });
  expect_error("unknown TENSORA_DEVICE=tpu:0", [] {
    setenv("TENSORA_DEVICE", "tpu:0", 1);
    struct Restore { ~Restore() { unsetenv("TENSORA_DEVICE"); } } restore;
    ta::Device::default_device();
  });
  expect_error("reading with the wrong element type", [&] { ints.to_vec<float>(); });
  expect_error("item() of a 6-element tensor", [&] { ints.item<std::int32_t>(); });

  section("7. direct ops are strict; scalars are weak");
  auto engine = ta::CpuEngine::serial();
  const Tensor x = Tensor::from_vec_col_major({2, 2}, std::vector<double>{1, 2, 3, 4});
  const Tensor y = Tensor::full({2, 2}, 0.5, {cpu, DType::F32});
  expect_error("F64 + F32", [&] { x.add(y, engine); });
  expect_error("operands on cpu:0 and cpu:1", [&] { x.add(x.to_device(cpu1), engine); });
  std::cout << "  x + 2 (weak int into F64):\n" << x.add(2, engine);
  const Tensor i32 = Tensor::from_ints({1, 2}, {cpu, DType::I32});
  expect_error("I32 + 0.5", [&] { i32.add(0.5, engine); });
  std::cout << "  sum of x over axis 0:\n" << x.sum({0}, engine);
  std::cout << "  x.convert(C128) is " << ta::name(x.convert(DType::C128, engine).dtype()) << "\n";
  expect_error("x.convert(F32) (down the lattice)", [&] { x.convert(DType::F32, engine); });
  std::cout << "  (1.75 * x).cast(I8) truncates toward zero, on purpose:\n" << x.mul(1.75, engine).cast(DType::I8, engine);

  section("8. contractions: direct is strict, eager promotes and differentiates");
  expect_error("x.matmul(y) with F64 and F32", [&] { x.matmul(y, engine); });
  ta::EagerRuntime rt;
  auto xv = rt.constant_from(x);
  auto yv = rt.variable_from(y);  // F32, requires grad
  rt.with_eager_session(engine, [&](ta::EagerSession& s) {
    auto product = s.matmul(xv, yv);  // y is converted to F64 by a recorded step
    std::cout << "  eager x.matmul(y):\n" << product.value();
    s.sum(product).backward();
  });
  std::cout << "  d sum(x y) / d y comes back in y's own dtype:\n" << yv.grad();
  std::cout << "  einsum(\"ij,jk->ik\") of x with itself:\n" << ta::einsum("ij,jk->ik", {x, x}, engine);

  section("9. traced: build a graph, see every convert, compile, run, differentiate");
  auto a = ta::TracedTensor::input("a", DType::F64, {2, 2});
  auto b = ta::TracedTensor::from_vec_col_major({2, 2}, std::vector<float>{2, 3, 2, 3});
  auto product = a.matmul(b);  // inserts convert(b, F64), then dot_general
  ta::GraphCompiler compiler;
  ta::Program program = compiler.compile({product});
  std::cout << program;
  for (const auto& c : program.conversions())
    std::cout << "  precision change: " << c.op << " " << ta::name(c.from) << " -> " << ta::name(c.to) << " at line "
              << c.where.line() << "\n";
  ta::Runtime runtime;
  const auto out = runtime.run(program, engine, {Tensor::eye(2, {cpu, DType::F64})});
  std::cout << "  run with a = eye(2):\n" << out[0];
  std::cout << "  " << ta::name(out[0].dtype()) << " column-major values:";
  for (double value : out[0].to_vec<double>()) std::cout << " " << value;
  std::cout << "\n";
  expect_error("run with an F32 value for the F64 placeholder", [&] {
    runtime.run(program, engine, {Tensor::eye(2, {cpu, DType::F32})});
  });
  // An elementwise chain becomes one fused kernel; its gradient is a traced graph too.
  auto v = ta::TracedTensor::input("v", DType::F32, {4});
  auto loss = ((v * 1.5 + 0.25).tanh() * v).sum();
  auto dloss = ta::grad(loss, {v})[0];
  const ta::Program with_grad = compiler.compile({loss, dloss});
  std::cout << with_grad;
  const auto values = runtime.run(with_grad, engine, {Tensor::from_floats({-1, 0, 0.5, 2}, {cpu, DType::F32})});
  std::cout << "  loss:\n" << values[0] << "  d loss / d v:\n" << values[1];
  return 0;
}
