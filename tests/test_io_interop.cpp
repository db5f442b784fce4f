// Interoperability with NumPy (Debian's python3-numpy) and an independent safetensors
// reader/writer (Python json + struct), through the scripts in tests/io/.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "io/io_test_support.hpp"
#include "tensora/io.hpp"

namespace {

using namespace tensora_io_test;
namespace io = tensora::io;

// tests/io/interop.py. __FILE__ may be relative to the build directory (Ninja), so it is also
// tried against the test binary's ancestors (the binary lives in <build>/tests/).
std::filesystem::path find_script() {
  const std::filesystem::path rel = std::filesystem::path(__FILE__).parent_path() / "io" / "interop.py";
  if (rel.is_absolute()) return rel;
  std::error_code ec;
  for (auto dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / rel)) return std::filesystem::weakly_canonical(dir / rel);
    if (dir == dir.parent_path()) break;
  }
  return std::filesystem::absolute(rel);
}
const std::filesystem::path kScript = find_script();
constexpr const char* kPython = "/usr/bin/python3";

// Runs the helper; returns its exit status and output.
int run(const std::string& cmd, const std::filesystem::path& dir, std::string& output) {
  const std::string line = std::string(kPython) + " " + kScript.string() + " " + cmd + " " + dir.string() + " 2>&1";
  FILE* p = ::popen(line.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  return ::pclose(p);
}

bool have_numpy() {
  if (!std::filesystem::exists(kPython)) return false;
  return std::system((std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0;
}

#define REQUIRE_PYTHON(numpy)                                                                      \
  if (!std::filesystem::exists(kPython)) GTEST_SKIP() << kPython << " is missing (scripts/install-deps.sh installs it)"; \
  ASSERT_TRUE(std::filesystem::exists(kScript)) << "helper script not found: " << kScript; \
  if ((numpy) && !have_numpy()) GTEST_SKIP() << "NumPy is missing for " << kPython << " (apt-get install python3-numpy)"

struct Row {
  std::string file, member;
  DType dtype;
  Shape shape;
  char order;
  std::string ref;
};

DType dtype_named(const std::string& n) {
  for (const DType d : tensora::kAllDTypes)
    if (tensora::name(d) == n) return d;
  throw std::runtime_error("unknown dtype " + n);
}

std::vector<Row> manifest(const std::filesystem::path& dir) {
  std::vector<Row> rows;
  std::ifstream f(dir / "MANIFEST");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    std::istringstream ss(line);
    std::string file, member, dtype, shape, order, ref;
    std::getline(ss, file, '\t');
    std::getline(ss, member, '\t');
    std::getline(ss, dtype, '\t');
    std::getline(ss, shape, '\t');
    std::getline(ss, order, '\t');
    std::getline(ss, ref, '\t');
    Row r{file, member, dtype_named(dtype), {}, order[0], ref};
    if (shape != "-") {
      std::istringstream s2(shape);
      std::string e;
      while (std::getline(s2, e, ',')) r.shape.push_back(std::stoll(e));
    }
    rows.push_back(r);
  }
  return rows;
}

std::vector<unsigned char> row_major_bytes(const Tensor& t) {
  std::vector<unsigned char> out(static_cast<std::size_t>(t.numel()) * tensora::size_of(t.dtype()));
  t.copy_to_buffer(out.data(), Layout::RowMajor);
  return out;
}

std::vector<unsigned char> file_bytes(const std::filesystem::path& p) {
  const std::string s = read_file(p);
  return std::vector<unsigned char>(s.begin(), s.end());
}

TEST(IoInterop, NumpyWrittenFilesLoad) {
  REQUIRE_PYTHON(true);
  TempDir dir;
  std::string out;
  ASSERT_EQ(run("numpy-write", dir.path(), out), 0) << out;
  const auto rows = manifest(dir.path());
  ASSERT_GT(rows.size(), 100u);
  std::map<std::string, std::map<std::string, Tensor>> archives;
  int fortran = 0, big_endian = 0, members = 0;
  for (const bool mmap : {true, false}) {
    archives.clear();
    for (const auto& r : rows) {
      const std::string what = r.file + " " + r.member + (mmap ? " mmap" : " read");
      Tensor t;
      if (r.member == "-") {
        t = io::load_npy(dir / r.file, io::LoadOptions{.mmap = mmap});
      } else {
        if (!archives.count(r.file)) archives[r.file] = io::load_npz(dir / r.file, io::LoadOptions{.mmap = mmap});
        ASSERT_EQ(archives[r.file].count(r.member), 1u) << what;
        t = archives[r.file].at(r.member);
        ++members;
      }
      EXPECT_EQ(t.dtype(), r.dtype) << what;
      EXPECT_EQ(t.shape(), r.shape) << what;
      EXPECT_EQ(t.strides(), strides_of(r.shape, r.order == 'F' ? Layout::ColMajor : Layout::RowMajor)) << what;
      EXPECT_EQ(row_major_bytes(t), file_bytes(dir / r.ref)) << what;
      fortran += r.order == 'F';
      big_endian += r.file.find("_BE") != std::string::npos;
    }
  }
  EXPECT_GT(fortran, 10);
  EXPECT_GT(big_endian, 40);
  EXPECT_EQ(members, 2 * 2 * 15);
}

// tensora writes every dtype in each order; NumPy loads them with the right values and order.
TEST(IoInterop, TensoraWrittenFilesLoadInNumpy) {
  REQUIRE_PYTHON(true);
  TempDir dir;
  std::ofstream m(dir / "MANIFEST");
  std::map<std::string, Tensor> stored, deflated;
  int k = 0;
  for (const DType d : tensora::kAllDTypes)
    for (const auto& s : test_shapes())
      for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided}) {
        const Tensor t = make_tensor(d, s, o, static_cast<std::uint32_t>(++k));
        const std::string tag = "t" + std::to_string(k);
        const bool row = t.is_contiguous(Layout::RowMajor);
        const auto ref = row_major_bytes(t);
        write_file(dir / (tag + ".ref"), std::string(ref.begin(), ref.end()));
        io::save_npy(dir / (tag + ".npy"), t);
        std::string shape;
        for (std::size_t i = 0; i < s.size(); ++i) shape += (i ? "," : "") + std::to_string(s[i]);
        if (shape.empty()) shape = "-";
        const std::string rest = std::string(tensora::name(d)) + "\t" + shape + "\t" + (row ? "C" : "F") + "\t" + tag + ".ref\n";
        m << tag << ".npy\t-\t" << rest;
        stored.emplace(tag, t);
        m << "stored.npz\t" << tag << "\t" << rest << "deflated.npz\t" << tag << "\t" << rest;
      }
  m.close();
  io::save_npz(dir / "stored.npz", stored);
  io::save_npz(dir / "deflated.npz", stored, io::NpzOptions{true});
  std::string out;
  EXPECT_EQ(run("numpy-check", dir.path(), out), 0) << out;
  EXPECT_NE(out.find("checked " + std::to_string(3 * k) + " arrays, 0 failures"), std::string::npos) << out;
}

