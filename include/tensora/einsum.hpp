// einsum with contraction-order planning. Each pairwise step lowers to dot_general plus views.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

// A planned contraction order and its estimated cost. Operands are numbered as in the call;
// each step contracts two entries of the current list (earlier results are appended at its
// end, as in NumPy's einsum_path).
struct EinsumPath {
  struct Step {
    std::int64_t lhs, rhs;         // positions in the current operand list
    std::vector<std::int64_t> labels;  // labels of the step's result
    double flops;                  // 2 * product of the extents of every label involved
    std::int64_t result_size;      // elements of the intermediate
  };
  std::vector<std::vector<std::int64_t>> inputs;  // labels per operand (ellipsis expanded)
  std::vector<std::int64_t> output;
  std::map<std::int64_t, std::int64_t> extents;  // label id -> extent
  std::vector<Step> steps;
  double flops = 0;              // total of the steps
  double naive_flops = 0;        // one nested loop over every label
  std::int64_t largest_intermediate = 0;
  bool optimal = false;          // exact search (true) or greedy (false)

  std::string to_string() const;
};

std::ostream& operator<<(std::ostream& os, const EinsumPath& path);

// Plans without running: exact search (dynamic programming over subsets) for up to 12
// operands, greedy beyond.
EinsumPath einsum_path(std::string_view subscripts, const std::vector<Shape>& shapes,
                       SourceLocation where = SourceLocation::current());
EinsumPath einsum_path(std::string_view subscripts, const std::vector<Tensor>& operands,
                       SourceLocation where = SourceLocation::current());

// "ij,jk->ik": an explicit output ("->") is required; "..." broadcasts leading axes; a label
// repeated in one operand takes its diagonal; labels missing from the output are summed;
// extent-1 axes broadcast against the other operands.
Tensor einsum(std::string_view subscripts, std::vector<Tensor> operands, Engine& engine,
              SourceLocation where = SourceLocation::current());
// Runs a plan made by einsum_path (the operands must have the planned shapes).
Tensor einsum(const EinsumPath& path, std::vector<Tensor> operands, Engine& engine,
              SourceLocation where = SourceLocation::current());
// The programmatic form: labels are non-negative integers.
Tensor einsum(std::vector<std::vector<std::int64_t>> input_labels, std::vector<std::int64_t> output_labels,
              std::vector<Tensor> operands, Engine& engine, SourceLocation where = SourceLocation::current());

}  // namespace tensora
