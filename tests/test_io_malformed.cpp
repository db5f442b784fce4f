// Hostile and broken files: each class of damage is ErrorKind::IoError naming the file and
// saying what is wrong, never a crash, an over-read or a huge allocation.
#include <gtest/gtest.h>

#include <cstring>

#include "io/io_test_support.hpp"
#include "tensora/io.hpp"

namespace {

using namespace tensora_io_test;
namespace io = tensora::io;

// Runs `f` and checks it fails with IoError naming `path` and containing `problem`.
template <class F>
void expect_io_error(F&& f, const std::filesystem::path& path, const std::string& problem) {
  try {
    f();
  } catch (const tensora::Error& e) {
    EXPECT_EQ(e.kind(), tensora::ErrorKind::IoError) << e.what();
    const std::string msg(e.message());
    EXPECT_NE(msg.find(path.string()), std::string::npos) << "message lacks the file: " << msg;
    EXPECT_NE(msg.find(problem), std::string::npos) << "expected \"" << problem << "\" in: " << msg;
    ASSERT_TRUE(std::holds_alternative<tensora::IoError>(e.detail())) << msg;
    EXPECT_EQ(std::get<tensora::IoError>(e.detail()).path, path.string());
    EXPECT_NE(std::get<tensora::IoError>(e.detail()).problem.find(problem), std::string::npos);
    return;
  }
  ADD_FAILURE() << "no error for " << path << " (expected: " << problem << ")";
}

// A .npy file: preamble (version 1.0 unless told) + header dict + raw data.
std::string npy(const std::string& dict, const std::string& data = "", int major = 1) {
  std::string h = dict;
  const std::size_t pre = major == 1 ? 10 : 12;
  h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < pre - 8; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  return out + h + data;
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

// Both loading paths must reject the file the same way.
void expect_npy_error(const TempDir& dir, const std::string& bytes, const std::string& problem) {
  const auto path = dir / "bad.npy";
  write_file(path, bytes);
  for (const bool mmap : {true, false})
    expect_io_error([&] { io::load_npy(path, io::LoadOptions{.mmap = mmap}); }, path, problem);
}

TEST(IoMalformedNpy, WrongMagicOrVersion) {
  TempDir dir;
  expect_npy_error(dir, "PK\x03\x04 not numpy at all", "wrong magic");
  expect_npy_error(dir, "", "wrong magic");
  std::string v9 = npy(dict("<f4", "(1,)"), std::string(4, '\0'));
  v9[6] = 9;
  expect_npy_error(dir, v9, "unsupported .npy format version 9.0");
  std::string minor = npy(dict("<f4", "(1,)"), std::string(4, '\0'));
  minor[7] = 1;
  expect_npy_error(dir, minor, "unsupported .npy format version 1.1");
}

TEST(IoMalformedNpy, HeaderLengthPastTheEnd) {
  TempDir dir;
  std::string f = npy(dict("<f4", "(1,)"));
  f[8] = '\xff';
  f[9] = '\x7f';
  expect_npy_error(dir, f, "header length 32767 runs past the end of the file");
  std::string v2 = npy(dict("<f4", "(1,)"), "", 2);
  v2[11] = '\x7f';
  expect_npy_error(dir, v2, "runs past the end of the file");
  expect_npy_error(dir, std::string("\x93NUMPY\x02\x00\x01\x00\x00", 11), "truncated .npy header");
}

TEST(IoMalformedNpy, TruncatedData) {
  TempDir dir;
  expect_npy_error(dir, npy(dict("<f8", "(2, 3)"), std::string(47, '\0')),
                   "truncated data: shape [2, 3] needs 48 bytes, the file has 47");
  expect_npy_error(dir, npy(dict("<f8", "(2, 3)")), "needs 48 bytes, the file has 0");
}

TEST(IoMalformedNpy, ShapesThatOverflowOrExceedTheFile) {
  TempDir dir;
  expect_npy_error(dir, npy(dict("<f8", "(4294967296, 4294967296)")), "more elements than fit in 64 bits");
  expect_npy_error(dir, npy(dict("<f8", "(4611686018427387904,)")), "byte size of shape");
  expect_npy_error(dir, npy(dict("<f8", "(99999999999999999999,)")), "overflows 64 bits");
  expect_npy_error(dir, npy(dict("<u1", "(1000000000000,)"), "x"), "needs 1000000000000 bytes");
  expect_npy_error(dir, npy(dict("<f4", "(-1,)")), "non-negative integer");
  // Zero elements, but strides past int64 (found by fuzz_npy): refused, not overflowed.
  expect_npy_error(dir, npy(dict("<f2", "(0, 300080799758, 30799758, 35, 3)"), "x"),
                   "the strides of shape [0, 300080799758, 30799758, 35, 3] overflow 64 bits");
}

TEST(IoMalformedNpy, ObjectAndUnsupportedDTypesAreRefused) {
  TempDir dir;
  // A pickle payload after an object header must never be looked at, let alone run.
  expect_npy_error(dir, npy(dict("|O", "(1,)"), "\x80\x04\x95 cos\nsystem\n"), "object arrays (pickled Python objects) are never loaded");
  expect_npy_error(dir, npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
                   "structured (record) dtypes are not supported");
  expect_npy_error(dir, npy(dict("<U3", "(1,)")), "unsupported dtype '<U3'");
  expect_npy_error(dir, npy(dict("<f16", "(1,)")), "unsupported dtype '<f16'");
  expect_npy_error(dir, npy(dict("<M8", "(1,)")), "unsupported dtype '<M8'");
  expect_npy_error(dir, npy(dict("<V8", "(1,)")), "unsupported dtype '<V8'");
}

TEST(IoMalformedNpy, BadHeaderSyntax) {
  TempDir dir;
  expect_npy_error(dir, npy("{'descr': '<f4', 'fortran_order': False}"), "lacks one of");
  expect_npy_error(dir, npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}"), "duplicate key 'descr'");
  expect_npy_error(dir, npy("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}"), "fortran_order must be True or False");
  expect_npy_error(dir, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"), "unexpected key 'x'");
  expect_npy_error(dir, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}"), "expected ',' or ')'");
  expect_npy_error(dir, npy("['descr']"), "expected '{'");
  expect_npy_error(dir, npy("{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk"), "unexpected text after");
  expect_npy_error(dir, npy("{'descr': '<f4"), "malformed .npy header");
}

TEST(IoMalformedNpy, BigEndianLoadsConverted) {
  TempDir dir;
  const std::string data("\x00\x00\x00\x01\x00\x00\x01\x00", 8);  // 1 and 256, big-endian
  const auto path = dir / "be.npy";
  write_file(path, npy(dict(">i4", "(2,)"), data));
  for (const bool mmap : {true, false})
    EXPECT_EQ(io::load_npy(path, io::LoadOptions{.mmap = mmap}).to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 256}));
  const float one = 1.0f;
  std::string c(8, '\0');  // big-endian complex64 (1 + 1j): each part swapped on its own
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 4; ++i) c[static_cast<std::size_t>(k * 4 + i)] = reinterpret_cast<const char*>(&one)[3 - i];
  write_file(path, npy(dict(">c8", "()"), c));
  EXPECT_EQ(io::load_npy(path).item<std::complex<float>>(), std::complex<float>(1, 1));
}

