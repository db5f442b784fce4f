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

// A float dtype's significand bits and binary exponent range (subnormals included); a complex
// dtype's parts'.
struct FloatRange {
  int digits, max_exponent, min_exponent;
};
FloatRange float_range(DType d) {
  switch (real_dtype(d)) {
    case DType::F16: return {11, 16, -24};
    case DType::BF16: return {8, 128, -133};
    case DType::F32: return {24, 128, -149};
    default: return {53, 1024, -1074};  // F64
  }
}
// An integer dtype's value bits, its sign not counted.
int value_bits(DType d) { return 8 * static_cast<int>(size_of(d)) - (kind(d) == DTypeKind::SignedInt ? 1 : 0); }

// Whether every value of `from` converts to `to` without change (a complex value to a complex
// one: both parts).
bool converts_exactly(DType from, DType to) {
  if (from == to || from == DType::Bool) return true;
  if (to == DType::Bool || (is_complex(from) && !is_complex(to))) return false;  // complex: the imaginary part
  if (is_integer(from)) {
    if (is_inexact(to)) return value_bits(from) <= float_range(to).digits;  // its bits fit the significand
    return value_bits(from) <= value_bits(to) && (kind(from) == DTypeKind::UnsignedInt || kind(to) == DTypeKind::SignedInt);
  }
  if (!is_inexact(to)) return false;  // a float to an integer
  const FloatRange f = float_range(from), t = float_range(to);
  return f.digits <= t.digits && f.max_exponent <= t.max_exponent && f.min_exponent >= t.min_exponent;
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
    if (is_integer(x->dtype) && is_inexact(inner.dtype) && is_integer(n->dtype) &&
        !converts_exactly(x->dtype, n->dtype))
      return nullptr;
    if (n->dtype == x->dtype) return x;
    const TracedTensor source(x);
    const bool lossy = n->kind == OpKind::Cast || inner.kind == OpKind::Cast;
    return (lossy ? cast_node(source, n->dtype, n->where) : convert_node(source, n->dtype, n->where)).node();
  });
}

}  // namespace tensora::graph_detail
