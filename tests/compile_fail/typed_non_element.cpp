// expect: TypedTensor<T>: T must be one of the 15 tensora element types
// TypedTensor of a type that is not a tensora element type names the rule.
#include <tensora/tensora.hpp>

#include <string>

int main() {
  tensora::TypedTensor<std::string> t;
  (void)t;
}