TEST(IoMalformedNpy, MissingFileAndDirectory) {
  TempDir dir;
  expect_io_error([&] { io::load_npy(dir / "none.npy"); }, dir / "none.npy", "cannot open the file");
  expect_io_error([&] { io::load_npy(dir.path()); }, dir.path(), "not a regular file");
}

// ---- safetensors ----------------------------------------------------------------------

std::string st(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

void expect_st_error(const TempDir& dir, const std::string& bytes, const std::string& problem) {
  const auto path = dir / "bad.safetensors";
  write_file(path, bytes);
  for (const bool mmap : {true, false})
    expect_io_error([&] { io::load_safetensors(path, io::LoadOptions{.mmap = mmap}); }, path, problem);
}

TEST(IoMalformedSafetensors, TruncatedAndLyingHeaderLength) {
  TempDir dir;
  expect_st_error(dir, "\x05\x00\x00", "shorter than the 8-byte header length");
  std::string f = st("{}");
  f[0] = 100;
  expect_st_error(dir, f, "header length 100 runs past the end of the file");
  std::string huge = st("{}");
  huge[7] = 1;
  expect_st_error(dir, huge, "exceeds the 100 MB limit");
}

TEST(IoMalformedSafetensors, BadJson) {
  TempDir dir;
  expect_st_error(dir, st("{\"a\": }"), "bad JSON");
  expect_st_error(dir, st("{\"a\":{}"), "bad JSON");
  expect_st_error(dir, st("[1, 2]"), "not a JSON object");
  expect_st_error(dir, st("{} x"), "unexpected text after the JSON value");
  expect_st_error(dir, st("{\"a\":\"\xff\"}"), "invalid UTF-8");
  expect_st_error(dir, st("{\"a\":\"\\ud800\"}"), "lone high surrogate");
  expect_st_error(dir, st("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"), "nesting deeper than 64");
  expect_st_error(dir, st("{\"a\":01}"), "bad JSON");
}

TEST(IoMalformedSafetensors, DuplicateNamesAndBadMetadata) {
  TempDir dir;
  const std::string t = "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}";
  expect_st_error(dir, st("{\"a\":" + t + ",\"a\":" + t + "}", "xx"), "duplicate key \"a\"");
  expect_st_error(dir, st("{\"__metadata__\":{\"k\":1}}"), "__metadata__ value of \"k\" is not a string");
  expect_st_error(dir, st("{\"__metadata__\":[\"k\"]}"), "__metadata__ is not a JSON object");
  expect_st_error(dir, st("{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}"), "duplicate key \"k\"");
}

TEST(IoMalformedSafetensors, EntriesThatLie) {
  TempDir dir;
  const auto entry = [](const std::string& dtype, const std::string& shape, const std::string& offs) {
    return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offs + "}";
  };
  expect_st_error(dir, st("{\"a\":" + entry("F32", "[2]", "[0,4]") + "}", "1234"), "span 4 bytes, shape [2] of F32 needs 8");
  expect_st_error(dir, st("{\"a\":" + entry("F32", "[1]", "[0,4]") + "}", "12"), "runs past the end of the file");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[4]", "[0,4]") + ",\"b\":" + entry("U8", "[4]", "[2,6]") + "}", "123456"), "overlaps another tensor");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[2]", "[2,4]") + "}", "1234"), "has a hole before tensor \"a\"");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[2]", "[0,2]") + "}", "1234"), "2 bytes after the last tensor");
  expect_st_error(dir, st("{\"a\":" + entry("F64", "[4294967296,4294967296]", "[0,0]") + "}"), "more elements than fit in 64 bits");
  expect_st_error(dir, st("{\"a\":" + entry("F64", "[-1]", "[0,0]") + "}"), "not a non-negative 64-bit integer");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[0,4294967296,4294967296]", "[0,0]") + "}"), "overflow 64 bits");
  expect_st_error(dir, st("{\"a\":" + entry("F64", "[1.5]", "[0,0]") + "}"), "not a non-negative 64-bit integer");
  expect_st_error(dir, st("{\"a\":" + entry("F8_E4M3", "[1]", "[0,1]") + "}", "1"), "unsupported dtype \"F8_E4M3\"");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[1]", "[1,0]") + "}", "1"), "end before they begin");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "[1]", "[0]") + "}", "1"), "not a pair of non-negative integers");
  expect_st_error(dir, st("{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", "1"), "exactly the keys dtype, shape and data_offsets");
  expect_st_error(dir, st("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":0}}", "1"), "exactly the keys");
  expect_st_error(dir, st("{\"a\":7}"), "the entry is not a JSON object");
  expect_st_error(dir, st("{\"a\":" + entry("U8", "7", "[0,1]") + "}", "1"), "shape is not an array");
}

