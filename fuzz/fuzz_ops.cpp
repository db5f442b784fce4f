// Random op programs (docs/testing.md). The input bytes decode into up to three small tensors
// (random dtype, shape with zero-size extents, dense / transposed / negative-step / broadcast
// layout, values with NaN, infinities and signed zeros) and a program of up to eight direct ops
// over them, each step reading any earlier value. The program runs on the serial CPU engine
// until a step throws; that error must be a tensora::Error and the 3-thread and reference
// engines must raise the same kind and message. Every accepted step is then checked:
//   - the 3-thread engine gives the same bits (the whole program, end to end);
//   - the reference engine, step by step from the serial inputs, agrees bitwise or within the
//     tolerances of docs/architecture.md;
//   - the eager front door gives the same bits;
//   - the traced front door, compiled with every pass and without fusion, run on 1 and 3
//     threads, gives the same bits.
// Ops are drawn from the catalog's lists (tensora/op_catalog.hpp), so new rows join in.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ops/elementwise_catalog.hpp"
#include "ops/reduction_catalog.hpp"
#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::Shape;
using ta::Tensor;


[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_ops: %s\n", what.c_str());
  std::abort();
}

// The input, read one byte at a time (zeros once it is used up).
struct Bytes {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
  bool empty() const { return at >= size; }
  std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + next() % (hi - lo + 1); }  // [lo, hi]
};

constexpr DType kDtypes[] = {DType::Bool, DType::I8,  DType::I32, DType::I64,  DType::U8,  DType::U32,
                             DType::F16,  DType::BF16, DType::F32, DType::F64, DType::C64, DType::C128};

double value_of(std::uint8_t b) {
  switch (b) {
    case 250: return std::nan("");
    case 251: return INFINITY;
    case 252: return -INFINITY;
    case 253: return -0.0;
    case 254: return 1e30;
    case 255: return 0.25;
    default: return (b % 17 - 8) * 0.5;
  }
}

Tensor make_values(DType d, const Shape& shape, Bytes& in, ta::Engine& e) {
  const std::int64_t n = ta::numel(shape);
  std::vector<double> re(static_cast<std::size_t>(n)), im(static_cast<std::size_t>(n));
  for (auto& v : re) v = value_of(in.next());
  if (ta::is_complex(d))
    for (auto& v : im) v = value_of(in.next());
  const Tensor r = Tensor::from_vec_col_major(shape, re);
  if (d == DType::Bool) return r.gt(0.0, e);
  if (!ta::is_complex(d)) return r.cast(d, e);
  const Tensor i = Tensor::from_vec_col_major(shape, im).cast(DType::C128, e);
  return r.cast(DType::C128, e).add(i.mul(std::complex<double>(0, 1), e), e).cast(d, e);
}

// A tensor of `shape` in one of four layouts.
Tensor make_input(DType d, const Shape& shape, Bytes& in, ta::Engine& e) {
  const auto layout = in.next() % 4;
  if (layout == 1 && shape.size() >= 2) {  // transposed view
    const Shape rev(shape.rbegin(), shape.rend());
    return make_values(d, rev, in, e).transpose();
  }
  if (layout == 2 && !shape.empty()) {  // every other element, backwards
    Shape big = shape;
    big[0] *= 2;
    return make_values(d, big, in, e).slice(0, std::nullopt, std::nullopt, -2);
  }
  if (layout == 3 && !shape.empty()) {  // broadcast along the first axis
    Shape one = shape;
    one[0] = 1;
    return make_values(d, one, in, e).broadcast_to(shape);
  }
  return make_values(d, shape, in, e);
}

enum class Kind : std::uint8_t {
  Binary, BinaryScalar, Unary, Reduce, AxisOp, Matmul, Transpose, Reshape, Slice, BroadcastTo,
  Cast, Concat, Select, Pad, Count
};

