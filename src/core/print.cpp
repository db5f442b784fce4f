// The printer: header with dtype, device and shape, then values laid out by index.
#include <memory>
#include <ostream>
#include <vector>

#include "core/dispatch.hpp"
#include "core/format.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

namespace {

constexpr std::int64_t kMaxShown = 1000;  // beyond this only a summary line is printed

// Prints a matrix block [:, :, rest...] of a column-major value vector.
template <class T>
void print_values(std::ostream& os, const T* v, std::size_t count, const Shape& shape) {
  std::vector<std::string> text(count);
  std::size_t width = 0;
  for (std::size_t i = 0; i < count; ++i) {
    text[i] = format_element(v[i]);
    width = std::max(width, text[i].size());
  }
  auto pad = [&](const std::string& s) { return std::string(width - s.size(), ' ') + s; };
  const std::int64_t rows = shape.size() >= 1 ? shape[0] : 1;
  const std::int64_t cols = shape.size() >= 2 ? shape[1] : 1;
  const std::int64_t block = rows * cols;
  const std::int64_t blocks = block == 0 ? 0 : static_cast<std::int64_t>(count) / block;
  if (shape.empty()) {
    os << "  " << text[0] << "\n";
    return;
  }
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (shape.size() > 2) {
      os << "  [:, :";
      std::int64_t rest = b;
      for (std::size_t d = 2; d < shape.size(); ++d) {
        os << ", " << rest % shape[d];
        rest /= shape[d];
      }
      os << "] =\n";
    }
    if (shape.size() == 1) {
      os << "  [";
      for (std::int64_t i = 0; i < rows; ++i) os << (i ? ", " : "") << text[static_cast<std::size_t>(i)];
      os << "]\n";
      continue;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      os << "  " << (r == 0 ? "[" : " ") << "[";
      for (std::int64_t c = 0; c < cols; ++c)
        os << (c ? ", " : "") << pad(text[static_cast<std::size_t>(b * block + r + c * rows)]);
      os << "]" << (r + 1 == rows ? "]" : ",") << "\n";
    }
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(empty handle)\n";
  os << "Tensor(dtype=" << name(t.dtype()) << ", device=" << t.device()
     << ", shape=" << to_string(t.shape()) << ")";
  if (t.is_meta()) return os << ", meta: no data\n";
  if (t.numel() > kMaxShown) return os << " with " << t.numel() << " elements (not shown)\n";
  if (t.numel() == 0) return os << " with no elements\n";
  os << (t.rank() >= 2 ? ", rows = axis 0, columns = axis 1:\n" : ":\n");
  visit_dtype(t.dtype(), [&]<class T>() {
    const auto n = static_cast<std::size_t>(t.numel());
    std::unique_ptr<T[]> v(new T[n]);  // not std::vector: vector<bool> has no data()
    t.copy_to_buffer(v.get(), Layout::ColMajor);
    print_values(os, v.get(), n, t.shape());
  });
  return os;
}

}  // namespace tensora
