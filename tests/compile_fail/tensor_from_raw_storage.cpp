// expect: is private within this context
// A tensor over raw storage is the library's own business (TensorInternals); users create
// tensors, view them, load files or import DLPack.
#include <tensora/tensora.hpp>

#include <memory>

int main() {
  std::shared_ptr<tensora::Storage> storage;
  tensora::Tensor t(storage, {2}, {1}, 0, tensora::DType::F32, tensora::Device::cpu());
  (void)t;
}