// One decoded step; the arguments are concrete so every front door replays the same call.
struct Step {
  Kind kind = Kind::Binary;
  int op = 0;
  std::size_t a = 0, b = 0, c = 0;  // operands (indices into the value list)
  std::vector<std::int64_t> axes;
  std::int64_t axis = 0, step = 1;
  std::optional<std::int64_t> start, stop;
  Shape shape;
  DType dtype = DType::F32;
  ta::Scalar scalar{0.0};
  std::vector<std::pair<std::int64_t, std::int64_t>> widths;
};

Step decode(Bytes& in, const std::vector<Tensor>& values) {
  Step s;
  s.kind = static_cast<Kind>(in.next() % static_cast<int>(Kind::Count));
  auto pick = [&] { return static_cast<std::size_t>(in.next() % values.size()); };
  s.a = pick();
  s.b = pick();
  s.c = pick();
  const auto rank = static_cast<std::int64_t>(values[s.a].shape().size());
  s.axis = in.in(-rank - 1, rank);  // one out of range on each side
  switch (s.kind) {
    case Kind::Binary: s.op = in.next() % ta::kNumBinaryOps; break;
    case Kind::BinaryScalar: {
      s.op = in.next() % ta::kNumBinaryOps;
      const auto v = in.next();
      if (v & 1) s.scalar = ta::Scalar(static_cast<std::int64_t>(v / 2 % 9) - 4);
      else s.scalar = ta::Scalar(value_of(v / 2));
      break;
    }
    case Kind::Unary: s.op = in.next() % ta::kNumUnaryOps; break;
    case Kind::Reduce:
      s.op = in.next() % ta::kNumReductions;
      for (auto k = in.next() % 3; k > 0; --k) s.axes.push_back(in.in(-rank, rank));
      break;
    case Kind::AxisOp: s.op = in.next() % ta::kNumAxisOps; break;
    case Kind::Reshape: {
      const std::int64_t n = values[s.a].numel();
      switch (in.next() % 4) {
        case 0: s.shape = {n}; break;
        case 1: s.shape = {1, n}; break;
        case 2: s.shape = {-1, 1}; break;
        default: s.shape = {in.in(0, 4), in.in(-1, 4)};
      }
      break;
    }
    case Kind::Slice:
      if (in.next() & 1) s.start = in.in(-5, 5);
      if (in.next() & 1) s.stop = in.in(-5, 5);
      s.step = in.in(-3, 3);  // 0 is an error
      break;
    case Kind::BroadcastTo:
      s.shape = values[s.a].shape();
      s.shape.insert(s.shape.begin(), in.in(0, 3));
      if (!s.shape.empty() && (in.next() & 3) == 0) s.shape.back() = in.in(0, 3);
      break;
    case Kind::Cast: s.dtype = kDtypes[in.next() % std::size(kDtypes)]; break;
    case Kind::Pad:
      for (std::int64_t k = 0; k < rank + (in.next() % 8 == 0 ? 1 : 0); ++k)
        s.widths.emplace_back(in.in(0, 2), in.in(-1, 2));
      break;
    default: break;
  }
  return s;
}

// The front doors, one adapter each: the same step spelled as the door spells it. The
// catalog-driven methods are expanded from the catalog's lists with the door's spelling of a
// call (TENSORA_FUZZ_BINARY(name) and so on, defined by each adapter).
#define TENSORA_FUZZ_BINARY_CASE(name, Enum, ...) case ta::BinaryOp::Enum: return TENSORA_FUZZ_BINARY(name);
#define TENSORA_FUZZ_UNARY_CASE(name, Enum, ...) case ta::UnaryOp::Enum: return TENSORA_FUZZ_UNARY(name);
#define TENSORA_FUZZ_REDUCTION_CASE(name, Enum, accepts, result, ad, form, ...) \
  if (k++ == op) return TENSORA_FUZZ_##form(name);
