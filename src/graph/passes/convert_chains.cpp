// Convert-chain folding: x -> A -> B becomes x -> B when the first step keeps every value of x's
// dtype exactly and the second step treats that value as it would treat x's, so that it sees
// x's own value under the same rule. Going up the lattice is not enough: U32 -> C64 rounds
// 4294967295 to 4294967296, which a cast to I32 then saturates to 2147483647, where U32 -> I32
// wraps to -1 (found by fuzz_ops); and even through an exact F64 the cast to I32 saturates what
// an integer cast wraps. A chain with a cast stays a cast and a chain of converts stays a
// convert: folding never turns a lossy change into a lossless one or back. A chain that ends at
// x's own dtype is x itself.
#include "graph/graph.hpp"
#include "graph/ops.hpp"

namespace tensora::graph_detail {

namespace {

bool is_dtype_change(const Node& n) { return n.kind == OpKind::Convert || n.kind == OpKind::Cast; }

// A real dtype's values as a class and a precision: integers by their value bits, floats by
// their significand bits and largest and smallest binary exponents (subnormals included).
struct Values {
  enum Class { Bool, Unsigned, Signed, Float } cls;
  int digits, max_exponent = 0, min_exponent = 0;
};
Values values_of(DType d) {
  switch (d) {
    case DType::Bool: return {Values::Bool, 1};
    case DType::U8: return {Values::Unsigned, 8};
    case DType::U16: return {Values::Unsigned, 16};
    case DType::U32: return {Values::Unsigned, 32};
    case DType::U64: return {Values::Unsigned, 64};
    case DType::I8: return {Values::Signed, 7};
    case DType::I16: return {Values::Signed, 15};
    case DType::I32: return {Values::Signed, 31};
    case DType::I64: return {Values::Signed, 63};
    case DType::F16: return {Values::Float, 11, 16, -24};
    case DType::BF16: return {Values::Float, 8, 128, -133};
    case DType::F32:
    case DType::C64: return {Values::Float, 24, 128, -149};
    default: return {Values::Float, 53, 1024, -1074};  // F64, C128
  }
}

// Whether every value of `from` converts to `to` without change (a complex value to a complex
// one: both parts).
bool converts_exactly(DType from, DType to) {
  if (from == to) return true;
  if (is_complex(from) && !is_complex(to)) return false;  // the imaginary part is dropped
  const Values f = values_of(from), t = values_of(to);
  if (f.cls == Values::Bool) return true;
  switch (t.cls) {
    case Values::Bool: return false;
    case Values::Unsigned: return f.cls == Values::Unsigned && f.digits <= t.digits;
    case Values::Signed: return (f.cls == Values::Unsigned || f.cls == Values::Signed) && f.digits <= t.digits;
    case Values::Float:
      if (f.cls != Values::Float) return f.digits <= t.digits;  // an integer: its bits fit the significand
      return f.digits <= t.digits && f.max_exponent <= t.max_exponent && f.min_exponent >= t.min_exponent;
  }
  return false;
}

}  // namespace

Graph fold_convert_chains(const Graph& g) {
  return rewrite(g, [&](const NodePtr& n) -> NodePtr {
    if (!is_dtype_change(*n)) return nullptr;
    const Node& inner = *n->inputs[0];
    if (!is_dtype_change(inner)) return nullptr;
    const NodePtr& x = inner.inputs[0];
    if (!converts_exactly(x->dtype, inner.dtype)) return nullptr;
    // A float's cast to an integer saturates, an integer's wraps: through a float, an integer
    // that B cannot hold would change rule.
    const auto is_integer = [](DType d) { return d != DType::Bool && !is_floating(d) && !is_complex(d); };
    if (is_integer(x->dtype) && !is_integer(inner.dtype) && is_integer(n->dtype) &&
        !converts_exactly(x->dtype, n->dtype))
      return nullptr;
    if (n->dtype == x->dtype) return x;
    const TracedTensor source(x);
    const bool lossy = n->kind == OpKind::Cast || inner.kind == OpKind::Cast;
    return (lossy ? cast_node(source, n->dtype, n->where) : convert_node(source, n->dtype, n->where)).node();
  });
}

}  // namespace tensora::graph_detail
