// Every dtype x {0-d, zero-size, 1-D, 3-D} x {column-major, row-major, strided view} through
// .npy, .npz (stored and deflate) and safetensors, bit for bit, with and without mmap.
#include <gtest/gtest.h>

#include "io/io_test_support.hpp"
#include "tensora/io.hpp"

namespace {

using namespace tensora_io_test;
namespace io = tensora::io;

std::string label(DType d, const Shape& s, Order o, bool mmap) {
  return std::string(tensora::name(d)) + " " + tensora::to_string(s) + " " + order_name(o) +
         (mmap ? " mmap" : " read");
}

// The element order a file keeps: NumPy's row-major when the tensor is (0-d, 1-D, zero-size
// and row-major tensors), column-major for column-major tensors and other strided views.
Layout npy_layout(const Tensor& t) {
  return t.is_contiguous(Layout::RowMajor) ? Layout::RowMajor : Layout::ColMajor;
}

TEST(IoRoundTrip, NpyEveryDTypeShapeAndOrder) {
  TempDir dir;
  for (const DType d : tensora::kAllDTypes)
    for (const auto& s : test_shapes())
      for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided})
        for (const bool mmap : {true, false}) {
          const Tensor t = make_tensor(d, s, o, static_cast<std::uint32_t>(s.size()) + 7);
          const auto path = dir / "t.npy";
          io::save_npy(path, t);
          const Tensor back = io::load_npy(path, io::LoadOptions{.mmap = mmap});
          const std::string what = label(d, s, o, mmap);
          expect_same(t, back, what);
          EXPECT_EQ(back.strides(), strides_of(s, npy_layout(t))) << what;
        }
}

TEST(IoRoundTrip, NpzEveryDTypeShapeAndOrderStoredAndCompressed) {
  TempDir dir;
  for (const bool compress : {false, true})
    for (const DType d : tensora::kAllDTypes)
      for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided}) {
        std::map<std::string, Tensor> in;
        for (std::size_t i = 0; i < test_shapes().size(); ++i)
          in.emplace("t" + std::to_string(i), make_tensor(d, test_shapes()[i], o, static_cast<std::uint32_t>(i)));
        const auto path = dir / "t.npz";
        io::save_npz(path, in, io::NpzOptions{compress});
        for (const bool mmap : {true, false}) {
          const auto out = io::load_npz(path, io::LoadOptions{.mmap = mmap});
          ASSERT_EQ(out.size(), in.size());
          for (const auto& [name, t] : in) {
            const std::string what = label(d, t.shape(), o, mmap) + (compress ? " deflate " : " stored ") + name;
            ASSERT_EQ(out.count(name), 1u) << what;
            expect_same(t, out.at(name), what);
            EXPECT_EQ(out.at(name).strides(), strides_of(t.shape(), npy_layout(t))) << what;
          }
        }
      }
}

TEST(IoRoundTrip, SafetensorsEveryDTypeShapeAndOrder) {
  TempDir dir;
  for (const DType d : tensora::kAllDTypes)
    for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided}) {
      std::map<std::string, Tensor> in;
      for (std::size_t i = 0; i < test_shapes().size(); ++i)
        in.emplace("t" + std::to_string(i), make_tensor(d, test_shapes()[i], o, static_cast<std::uint32_t>(i)));
      const std::map<std::string, std::string> meta = {{"format", "pt"}, {"note", "\"quoted\" \xc3\xa9\n"}};
      const auto path = dir / "t.safetensors";
      io::save_safetensors(path, in, meta);
      for (const bool mmap : {true, false}) {
        const auto out = io::load_safetensors(path, io::LoadOptions{.mmap = mmap});
        EXPECT_EQ(out.metadata, meta);
        ASSERT_EQ(out.tensors.size(), in.size());
        for (const auto& [name, t] : in) {
          const std::string what = label(d, t.shape(), o, mmap) + " " + name;
          ASSERT_EQ(out.tensors.count(name), 1u) << what;
          expect_same(t, out.tensors.at(name), what);
          // safetensors is row-major by specification.
          EXPECT_EQ(out.tensors.at(name).strides(), tensora::row_major_strides(t.shape())) << what;
        }
      }
    }
}

TEST(IoRoundTrip, MixedDTypesInOneSafetensorsFileStayAligned) {
  TempDir dir;
  std::map<std::string, Tensor> in;
  for (const DType d : tensora::kAllDTypes)
    in.emplace(std::string(tensora::name(d)), make_tensor(d, {3}, Order::ColMajor, 3));
  const auto path = dir / "mixed.safetensors";
  io::save_safetensors(path, in);
  const auto out = io::load_safetensors(path);
  EXPECT_TRUE(out.metadata.empty());
  for (const auto& [name, t] : in) {
    expect_same(t, out.tensors.at(name), name);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(out.tensors.at(name).element_ptr()) %
                  (tensora::is_complex(t.dtype()) ? tensora::size_of(t.dtype()) / 2 : tensora::size_of(t.dtype())),
              0u)
        << name;
  }
}

TEST(IoRoundTrip, LoadsOntoTheRequestedDevice) {
  TempDir dir;
  const Tensor t = Tensor::from_vec_col_major<float>({2, 2}, {1, 2, 3, 4});
  io::save_npy(dir / "d.npy", t);
  const Tensor back = io::load_npy(dir / "d.npy", io::LoadOptions{tensora::Device::cpu(6), true});
  EXPECT_EQ(back.device(), tensora::Device::cpu(6));
  EXPECT_EQ(back.to_vec<float>(), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
