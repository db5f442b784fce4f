// Elementwise ops on transposed 4096x4096 views (issue 16's first row and its siblings):
// the allocating form, which writes tensora's column-major result and so transposes, next to
// the `into` form with a destination in the inputs' layout (one flat pass: the floor).
// Cases: both operands transposed (`add`), one transposed and one column-major (`add1`),
// a unary op (`neg`) and a cast (F32 <-> F64, F16 -> F32, C128 -> C64); F32, F64, F16, C128;
// 1 and 2 threads. bench/numpy_transposed.py runs these rows and NumPy's on the same arrays.
#include <map>
#include <string>
#include <utility>

#include "bench_common.hpp"

namespace bench {
namespace {

using tensora::DType;
using tensora::Tensor;

const char* short_name(DType d) {
  switch (d) {
    case DType::F16: return "f16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    default: return "c128";
  }
}

DType cast_target(DType d) { return d == DType::F32 ? DType::F64 : d == DType::C128 ? DType::C64 : DType::F32; }

// Two 16M-element inputs of dtype d (values in [-1, 1)), made once per dtype.
const Tensor& input(DType d, int which) {
  static std::map<std::pair<DType, int>, Tensor> made;
  Tensor& t = made[{d, which}];
  if (!t.defined()) {
    tensora::CpuEngine e = tensora::CpuEngine::parallel(2);
    t = Tensor::uniform({kN}, static_cast<std::uint64_t>(which), tensora::TensorOptions(DType::F32), -1.0, 1.0).cast(d, e);
  }
  return t;
}

void run_case(benchmark::State& state, const std::string& op, DType d, bool into, int threads) {
  tensora::Engine& e = engine(threads);
  const Tensor a = shaped(input(d, 1), true), b = shaped(input(d, 2), true);
  const Tensor c = input(d, 3).reshape({kSide, kSide});  // column-major
  const DType out_dtype = op == "cast" ? cast_target(d) : d;
  // The `into` floor: every operand in one layout. For add1 that is the column-major one.
  const bool dest_transposed = op != "add1";
  static std::map<std::pair<DType, bool>, Tensor> dests;
  Tensor& dest = dests[{out_dtype, dest_transposed}];
  if (!dest.defined())
    dest = dest_transposed ? empty_like_layout(out_dtype, true)
                           : Tensor::empty({kSide, kSide}, out_dtype, tensora::Device::cpu());
  auto run = [&]() -> Tensor {
    if (op == "add") return into ? (a.add_into(b, e, dest), dest) : a.add(b, e);
    if (op == "add1") return into ? (c.add_into(c, e, dest), dest) : a.add(c, e);
    if (op == "neg") return into ? (a.neg_into(e, dest), dest) : a.neg(e);
    // cast has no _into form: the flat pass is the cast of the inputs' own dense layout.
    return into ? input(d, 1).cast(out_dtype, e) : a.cast(out_dtype, e);
  };
  if (need_warmup()) (void)run();
  for (auto _ : state) {
    Tensor r = run();
    benchmark::DoNotOptimize(r);
  }
  const int arrays = op == "add" || op == "add1" ? 3 : 2;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * arrays * kN *
                          static_cast<std::int64_t>(tensora::size_of(d)));
}

const bool registered = [] {
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::C128})
    for (const char* op : {"add", "add1", "neg", "cast"})
      for (int th : kThreadCounts)
        for (bool into : {false, true})
          add_row(row_name(std::string("Transposed") + static_cast<char>(op[0] - 'a' + 'A') + (op + 1), "tensora",
                           short_name(d), "4096x4096T",
                           into ? "into" : "alloc", th),
                  [=](benchmark::State& s) { run_case(s, op, d, into, th); });
  return true;
}();

}  // namespace
}  // namespace bench
