// The control case: correct TypedTensor use must compile with the same command line as the
// compile-fail cases, so a broken command line cannot make every case "pass".
#include <tensora/tensora.hpp>

#include <vector>

int main() {
  using namespace tensora;
  TypedTensor<double> a = TypedTensor<double>::zeros({2, 2});
  TypedTensor<double> b = a.transpose();
  b = a;
  const Tensor erased = a;  // erasure is implicit
  TypedTensor<double> back = erased.typed<double>();
  std::vector<double> v = back.to_vec();
  TypedTensor<float> f = TypedTensor<float>::from_vec_col_major({2}, {1.0f, 2.0f});
  std::vector<float> w = f.to_vec();
  return static_cast<int>(v.size() + w.size());
}
