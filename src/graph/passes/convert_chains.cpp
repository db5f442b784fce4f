// Convert-chain folding: x -> A -> B becomes x -> B when the first step is exact (a convert, or a
// cast that happens to go up the lattice), because then the second step sees x's own value. A
// chain with a cast stays a cast and a chain of converts stays a convert: folding never turns a
// lossy change into a lossless one or back. A chain that ends at x's own dtype is x itself.
#include "graph/graph.hpp"
#include "graph/ops.hpp"

namespace tensora::graph_detail {

namespace {
bool is_dtype_change(const Node& n) { return n.kind == OpKind::Convert || n.kind == OpKind::Cast; }
}  // namespace

Graph fold_convert_chains(const Graph& g) {
  return rewrite(g, [&](const NodePtr& n) -> NodePtr {
    if (!is_dtype_change(*n)) return nullptr;
    const Node& inner = *n->inputs[0];
    if (!is_dtype_change(inner)) return nullptr;
    const NodePtr& x = inner.inputs[0];
    const bool inner_exact = inner.kind == OpKind::Convert || can_convert(x->dtype, inner.dtype);
    if (!inner_exact) return nullptr;
    if (n->dtype == x->dtype) return x;
    const TracedTensor source(x);
    const bool lossy = n->kind == OpKind::Cast || inner.kind == OpKind::Cast;
    return (lossy ? cast_node(source, n->dtype, n->where) : convert_node(source, n->dtype, n->where)).node();
  });
}

}  // namespace tensora::graph_detail
