// expect: no match for .*operator=
// Assigning a TypedTensor<float> to a TypedTensor<double> does not compile: the element type
// is part of the type, and there is no conversion between typed handles.
#include <tensora/tensora.hpp>

int main() {
  using namespace tensora;
  TypedTensor<double> d = TypedTensor<double>::zeros({2});
  TypedTensor<float> f = TypedTensor<float>::zeros({2});
  d = f;
}
