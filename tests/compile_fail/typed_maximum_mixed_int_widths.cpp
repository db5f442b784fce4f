// expect: no matching (member )?function for call to .*maximum
// Element-type mixing is a compile error for every binary op, not only add.
#include <tensora/tensora.hpp>

int main() {
  namespace ta = tensora;
  auto engine = ta::CpuEngine::serial();
  auto a = ta::TypedTensor<std::int32_t>::zeros({2});
  auto b = ta::TypedTensor<std::int64_t>::zeros({2});
  (void)a.maximum(b, engine);
}