// ---- npz ------------------------------------------------------------------------------

void expect_npz_error(const TempDir& dir, const std::string& bytes, const std::string& problem) {
  const auto path = dir / "bad.npz";
  write_file(path, bytes);
  for (const bool mmap : {true, false})
    expect_io_error([&] { io::load_npz(path, io::LoadOptions{.mmap = mmap}); }, path, problem);
}

std::string good_npz(const TempDir& dir, bool compress) {
  const auto path = dir / "good.npz";
  io::save_npz(path, {{"a", Tensor::from_vec_col_major<float>({3}, {1, 2, 3})},
                      {"b", Tensor::from_vec_col_major<float>({2}, {4, 5})}},
               io::NpzOptions{compress});
  return read_file(path);
}

void put32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::size_t central(const std::string& zip) { return zip.find("PK\x01\x02"); }

TEST(IoMalformedNpz, NotAZipOrTruncated) {
  TempDir dir;
  expect_npz_error(dir, "hello", "not a zip archive");
  const std::string z = good_npz(dir, false);
  expect_npz_error(dir, z.substr(0, z.size() / 2), "no end of central directory record");
  std::string cd_out = z;
  put32(cd_out, z.size() - 6, 0x7fffffff);  // central directory offset past the end
  expect_npz_error(dir, cd_out, "central directory lies outside the file");
}

