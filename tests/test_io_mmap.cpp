// Zero-copy loads: a mapped tensor is a view of the file's pages, keeps the mapping alive,
// and writing through it never changes the file; mmap = false reads into owned memory.
#include <gtest/gtest.h>

#include <fstream>

#include "core/storage.hpp"
#include "io/io_test_support.hpp"
#include "tensora/io.hpp"

namespace {

using namespace tensora_io_test;
namespace io = tensora::io;

// Overwrites bytes of a file in place (no rename: the same inode, as a mapping sees it).
void patch_file(const std::filesystem::path& p, std::size_t offset, const std::string& bytes) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string float_bytes(float v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

TEST(IoMmap, NpyLoadIsAViewOfTheFile) {
  TempDir dir;
  const auto path = dir / "m.npy";
  io::save_npy(path, Tensor::from_vec_col_major<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  const Tensor mapped = io::load_npy(path);
  const Tensor owned = io::load_npy(path, io::LoadOptions{.mmap = false});
  EXPECT_EQ(mapped.strides(), (tensora::Strides{1, 2}));  // fortran_order: column-major view
  patch_file(path, 128, float_bytes(42.0f));  // the header is 128 bytes: element 0
  EXPECT_EQ(mapped.to_vec<float>()[0], 42.0f);  // the mapping sees the file's page
  EXPECT_EQ(owned.to_vec<float>()[0], 1.0f);
}

TEST(IoMmap, RowMajorFileLoadsAsRowMajorView) {
  TempDir dir;
  const auto path = dir / "r.npy";
  // The transpose of a column-major [3, 2] is a row-major [2, 3]: saved as C order.
  const Tensor t = Tensor::from_vec_col_major<std::int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}).transpose();
  ASSERT_EQ(t.strides(), (tensora::Strides{3, 1}));
  io::save_npy(path, t);
  const Tensor back = io::load_npy(path);
  EXPECT_EQ(back.strides(), (tensora::Strides{3, 1}));
  EXPECT_EQ(back.to_vec<std::int32_t>(), t.to_vec<std::int32_t>());
  EXPECT_EQ(back.to_vec_row_major<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(IoMmap, TensorsOutliveTheFileAndTheMap) {
  TempDir dir;
  const auto path = dir / "a.npz";
  io::save_npz(path, {{"x", Tensor::from_vec_col_major<double>({3}, {1, 2, 3})},
                      {"y", Tensor::from_vec_col_major<double>({2}, {4, 5})}});
  Tensor y;
  {
    auto all = io::load_npz(path);
    y = all.at("y");
  }
  std::filesystem::remove(path);  // the mapping keeps the pages
  EXPECT_EQ(y.to_vec<double>(), (std::vector<double>{4, 5}));
}

TEST(IoMmap, WritingThroughAMappedTensorLeavesTheFileAlone) {
  TempDir dir;
  const auto path = dir / "w.safetensors";
  io::save_safetensors(path, {{"w", Tensor::from_vec_row_major<float>({2}, {1, 2})}});
  const std::string before = read_file(path);
  const Tensor w = io::load_safetensors(path).tensors.at("w");
  auto eng = tensora::CpuEngine::serial();
  w.add_into(w, eng, w);  // copy-on-write pages: private to this process
  EXPECT_EQ(w.to_vec<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(io::load_safetensors(path).tensors.at("w").to_vec<float>(), (std::vector<float>{1, 2}));
}

TEST(IoMmap, StoredNpzMembersWrittenByTensoraAreMappedZeroCopy) {
  TempDir dir;
  const auto path = dir / "z.npz";
  io::save_npz(path, {{"a", Tensor::from_vec_col_major<double>({3}, {1, 2, 3})}});
  const Tensor a = io::load_npz(path).at("a");
  // The padding extra field puts the data on a 64-byte boundary of the file, so the view
  // points into the mapping, 64-byte aligned like the (page-aligned) mapping itself.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.element_ptr()) % 64, 0u);
  const std::string bytes = read_file(path);
  const auto at = bytes.find(std::string(reinterpret_cast<const char*>(a.element_ptr()), 24));
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(at % 64, 0u);
  const double nine = 9.0;
  patch_file(path, at, std::string(reinterpret_cast<const char*>(&nine), 8));
  EXPECT_EQ(a.to_vec<double>()[0], 9.0);
}

TEST(IoMmap, UnalignedDataIsCopiedNotMisaligned) {
  TempDir dir;
  // A hand-made .npy whose header length (v1.0) puts the data at byte 73: unaligned for F64.
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  dict.append(73 - 10 - dict.size() - 1, ' ');
  dict += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dict.size());
  file += '\0';
  file += dict;
  const double vals[2] = {1.5, -2.5};
  file.append(reinterpret_cast<const char*>(vals), 16);
  const auto path = dir / "u.npy";
  write_file(path, file);
  const Tensor t = io::load_npy(path);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.element_ptr()) % alignof(double), 0u);
  EXPECT_EQ(t.to_vec<double>(), (std::vector<double>{1.5, -2.5}));
}

TEST(IoMmap, SavesAreAtomicAndLeaveNoTemporaryFiles) {
  TempDir dir;
  const auto path = dir / "s.npy";
  io::save_npy(path, Tensor::from_vec_col_major<float>({1}, {1}));
  const Tensor old = io::load_npy(path);  // maps the first file
  io::save_npy(path, Tensor::from_vec_col_major<float>({1}, {2}));
  EXPECT_EQ(old.to_vec<float>()[0], 1.0f);  // rename: the old inode is untouched
  EXPECT_EQ(io::load_npy(path).to_vec<float>()[0], 2.0f);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
  // A failing save (no such directory) is an IoError naming the file.
  const auto bad = dir / "missing" / "x.npy";
  try {
    io::save_npy(bad, Tensor::from_vec_col_major<float>({1}, {1}));
    FAIL() << "no error";
  } catch (const tensora::Error& e) {
    EXPECT_EQ(e.kind(), tensora::ErrorKind::IoError);
    EXPECT_NE(std::string(e.message()).find(bad.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.message()).find("temporary file"), std::string::npos) << e.what();
    ASSERT_TRUE(std::holds_alternative<tensora::IoError>(e.detail()));
    EXPECT_EQ(std::get<tensora::IoError>(e.detail()).path, bad.string());
  }
}

}  // namespace
