// expect: no matching (member )?function for call to .*add
// Adding a TypedTensor<float> to a TypedTensor<double> must not compile: the element type is
// part of the type, so the mix is caught before the program runs.
#include <tensora/tensora.hpp>

int main() {
  namespace ta = tensora;
  auto engine = ta::CpuEngine::serial();
  auto a = ta::TypedTensor<double>::zeros({2});
  auto b = ta::TypedTensor<float>::zeros({2});
  auto c = a.add(b, engine);
  (void)c;
}
