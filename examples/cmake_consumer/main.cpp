#include <iostream>

#include <tensora/tensora.hpp>

int main() {
  namespace ta = tensora;
  auto t = ta::Tensor::arange(0, 6, {ta::Device::cpu(), ta::DType::F64}).reshape({2, 3});
  double total = 0;
  for (double v : t.to_vec<double>()) total += v;
  std::cout << "consumer: " << ta::name(t.dtype()) << " " << ta::to_string(t.shape())
            << " sum of arange = " << total << "\n";
}
