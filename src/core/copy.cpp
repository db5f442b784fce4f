#include "core/copy.hpp"

#include <cstring>

#include "core/strided_loop.hpp"

namespace tensora {

namespace {

template <std::size_t Bytes>
struct Chunk {
  unsigned char b[Bytes];
};

template <std::size_t Bytes>
void copy_runs(const StridedLoop<2>& loop) {
  run_strided_loop(loop, [](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
    if (s[0] == static_cast<std::int64_t>(Bytes) && s[1] == static_cast<std::int64_t>(Bytes)) {
      std::memcpy(p[0], p[1], static_cast<std::size_t>(n) * Bytes);
      return;
    }
    using C = Chunk<Bytes>;
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(p[0] + i * s[0], p[1] + i * s[1], sizeof(C));
  });
}

}  // namespace

void copy_strided(const Tensor& src, void* dst_base, const Strides& dst_strides) {
  const auto esize = static_cast<std::int64_t>(size_of(src.dtype()));
  Strides dst_bytes(dst_strides.size()), src_bytes(src.strides().size());
  for (std::size_t d = 0; d < dst_strides.size(); ++d) {
    dst_bytes[d] = dst_strides[d] * esize;
    src_bytes[d] = src.strides()[d] * esize;
  }
  auto loop = make_strided_loop<2>(
      src.shape(),
      {static_cast<char*>(dst_base), static_cast<char*>(const_cast<void*>(src.element_ptr()))},
      {dst_bytes, src_bytes});
  switch (esize) {
    case 1: copy_runs<1>(loop); break;
    case 2: copy_runs<2>(loop); break;
    case 4: copy_runs<4>(loop); break;
    case 8: copy_runs<8>(loop); break;
    default: copy_runs<16>(loop); break;
  }
}

}  // namespace tensora
