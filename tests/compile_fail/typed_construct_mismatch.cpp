// expect: with T = float.* is private within this context
// Direct construction of a TypedTensor<float> from a TypedTensor<double> does not compile
// either: the only constructor from a Tensor is private (use tensor.typed<T>(), which checks).
#include <tensora/tensora.hpp>

int main() {
  using namespace tensora;
  TypedTensor<double> d = TypedTensor<double>::zeros({2});
  TypedTensor<float> f(d);
  (void)f;
}
