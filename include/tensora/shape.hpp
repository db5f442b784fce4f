// Shapes and strides: plain vectors of extents, column-major by default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tensora {

using Shape = std::vector<std::int64_t>;
using Strides = std::vector<std::int64_t>;  // in elements, may be negative or zero

// Product of the extents (1 for a rank-0 shape).
std::int64_t numel(const Shape& shape);
// Dense column-major strides: the first index moves fastest.
Strides col_major_strides(const Shape& shape);
Strides row_major_strides(const Shape& shape);
// "[2, 3]"
std::string to_string(const Shape& shape);

}  // namespace tensora
