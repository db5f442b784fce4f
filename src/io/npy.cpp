#include "io/npy.hpp"

#include <cstring>
#include <optional>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/tensor_bytes.hpp"

namespace tensora::io_detail {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

// NumPy's type string ("<f4"); BF16 has no NumPy name and is written as 2-byte void (docs/io.md).
std::string descr_of(DType d) {
  switch (d) {
    case DType::Bool: return "|b1";
    case DType::I8: return "|i1";
    case DType::I16: return "<i2";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::U8: return "|u1";
    case DType::U16: return "<u2";
    case DType::U32: return "<u4";
    case DType::U64: return "<u8";
    case DType::F16: return "<f2";
    case DType::BF16: return "<V2";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::C64: return "<c8";
    case DType::C128: return "<c16";
  }
  return "";
}

struct Descr {
  DType dtype;
  bool big_endian;
};

std::optional<DType> dtype_of_code(char kind, int size) {
  switch (kind) {
    case 'b': return size == 1 ? std::optional(DType::Bool) : std::nullopt;
    case 'i':
      switch (size) {
        case 1: return DType::I8;
        case 2: return DType::I16;
        case 4: return DType::I32;
        case 8: return DType::I64;
      }
      return std::nullopt;
    case 'u':
      switch (size) {
        case 1: return DType::U8;
        case 2: return DType::U16;
        case 4: return DType::U32;
        case 8: return DType::U64;
      }
      return std::nullopt;
    case 'f':
      switch (size) {
        case 2: return DType::F16;
        case 4: return DType::F32;
        case 8: return DType::F64;
      }
      return std::nullopt;
    case 'c':
      switch (size) {
        case 8: return DType::C64;
        case 16: return DType::C128;
      }
      return std::nullopt;
    case 'V': return size == 2 ? std::optional(DType::BF16) : std::nullopt;
  }
  return std::nullopt;
}

// The Python literal of a .npy header: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view op, const std::filesystem::path& path, std::string_view text)
      : op_(op), path_(path), s_(text) {}

  void parse(std::string& descr, bool& fortran, Shape& shape) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (seen_descr) bad("duplicate key 'descr'");
        seen_descr = true;
        if (peek() == '[') bad("structured (record) dtypes are not supported");
        descr = string_literal();
      } else if (key == "fortran_order") {
        if (seen_order) bad("duplicate key 'fortran_order'");
        seen_order = true;
        fortran = boolean();
      } else if (key == "shape") {
        if (seen_shape) bad("duplicate key 'shape'");
        seen_shape = true;
        shape = tuple();
      } else {
        bad("unexpected key '" + key + "' (a .npy header has descr, fortran_order and shape)");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != '}') bad("expected ',' or '}'");
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) bad("unexpected text after the header dictionary");
    if (!seen_descr || !seen_order || !seen_shape)
      bad("the header lacks one of 'descr', 'fortran_order', 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail(op_, path_, "malformed .npy header: " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_ws();
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' || static_cast<unsigned char>(s_[pos_]) < 0x20) bad("unsupported character in a string");
      out += s_[pos_++];
      if (out.size() > 64) bad("string too long");
    }
    if (pos_ >= s_.size()) bad("unterminated string");
    ++pos_;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("fortran_order must be True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad("a shape extent must be a non-negative integer");
      std::int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v))
          bad("a shape extent overflows 64 bits");
        ++pos_;
      }
      shape.push_back(v);
      if (shape.size() > 64) bad("more than 64 dimensions");
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') bad("expected ',' or ')' in the shape");
    }
    ++pos_;
    return shape;
  }

  std::string_view op_;
  const std::filesystem::path& path_;
  std::string_view s_;
  std::size_t pos_ = 0;
};

Descr parse_descr(std::string_view op, const std::filesystem::path& path, const std::string& d) {
  if (d.size() < 2) fail(op, path, "unsupported dtype '" + d + "'");
  const char order = d[0];
  std::string_view rest(d);
  bool big = false;
  if (order == '<' || order == '>' || order == '|' || order == '=') {
    big = order == '>';
    rest.remove_prefix(1);
  }
  if (rest.empty()) fail(op, path, "unsupported dtype '" + d + "'");
  const char kind = rest[0];
  if (kind == 'O') fail(op, path, "object arrays (pickled Python objects) are never loaded: dtype '" + d + "'");
  int size = 0;
  for (const char c : rest.substr(1)) {
    if (c < '0' || c > '9' || size > 1000) fail(op, path, "unsupported dtype '" + d + "'");
    size = size * 10 + (c - '0');
  }
  const auto dtype = dtype_of_code(kind, size);
  if (!dtype) fail(op, path, "unsupported dtype '" + d + "'");
  return Descr{*dtype, big && size_of(*dtype) > 1};
}

std::uint32_t read_le(const std::byte* p, int n) {
  std::uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

}  // namespace

