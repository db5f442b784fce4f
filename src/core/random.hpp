// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
// a counter-based generator, so element i of a random tensor is a pure function of
// (seed, i) and any split of the work over threads gives the same values.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace tensora {

inline std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> ctr,
                                                  std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * ctr[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * ctr[2];
    ctr = {static_cast<std::uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    key[0] += kW0;
    key[1] += kW1;
  }
  return ctr;
}

inline std::array<std::uint32_t, 4> philox_block(std::uint64_t seed, std::uint64_t index) {
  return philox4x32_10({static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), 0, 0},
                       {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

// 53 random bits -> [0, 1).
inline double unit_double(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

inline double philox_uniform(std::uint64_t seed, std::uint64_t index) {
  const auto r = philox_block(seed, index);
  return unit_double(r[0], r[1]);
}

// Box-Muller on the block's two uniforms; 1 - u keeps the log argument in (0, 1].
inline double philox_normal(std::uint64_t seed, std::uint64_t index) {
  const auto r = philox_block(seed, index);
  const double u1 = 1.0 - unit_double(r[0], r[1]);
  const double u2 = unit_double(r[2], r[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace tensora