#define TENSORA_FUZZ_Scan TENSORA_FUZZ_Axis
#define TENSORA_FUZZ_AXIS_OP_CASE(name, ...) if (k++ == op) return TENSORA_FUZZ_Axis(name);
#define TENSORA_FUZZ_CATALOG_METHODS                                                     \
  template <class B>                                                                     \
  T binary(int op, const T& a, const B& b) {                                             \
    switch (static_cast<ta::BinaryOp>(op)) { TENSORA_BINARY_OPS(TENSORA_FUZZ_BINARY_CASE) } \
    fail("bad binary op");                                                               \
  }                                                                                      \
  T unary(int op, const T& a) {                                                          \
    switch (static_cast<ta::UnaryOp>(op)) { TENSORA_UNARY_OPS(TENSORA_FUZZ_UNARY_CASE) }   \
    fail("bad unary op");                                                                \
  }                                                                                      \
  T reduce(int op, const T& a, const std::vector<std::int64_t>& axes, std::int64_t axis) { \
    int k = 0;                                                                           \
    TENSORA_REDUCTIONS(TENSORA_FUZZ_REDUCTION_CASE)                                      \
    fail("bad reduction");                                                               \
  }                                                                                      \
  T axis_op(int op, const T& a, std::int64_t axis) {                                     \
    int k = 0;                                                                           \
    TENSORA_AXIS_OPS(TENSORA_FUZZ_AXIS_OP_CASE)                                          \
    fail("bad axis op");                                                                 \
  }

struct Direct {
  using T = Tensor;
  ta::Engine& e;
#define TENSORA_FUZZ_BINARY(name) a.name(b, e)
#define TENSORA_FUZZ_UNARY(name) a.name(e)
#define TENSORA_FUZZ_Axes(name) a.name(axes, e)
#define TENSORA_FUZZ_Axis(name) a.name(axis, e)
  TENSORA_FUZZ_CATALOG_METHODS
#undef TENSORA_FUZZ_BINARY
#undef TENSORA_FUZZ_UNARY
#undef TENSORA_FUZZ_Axes
#undef TENSORA_FUZZ_Axis
  T matmul(const T& a, const T& b) { return a.matmul(b, e); }
  T transpose(const T& a) { return a.transpose(); }
  T reshape(const T& a, const Shape& s) { return a.reshape(s); }
  T slice(const T& a, const Step& s) { return a.slice(s.axis, s.start, s.stop, s.step); }
  T broadcast_to(const T& a, const Shape& s) { return a.broadcast_to(s); }
  T cast(const T& a, DType d) { return a.cast(d, e); }
  T concat(const T& a, const T& b, std::int64_t axis) { return ta::concat({a, b}, axis, e); }
  T select(const T& p, const T& a, const T& b) { return ta::select(p, a, b, e); }
  T pad(const T& a, const Step& s) { return a.pad(s.widths, e); }
};

struct Eager {
  using T = ta::EagerTensor;
  ta::EagerSession& s;
#define TENSORA_FUZZ_BINARY(name) s.name(a, b)
#define TENSORA_FUZZ_UNARY(name) s.name(a)
#define TENSORA_FUZZ_Axes(name) s.name(a, axes)
#define TENSORA_FUZZ_Axis(name) s.name(a, axis)
  TENSORA_FUZZ_CATALOG_METHODS
#undef TENSORA_FUZZ_BINARY
#undef TENSORA_FUZZ_UNARY
#undef TENSORA_FUZZ_Axes
#undef TENSORA_FUZZ_Axis
  T matmul(const T& a, const T& b) { return s.matmul(a, b); }
  T transpose(const T& a) { return s.transpose(a); }
  T reshape(const T& a, const Shape& sh) { return s.reshape(a, sh); }
  T slice(const T& a, const Step& st) { return s.slice(a, st.axis, st.start, st.stop, st.step); }
  T broadcast_to(const T& a, const Shape& sh) { return s.broadcast_to(a, sh); }
  T cast(const T& a, DType d) { return s.cast(a, d); }
  T concat(const T& a, const T& b, std::int64_t axis) { return s.concat({a, b}, axis); }
  T select(const T& p, const T& a, const T& b) { return s.select(p, a, b); }
  T pad(const T& a, const Step& st) { return s.pad(a, st.widths); }
};