std::size_t npy_header_length(const std::byte* data, std::size_t size) {
  if (size < 10 || std::memcmp(data, kMagic, kMagicLen) != 0) return 0;
  const auto major = static_cast<std::uint8_t>(data[6]);
  if (major == 1) return 10 + read_le(data + 8, 2);
  if ((major == 2 || major == 3) && size >= 12) return std::size_t{12} + read_le(data + 8, 4);
  return 0;
}

Tensor parse_npy(std::string_view op, const FileBytes& file, std::size_t begin, std::size_t end,
                 const io::LoadOptions& options) {
  const auto& path = file.path;
  const std::size_t size = end - begin;
  const std::byte* p = file.data + begin;
  if (size < 10 || std::memcmp(p, kMagic, kMagicLen) != 0)
    fail(op, path, "not a .npy file (wrong magic; expected \\x93NUMPY)");
  const auto major = static_cast<std::uint8_t>(p[6]);
  const auto minor = static_cast<std::uint8_t>(p[7]);
  if (major < 1 || major > 3 || minor != 0)
    fail(op, path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (size < 8 + len_bytes) fail(op, path, "truncated .npy header");
  const std::size_t header_len = read_le(p + 8, static_cast<int>(len_bytes));
  const std::size_t data_start = 8 + len_bytes + header_len;
  if (header_len > size - 8 - len_bytes)
    fail(op, path, "the header length " + std::to_string(header_len) + " runs past the end of the file");
  std::string_view text(reinterpret_cast<const char*>(p + 8 + len_bytes), header_len);
  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderParser(op, path, text).parse(descr, fortran, shape);
  const Descr d = parse_descr(op, path, descr);
  const std::size_t nbytes = checked_nbytes(op, path, shape, d.dtype);
  if (nbytes > size - data_start)
    fail(op, path, "truncated data: shape " + to_string(shape) + " needs " + std::to_string(nbytes) +
                       " bytes, the file has " + std::to_string(size - data_start) + " after the header");
  return tensor_from_bytes(op, file, begin + data_start, nbytes, d.dtype, shape,
                           fortran ? Layout::ColMajor : Layout::RowMajor, d.big_endian, options);
}

NpyImage npy_image(const Tensor& t) {
  NpyImage img;
  // Row-major when the tensor already is (this covers 0-d, 1-D and zero-size tensors, written
  // as NumPy does); otherwise column-major, copied into that order for other strided views.
  const bool row = t.is_contiguous(Layout::RowMajor);
  const Layout layout = row ? Layout::RowMajor : Layout::ColMajor;
  img.data = bytes_in_order(t, layout, img.scratch);
  img.nbytes = static_cast<std::size_t>(t.numel()) * size_of(t.dtype());
  std::string dict = "{'descr': '" + descr_of(t.dtype()) + "', 'fortran_order': " +
                     (row ? "False" : "True") + ", 'shape': (";
  for (std::size_t i = 0; i < t.shape().size(); ++i) {
    dict += std::to_string(t.shape()[i]);
    if (i + 1 < t.shape().size() || t.shape().size() == 1) dict += ",";
    if (i + 1 < t.shape().size()) dict += " ";
  }
  dict += "), }";
  // Pad with spaces so the preamble + header + '\n' is a multiple of 64 (NumPy's alignment).
  std::size_t pre = 10;
  std::size_t total = (pre + dict.size() + 1 + 63) / 64 * 64;
  if (total - pre > 0xFFFF) {
    pre = 12;
    total = (pre + dict.size() + 1 + 63) / 64 * 64;
  }
  dict.append(total - pre - dict.size() - 1, ' ');
  dict += '\n';
  const std::size_t hl = dict.size();
  img.header.assign(kMagic, kMagicLen);
  img.header += static_cast<char>(pre == 10 ? 1 : 2);
  img.header += '\0';
  for (std::size_t i = 0; i < pre - 8; ++i) img.header += static_cast<char>((hl >> (8 * i)) & 0xFF);
  img.header += dict;
  return img;
}

}  // namespace tensora::io_detail

namespace tensora::io {

void save_npy(const std::filesystem::path& path, const Tensor& tensor) {
  if (!tensor.defined()) io_detail::fail("save_npy", path, "the tensor is empty (default-constructed)");
  if (tensor.is_meta()) io_detail::fail("save_npy", path, "the tensor is a meta tensor (no data to save)");
  const Tensor cpu = tensor.device().kind() == DeviceKind::Cpu ? tensor : tensor.to_device(Device::cpu());
  const auto img = io_detail::npy_image(cpu);
  io_detail::AtomicFile f("save_npy", path);
  f.write(img.header);
  f.write(img.data, img.nbytes);
  f.commit();
}

Tensor load_npy(const std::filesystem::path& path, LoadOptions options) {
  const auto file = io_detail::open_file("load_npy", path, options.mmap);
  return io_detail::parse_npy("load_npy", file, 0, file.size, options);
}

}  // namespace tensora::io
