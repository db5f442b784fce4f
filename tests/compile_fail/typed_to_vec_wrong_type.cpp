// expect: conversion from .*vector<float.* to non-scalar type .*vector<double.* requested
// TypedTensor<float>::to_vec() returns std::vector<float>; it cannot be taken as vector<double>.
#include <tensora/tensora.hpp>

#include <vector>

int main() {
  using namespace tensora;
  TypedTensor<float> f = TypedTensor<float>::zeros({2});
  std::vector<double> v = f.to_vec();
  (void)v;
}
