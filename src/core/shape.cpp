#include "tensora/shape.hpp"

#include <string>

namespace tensora {

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

Strides col_major_strides(const Shape& shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    s[d] = acc;
    acc *= std::max<std::int64_t>(shape[d], 1);
  }
  return s;
}

Strides row_major_strides(const Shape& shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    s[d] = acc;
    acc *= std::max<std::int64_t>(shape[d], 1);
  }
  return s;
}

std::string to_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d) out += ", ";
    out += std::to_string(shape[d]);
  }
  return out + "]";
}

}  // namespace tensora
