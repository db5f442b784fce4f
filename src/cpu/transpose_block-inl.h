// The in-register transpose of an L x L block (L = lanes of a 128-bit vector), shared by the
// tile transposes (transpose_tile.cpp) and the transposing elementwise tiles (simd.cpp).
// Included once per SIMD target (Highway's -inl.h convention).
#if defined(TENSORA_CPU_TRANSPOSE_BLOCK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORA_CPU_TRANSPOSE_BLOCK_INL_H_
#undef TENSORA_CPU_TRANSPOSE_BLOCK_INL_H_
#else
#define TENSORA_CPU_TRANSPOSE_BLOCK_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
template <class T>
using BlockTag = hn::FixedTag<T, 16 / sizeof(T)>;
template <class T>
inline constexpr int kBlockLanes = static_cast<int>(16 / sizeof(T));

// v[k] holds row k on entry and column k on return. After stage s, vector 2j + h interleaves
// the low (h = 0) or high halves of vectors j and j + L/2 of the previous stage; log2(L) such
// perfect-shuffle stages transpose the block.
template <class T, class V>
HWY_INLINE void TransposeBlock(V* v) {
  const BlockTag<T> d;
  constexpr int L = kBlockLanes<T>;
  for (int stage = 1; stage < L; stage *= 2) {
    V w[L];
    for (int j = 0; j < L / 2; ++j) {
      w[2 * j] = hn::InterleaveLower(d, v[j], v[j + L / 2]);
      w[2 * j + 1] = hn::InterleaveUpper(d, v[j], v[j + L / 2]);
    }
    for (int k = 0; k < L; ++k) v[k] = w[k];
  }
}
#endif

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