TEST(IoMalformedNpz, DuplicateAndForeignMembers) {
  TempDir dir;
  std::string z = good_npz(dir, false);
  for (std::size_t at = z.find("b.npy"); at != std::string::npos; at = z.find("b.npy")) z[at] = 'a';
  expect_npz_error(dir, z, "duplicate member name \"a.npy\"");
  std::string txt = good_npz(dir, false);
  for (std::size_t at = txt.find("b.npy"); at != std::string::npos; at = txt.find("b.npy")) txt.replace(at, 5, "b.txt");
  expect_npz_error(dir, txt, "member \"b.txt\" is not a .npy file");
}

TEST(IoMalformedNpz, MethodsEncryptionAndCrc) {
  TempDir dir;
  std::string m = good_npz(dir, false);
  m[central(m) + 10] = 12;  // bzip2
  expect_npz_error(dir, m, "compression method 12");
  std::string enc = good_npz(dir, false);
  enc[central(enc) + 8] = 1;
  expect_npz_error(dir, enc, "is encrypted");
  std::string crc = good_npz(dir, true);
  put32(crc, central(crc) + 16, 0xdeadbeef);
  expect_npz_error(dir, crc, "CRC-32 mismatch in member \"a.npy\"");
}

TEST(IoMalformedNpz, SizesThatLie) {
  TempDir dir;
  std::string big = good_npz(dir, true);
  put32(big, central(big) + 24, 0xfffffff0u);  // a 4 GB claim from a few compressed bytes
  expect_npz_error(dir, big, "impossible deflate ratio");
  std::string longer = good_npz(dir, true);
  put32(longer, central(longer) + 24, 200);  // more than the stream holds
  expect_npz_error(dir, longer, "corrupt or truncated deflate data");
  std::string shorter = good_npz(dir, true);
  put32(shorter, central(shorter) + 24, 130);  // a.npy is 140 bytes  // less than the stream holds
  expect_npz_error(dir, shorter, "more than its declared size");
  std::string stored = good_npz(dir, false);
  put32(stored, central(stored) + 20, 0x00ffffff);
  put32(stored, central(stored) + 24, 0x00ffffff);
  expect_npz_error(dir, stored, "runs past the start of the central directory");
  std::string overlap = good_npz(dir, false);
  const std::size_t second = central(overlap) + 46 + 5;  // the second entry ("b.npy")
  put32(overlap, second + 42, 0);  // its local header offset: the first member's
  expect_npz_error(dir, overlap, "members overlap");
}

TEST(IoMalformedNpz, BadNpyInsideAMember) {
  TempDir dir;
  // Build an archive whose member holds an object array: saved through tensora as U8 bytes,
  // then the descr patched in place (same length, so the zip stays consistent).
  std::string z = good_npz(dir, false);
  const std::size_t at = z.find("'<f4'");
  z.replace(at, 5, "'|O' ");
  expect_npz_error(dir, z, "object arrays (pickled Python objects) are never loaded");
}

}  // namespace
