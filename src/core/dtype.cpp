#include "tensora/dtype.hpp"

#include <array>
#include <cstdint>
#include <utility>

#include "tensora/device.hpp"

namespace tensora {

std::string_view name(DType d) {
  static constexpr std::array<std::string_view, kNumDTypes> names = {
      "Bool", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "F16", "BF16", "F32", "F64",
      "C64",  "C128"};
  return names[static_cast<std::size_t>(d)];
}

std::string_view name(DTypeKind k) {
  switch (k) {
    case DTypeKind::Bool: return "bool";
    case DTypeKind::SignedInt: return "signed int";
    case DTypeKind::UnsignedInt: return "unsigned int";
    case DTypeKind::Float: return "float";
    case DTypeKind::Complex: return "complex";
  }
  return "unknown";
}

DType real_dtype(DType d) {
  if (d == DType::C64) return DType::F32;
  if (d == DType::C128) return DType::F64;
  return d;
}

DType complex_dtype(DType d) { return d == DType::F64 || d == DType::C128 ? DType::C128 : DType::C64; }

namespace {

constexpr int kNodes = kNumDTypes + 1;  // the 15 dtypes and F*
constexpr int kFloatBottom = kNumDTypes;

constexpr int idx(DType d) { return static_cast<int>(d); }

// The covering relation of docs/dtypes.md, with F* between the integers and F16/BF16.
constexpr std::pair<int, int> kEdges[] = {
    {idx(DType::Bool), idx(DType::U8)},   {idx(DType::U8), idx(DType::U16)},
    {idx(DType::U16), idx(DType::U32)},   {idx(DType::U32), idx(DType::U64)},
    {idx(DType::Bool), idx(DType::I8)},   {idx(DType::I8), idx(DType::I16)},
    {idx(DType::I16), idx(DType::I32)},   {idx(DType::I32), idx(DType::I64)},
    {idx(DType::U8), idx(DType::I16)},    {idx(DType::U16), idx(DType::I32)},
    {idx(DType::U32), idx(DType::I64)},   {idx(DType::U64), kFloatBottom},
    {idx(DType::I64), kFloatBottom},      {kFloatBottom, idx(DType::F16)},
    {kFloatBottom, idx(DType::BF16)},     {idx(DType::F16), idx(DType::F32)},
    {idx(DType::BF16), idx(DType::F32)},  {idx(DType::F32), idx(DType::F64)},
    {idx(DType::F32), idx(DType::C64)},   {idx(DType::F64), idx(DType::C128)},
    {idx(DType::C64), idx(DType::C128)},
};

// up[n] = bit set of every node >= n (the transitive closure of kEdges).
constexpr std::array<std::uint32_t, kNodes> upper_sets() {
  std::array<std::uint32_t, kNodes> up{};
  for (int n = 0; n < kNodes; ++n) up[n] = 1u << n;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [lo, hi] : kEdges) {
      const std::uint32_t merged = up[lo] | up[hi];
      if (merged != up[lo]) {
        up[lo] = merged;
        changed = true;
      }
    }
  }
  return up;
}

// join[a][b]: the unique common upper bound whose own upper set is all common upper bounds.
constexpr std::array<std::array<std::uint8_t, kNodes>, kNodes> join_table() {
  constexpr auto up = upper_sets();
  std::array<std::array<std::uint8_t, kNodes>, kNodes> table{};
  for (int a = 0; a < kNodes; ++a)
    for (int b = 0; b < kNodes; ++b) {
      const std::uint32_t common = up[a] & up[b];
      int least = -1;
      for (int m = 0; m < kNodes; ++m)
        if (up[m] == common) least = m;
      if (least < 0) throw "lattice has no least upper bound";  // fails constant evaluation
      table[a][b] = static_cast<std::uint8_t>(least);
    }
  return table;
}

constexpr auto kJoin = join_table();

}  // namespace

LatticeType join(LatticeType a, LatticeType b) {
  const int j = kJoin[static_cast<std::size_t>(a.index())][static_cast<std::size_t>(b.index())];
  return j == kFloatBottom ? LatticeType::float_bottom() : LatticeType(static_cast<DType>(j));
}

DType promote_types(DType a, DType b) {
  const LatticeType j = join(a, b);
  // Only F* needs a device, and reading TENSORA_DEVICE is not free.
  return j.is_float_bottom() ? Device::default_device().settings().float_dtype : j.resolve(DType::F32);
}

DType promote_types(DType a, DType b, const Device& device) {
  const LatticeType j = join(a, b);
  return j.is_float_bottom() ? device.settings().float_dtype : j.resolve(DType::F32);
}

bool can_convert(DType from, DType to) { return join(from, to) == LatticeType(to); }

}  // namespace tensora