struct Traced {
  using T = ta::TracedTensor;
#define TENSORA_FUZZ_BINARY(name) a.name(b)
#define TENSORA_FUZZ_UNARY(name) a.name()
#define TENSORA_FUZZ_Axes(name) a.name(axes)
#define TENSORA_FUZZ_Axis(name) a.name(axis)
  TENSORA_FUZZ_CATALOG_METHODS
#undef TENSORA_FUZZ_BINARY
#undef TENSORA_FUZZ_UNARY
#undef TENSORA_FUZZ_Axes
#undef TENSORA_FUZZ_Axis
  T matmul(const T& a, const T& b) { return a.matmul(b); }
  T transpose(const T& a) { return a.transpose(); }
  T reshape(const T& a, const Shape& s) { return a.reshape(s); }
  T slice(const T& a, const Step& s) { return a.slice(s.axis, s.start, s.stop, s.step); }
  T broadcast_to(const T& a, const Shape& s) { return a.broadcast_to(s); }
  T cast(const T& a, DType d) { return a.cast(d); }
  T concat(const T& a, const T& b, std::int64_t axis) { return ta::concat({a, b}, axis); }
  T select(const T& p, const T& a, const T& b) { return ta::select(p, a, b); }
  T pad(const T& a, const Step& s) { return a.pad(s.widths); }
};

template <class Door, class T = typename Door::T>
T apply(Door& d, const Step& s, const std::vector<T>& v) {
  const T &a = v[s.a], &b = v[s.b], &c = v[s.c];
  switch (s.kind) {
    case Kind::Binary: return d.binary(s.op, a, b);
    case Kind::BinaryScalar: return d.binary(s.op, a, s.scalar);
    case Kind::Unary: return d.unary(s.op, a);
    case Kind::Reduce: return d.reduce(s.op, a, s.axes, s.axis);
    case Kind::AxisOp: return d.axis_op(s.op, a, s.axis);
    case Kind::Matmul: return d.matmul(a, b);
    case Kind::Transpose: return d.transpose(a);
    case Kind::Reshape: return d.reshape(a, s.shape);
    case Kind::Slice: return d.slice(a, s);
    case Kind::BroadcastTo: return d.broadcast_to(a, s.shape);
    case Kind::Cast: return d.cast(a, s.dtype);
    case Kind::Concat: return d.concat(a, b, s.axis);
    case Kind::Select: return d.select(a, b, c);
    case Kind::Pad: return d.pad(a, s);
    case Kind::Count: break;
  }
  fail("bad step");
}

// ---- comparisons -----------------------------------------------------------------------------
std::vector<std::complex<double>> values_of(const Tensor& t, ta::Engine& e) {
  return t.cast(DType::C128, e).to_vec<std::complex<double>>();
}

std::string describe(const Step& s, std::size_t index) {
  return "step " + std::to_string(index) + " (kind " + std::to_string(static_cast<int>(s.kind)) + ", op " +
         std::to_string(s.op) + ")";
}

std::string to_text(std::complex<double> v) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "(%.17g, %.17g)", v.real(), v.imag());
  return buf;
}

// Same dtype, shape and bits (NaNs of any payload are equal).
void expect_same(const Tensor& got, const Tensor& want, ta::Engine& e, const std::string& what) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    fail(what + ": dtype/shape " + std::string(ta::name(got.dtype())) + " vs " + std::string(ta::name(want.dtype())));
  const Tensor g = got.duplicate(), w = want.duplicate();
  const std::size_t n = static_cast<std::size_t>(g.numel()) * ta::size_of(g.dtype());
  if (n == 0 || std::memcmp(g.element_ptr(), w.element_ptr(), n) == 0) return;
  const auto gv = values_of(g, e), wv = values_of(w, e);
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0; };
  for (std::size_t i = 0; i < gv.size(); ++i)
    if (!same(gv[i].real(), wv[i].real()) || !same(gv[i].imag(), wv[i].imag()))
      fail(what + ": element " + std::to_string(i) + ": " + to_text(gv[i]) + " vs " + to_text(wv[i]));
}

