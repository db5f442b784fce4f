// A compiled program: the optimized graph as a list of steps over value slots. Each step knows
// which slots die after it, so the runtime drops intermediates as soon as their last reader ran
// and the caching allocator hands their buffers to the next op.
#pragma once

#include <vector>

#include "graph/graph.hpp"

namespace tensora::graph_detail {

struct ProgramImpl {
  struct Step {
    const Node* node;
    std::vector<int> args;     // slots read
    int slot;                  // slot written
    std::vector<int> release;  // slots whose last reader is this step
  };
  Graph graph;
  std::vector<ProgramInput> inputs;
  std::vector<int> input_slots;
  std::vector<Step> steps;
  std::vector<int> output_slots;
  int num_slots = 0;
  Device device = Device::cpu();
};

// Runs the passes selected by `options` in their fixed order.
Graph optimize(Graph g, const CompileOptions& options);

}  // namespace tensora::graph_detail
