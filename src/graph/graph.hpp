// The compiler's view of a graph: placeholders, every node in topological order, and outputs.
// Passes take a Graph and return a new one (nodes are shared, never edited); each pass lives in
// its own file under src/graph/passes/ and has its own before/after IR tests.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/node.hpp"

namespace tensora::graph_detail {

struct Graph {
  std::vector<NodePtr> inputs;   // placeholders in Runtime::run order
  std::vector<NodePtr> nodes;    // topological: a node's inputs come before it
  std::vector<NodePtr> outputs;
};

// Every node the outputs depend on, in topological order (inputs first by creation order).
Graph collect(const std::vector<NodePtr>& outputs, std::vector<NodePtr> inputs);

// The IR text. With `locations`, converts and casts show the line that built them.
std::string print(const Graph& g, bool locations = false);

// Rebuilds a graph node by node: each node first gets its inputs' replacements (a copy is made
// only when one changed), then `rewrite` may return a replacement for it (or null to keep it).
// Outputs follow their replacements. Nodes no longer reachable stay listed (DCE drops them).
Graph rewrite(const Graph& g, const std::function<NodePtr(const NodePtr&)>& rewrite);

// ---- passes ---------------------------------------------------------------------------------
Graph eliminate_dead_code(const Graph& g);
Graph eliminate_common_subexpressions(const Graph& g);
// Evaluates nodes whose inputs are all constants (results up to `max_elements`) on a serial engine.
Graph fold_constants(const Graph& g, std::int64_t max_elements = std::int64_t{1} << 16);
Graph fold_convert_chains(const Graph& g);
Graph fold_transposes(const Graph& g);
Graph fuse_elementwise(const Graph& g);

}  // namespace tensora::graph_detail