TEST(IoInterop, SafetensorsFromAnIndependentWriterLoad) {
  REQUIRE_PYTHON(false);
  TempDir dir;
  std::string out;
  ASSERT_EQ(run("st-write", dir.path(), out), 0) << out;
  const auto rows = manifest(dir.path());
  ASSERT_EQ(rows.size(), 14u * 4u);
  for (const bool mmap : {true, false}) {
    const auto f = io::load_safetensors(dir / "x.safetensors", io::LoadOptions{.mmap = mmap});
    EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"writer", "json+struct"}, {"quote", "\"q\" \xc3\xa9"}}));
    EXPECT_EQ(f.tensors.size(), rows.size());
    for (const auto& r : rows) {
      ASSERT_EQ(f.tensors.count(r.member), 1u) << r.member;
      const Tensor& t = f.tensors.at(r.member);
      EXPECT_EQ(t.dtype(), r.dtype) << r.member;
      EXPECT_EQ(t.shape(), r.shape) << r.member;
      EXPECT_EQ(t.strides(), tensora::row_major_strides(r.shape)) << r.member;
      EXPECT_EQ(row_major_bytes(t), file_bytes(dir / r.ref)) << r.member;
    }
  }
}

TEST(IoInterop, TensoraSafetensorsParseWithTheIndependentReader) {
  REQUIRE_PYTHON(false);
  TempDir dir;
  std::ofstream m(dir / "MANIFEST");
  std::map<std::string, Tensor> tensors;
  int k = 0;
  for (const DType d : tensora::kAllDTypes) {
    if (d == DType::C128) continue;  // a tensora extension, not in the spec
    for (const auto& s : test_shapes())
      for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided}) {
        const Tensor t = make_tensor(d, s, o, static_cast<std::uint32_t>(++k));
        const std::string tag = "t" + std::to_string(k);
        const auto ref = row_major_bytes(t);
        write_file(dir / (tag + ".ref"), std::string(ref.begin(), ref.end()));
        std::string shape;
        for (std::size_t i = 0; i < s.size(); ++i) shape += (i ? "," : "") + std::to_string(s[i]);
        m << "t.safetensors\t" << tag << "\t" << tensora::name(d) << "\t" << (shape.empty() ? "-" : shape)
          << "\tC\t" << tag << ".ref\n";
        tensors.emplace(tag, t);
      }
  }
  m.close();
  write_file(dir / "metadata.json", "{\"a\": \"1\", \"b\": \"\\u00e9\\n\"}");
  io::save_safetensors(dir / "t.safetensors", tensors, {{"a", "1"}, {"b", "\xc3\xa9\n"}});
  std::string out;
  EXPECT_EQ(run("st-check", dir.path(), out), 0) << out;
  EXPECT_NE(out.find("checked " + std::to_string(k) + " tensors, 0 failures"), std::string::npos) << out;
}

}  // namespace
