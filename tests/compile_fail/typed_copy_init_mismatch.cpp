// expect: conversion from .*TypedTensor<double>.* to non-scalar type .*TypedTensor<float>
// Initializing a TypedTensor<float> from a TypedTensor<double> does not compile.
#include <tensora/tensora.hpp>

int main() {
  using namespace tensora;
  TypedTensor<double> d = TypedTensor<double>::zeros({2});
  TypedTensor<float> f = d;
  (void)f;
}
