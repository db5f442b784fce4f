// Saves that cannot be done fail with IoError before the target is touched; the public
// documented spellings (docs/io.md) compile as written.
#include <gtest/gtest.h>

#include "io/io_test_support.hpp"
#include "tensora/dlpack.hpp"
#include "tensora/io.hpp"

namespace {

using namespace tensora_io_test;

template <class F>
void expect_save_error(F&& f, const std::filesystem::path& path, const std::string& problem) {
  try {
    f();
    ADD_FAILURE() << "no error (expected: " << problem << ")";
  } catch (const tensora::Error& e) {
    EXPECT_EQ(e.kind(), tensora::ErrorKind::IoError) << e.what();
    EXPECT_NE(std::string(e.message()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.message()).find(problem), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << path;
  int entries = 0;  // no temporary file left behind either
  for ([[maybe_unused]] const auto& x : std::filesystem::directory_iterator(path.parent_path())) ++entries;
  EXPECT_EQ(entries, 0);
}

TEST(IoSaveErrors, BadTensorsNamesAndMetadata) {
  TempDir dir;
  const Tensor t = Tensor::from_vec_col_major<float>({2}, {1, 2});
  expect_save_error([&] { tensora::io::save_npy(dir / "e.npy", Tensor()); }, dir / "e.npy", "empty (default-constructed)");
  expect_save_error([&] { tensora::io::save_npz(dir / "e.npz", {{"", t}}); }, dir / "e.npz", "a tensor name is empty");
  expect_save_error([&] { tensora::io::save_safetensors(dir / "e.st", {{"__metadata__", t}}); }, dir / "e.st",
                    "\"__metadata__\" is reserved");
  expect_save_error([&] { tensora::io::save_safetensors(dir / "e.st", {{"w", t}}, {{"k", "\xff"}}); }, dir / "e.st",
                    "valid UTF-8");
  expect_save_error([&] { tensora::io::save_safetensors(dir / "e.st", {{"\xc3", t}}); }, dir / "e.st", "valid UTF-8");
}

TEST(IoSaveErrors, PublicSpellingsOfTheDesign) {
  TempDir dir;
  const Tensor t = Tensor::from_vec_col_major<std::int64_t>({2, 2}, {1, 2, 3, 4});
  tensora::io::save_npy(dir / "a.npy", t);
  const Tensor a = tensora::io::load_npy(dir / "a.npy", tensora::io::LoadOptions{tensora::Device::cpu(), /*mmap=*/false});
  tensora::io::save_npz(dir / "a.npz", {{"t", t}}, tensora::io::NpzOptions{/*compress=*/true});
  const std::map<std::string, Tensor> z = tensora::io::load_npz(dir / "a.npz", tensora::io::LoadOptions{});
  tensora::io::save_safetensors(dir / "a.st", {{"t", t}}, {{"k", "v"}});
  const tensora::io::SafetensorsFile f = tensora::io::load_safetensors(dir / "a.st");
  const tensora::io::SafetensorsFile g{f.tensors, f.metadata};
  DLManagedTensorVersioned* v = tensora::to_dlpack(a);
  const Tensor back = tensora::from_dlpack(v);
  DLManagedTensor* u = tensora::to_dlpack_unversioned(z.at("t"));
  const Tensor back2 = tensora::from_dlpack(u);
  for (const Tensor& x : {a, z.at("t"), g.tensors.at("t"), back, back2})
    EXPECT_EQ(x.to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(g.metadata.at("k"), "v");
}

}  // namespace