// The reference engine against the CPU engine: docs/architecture.md's tolerances, with an
// absolute part scaled by the inputs' magnitude (a product or sum of large values may cancel).
double tolerance(const Step& s, DType result) {
  if (!ta::is_floating(result) && !ta::is_complex(result)) return 0;
  const bool single = result != DType::F64 && result != DType::C128;
  const bool half = result == DType::F16 || result == DType::BF16;
  switch (s.kind) {
    case Kind::Reduce: case Kind::AxisOp: case Kind::Matmul:
      return half ? 2e-2 : single ? 1e-5 : 1e-12;
    case Kind::Unary: return single ? 1e-6 : 1e-14;  // SIMD exp, log, sin, tanh, ...
    default: return 0;
  }
}

double magnitude(const Tensor& t, ta::Engine& e) {
  double m = 1;
  for (auto v : values_of(t, e))
    if (std::isfinite(std::abs(v))) m = std::max(m, std::abs(v));
  return m;
}

// `loose_nonfinite`: complex products with an infinite or NaN operand. The reference engine
// multiplies with C++'s complex operator (C99 Annex G: inf * (x + 0i) stays infinite), BLAS and
// the blocked kernels with the plain formula, which gives NaN parts (docs/architecture.md):
// both results must then be non-finite, nothing more.
void expect_close(const Tensor& got, const Tensor& want, double tol, double scale, bool loose_nonfinite,
                  ta::Engine& e, const std::string& what) {
  if (tol == 0) return expect_same(got, want, e, what);
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) fail(what + ": dtype/shape");
  const auto gv = values_of(got, e), wv = values_of(want, e);
  auto finite = [](std::complex<double> v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); };
  auto close = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y || std::abs(x - y) <= tol * std::abs(y);
    return std::abs(x - y) <= tol * (std::abs(y) + scale);
  };
  for (std::size_t i = 0; i < gv.size(); ++i) {
    if (loose_nonfinite && !(finite(gv[i]) && finite(wv[i])) && finite(gv[i]) == finite(wv[i])) continue;
    if (!close(gv[i].real(), wv[i].real()) || !close(gv[i].imag(), wv[i].imag()))
      fail(what + ": element " + std::to_string(i) + " of " + std::string(ta::name(got.dtype())) + " " +
           ta::to_string(got.shape()) + ": " + to_text(gv[i]) + " vs " + to_text(wv[i]) + " (tolerance " +
           std::to_string(tol) + ", scale " + std::to_string(scale) + ")");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto serial = ta::CpuEngine::serial();
  static auto threads = ta::CpuEngine::parallel(3);
  static ta::ReferenceEngine reference;
  Bytes in{data, size};

  // Inputs: mostly one dtype (else most programs stop at the first mixed-dtype op).
  std::vector<Tensor> inputs;
  const DType first = kDtypes[in.next() % std::size(kDtypes)];
  for (auto k = 1 + in.next() % 3; k > 0; --k) {
    const DType d = (in.next() & 3) != 0 ? first : kDtypes[in.next() % std::size(kDtypes)];
    Shape shape(static_cast<std::size_t>(in.next() % 4));
    for (auto& x : shape) x = in.in(0, 4);
    inputs.push_back(make_input(d, shape, in, serial));
  }

  // Decode and run on the serial engine until a step throws.
  std::vector<Tensor> values = inputs;
  std::vector<Step> steps;
  Direct on_serial{serial}, on_threads{threads}, on_reference{reference};
  while (steps.size() < 8 && !in.empty()) {
    const Step s = decode(in, values);
    try {
      values.push_back(apply(on_serial, s, values));
      steps.push_back(s);
    } catch (const ta::Error& e) {
      // The op layer checks before any kernel: every engine refuses it the same way.
      for (Direct* other : {&on_threads, &on_reference}) {
        try {
          (void)apply(*other, s, values);
          fail(describe(s, steps.size()) + ": refused on the serial engine only: " + e.what());
        } catch (const ta::Error& o) {
          if (o.kind() != e.kind() || std::string(o.what()) != e.what())
            fail(describe(s, steps.size()) + ": engines refuse differently: " + e.what() + " | " + o.what());
        }
      }
      break;
    }
  }
  if (steps.empty()) return 0;
  const std::size_t first_step = inputs.size();

  // The 3-thread engine, end to end; the reference engine, step by step.
  std::vector<Tensor> on3 = inputs;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    on3.push_back(apply(on_threads, steps[i], on3));
    expect_same(on3.back(), values[first_step + i], serial, describe(steps[i], i) + " on 3 threads");
    const Tensor ref = apply(on_reference, steps[i], values);
    const Tensor& want = values[first_step + i];
    double scale = magnitude(values[steps[i].a], serial);
    if (steps[i].kind == Kind::Matmul) scale *= magnitude(values[steps[i].b], serial) * 8;
    const bool loose = steps[i].kind == Kind::Matmul && ta::is_complex(want.dtype());
    expect_close(ref, want, tolerance(steps[i], want.dtype()), scale, loose, serial,
                 describe(steps[i], i) + " on the reference engine");
  }

  // Eager, on the serial engine.
  ta::EagerRuntime rt;
  rt.with_eager_session(serial, [&](ta::EagerSession& session) {
    std::vector<ta::EagerTensor> ev;
    for (const Tensor& x : inputs) ev.push_back(rt.constant_from(x));
    Eager door{session};
    for (std::size_t i = 0; i < steps.size(); ++i) {
      try {
        ev.push_back(apply(door, steps[i], ev));
      } catch (const ta::Error& e) {
        fail(describe(steps[i], i) + ": eager refuses what direct ran: " + e.what());
      }
      expect_same(ev.back().value(), values[first_step + i], serial, describe(steps[i], i) + " eager");
    }
  });

  // Traced: every pass, then no fusion; 1 and 3 threads.
  std::vector<ta::TracedTensor> tv;
  for (std::size_t k = 0; k < inputs.size(); ++k)
    tv.push_back(ta::TracedTensor::input("x" + std::to_string(k), inputs[k].dtype(), inputs[k].shape()));
  Traced door;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    try {
      tv.push_back(apply(door, steps[i], tv));
    } catch (const ta::Error& e) {
      fail(describe(steps[i], i) + ": traced refuses what direct ran: " + e.what());
    }
  }
  const std::vector<ta::TracedTensor> outputs(tv.begin() + static_cast<std::ptrdiff_t>(first_step), tv.end());
  ta::CompileOptions unfused;
  unfused.fuse_elementwise = false;
  for (const ta::CompileOptions& options : {ta::CompileOptions{}, unfused}) {
    const ta::Program program = ta::GraphCompiler(options).compile(outputs, {tv.begin(), tv.begin() + static_cast<std::ptrdiff_t>(first_step)});
    for (ta::Engine* e : {static_cast<ta::Engine*>(&serial), static_cast<ta::Engine*>(&threads)}) {
      const auto results = ta::Runtime().run(program, *e, inputs);
      for (std::size_t i = 0; i < steps.size(); ++i)
        expect_same(results[i], values[first_step + i], serial,
                    describe(steps[i], i) + (options.fuse_elementwise ? " traced" : " traced unfused") +
                        " on " + std::to_string(e->threads()) + " thread(s)");
    }
  }
  return 0;
}
