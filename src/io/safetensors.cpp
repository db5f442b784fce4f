#include "io/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/json.hpp"
#include "io/tensor_bytes.hpp"

namespace tensora::io_detail {
namespace {

// The spec's limit on the header, so a hostile length cannot make the parser walk far.
constexpr std::uint64_t kMaxHeader = 100'000'000;

// safetensors' dtype names. C128 has none in the spec: tensora writes "C128" (docs/io.md).
constexpr std::pair<DType, std::string_view> kNames[] = {
    {DType::Bool, "BOOL"}, {DType::I8, "I8"},     {DType::I16, "I16"},   {DType::I32, "I32"},
    {DType::I64, "I64"},   {DType::U8, "U8"},     {DType::U16, "U16"},   {DType::U32, "U32"},
    {DType::U64, "U64"},   {DType::F16, "F16"},   {DType::BF16, "BF16"}, {DType::F32, "F32"},
    {DType::F64, "F64"},   {DType::C64, "C64"},   {DType::C128, "C128"}};

std::string_view st_name(DType d) {
  for (const auto& [dt, n] : kNames)
    if (dt == d) return n;
  return "";
}
std::optional<DType> st_dtype(std::string_view n) {
  for (const auto& [dt, nm] : kNames)
    if (nm == n) return dt;
  return std::nullopt;
}

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin, end;
};

std::uint64_t read_u64_le(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

Entry parse_entry(std::string_view op, const std::filesystem::path& path, const std::string& name,
                  const json::Value& v) {
  const auto bad = [&](const std::string& what) { fail(op, path, "tensor \"" + name + "\": " + what); };
  if (v.type != json::Value::Type::Object) bad("the entry is not a JSON object");
  const json::Value* dt = v.find("dtype");
  const json::Value* shape = v.find("shape");
  const json::Value* offsets = v.find("data_offsets");
  if (dt == nullptr || shape == nullptr || offsets == nullptr || v.members.size() != 3)
    bad("the entry must have exactly the keys dtype, shape and data_offsets");
  if (dt->type != json::Value::Type::String) bad("dtype is not a string");
  const auto dtype = st_dtype(dt->text);
  if (!dtype) bad("unsupported dtype \"" + dt->text + "\"");
  if (shape->type != json::Value::Type::Array) bad("shape is not an array");
  Entry e{name, *dtype, {}, 0, 0};
  for (const auto& x : shape->items) {
    if (x.type != json::Value::Type::Number || !x.is_uint || x.uint > static_cast<std::uint64_t>(INT64_MAX))
      bad("a shape extent is not a non-negative 64-bit integer");
    e.shape.push_back(static_cast<std::int64_t>(x.uint));
  }
  if (offsets->type != json::Value::Type::Array || offsets->items.size() != 2 ||
      !offsets->items[0].is_uint || !offsets->items[1].is_uint)
    bad("data_offsets is not a pair of non-negative integers");
  e.begin = offsets->items[0].uint;
  e.end = offsets->items[1].uint;
  if (e.end < e.begin) bad("data_offsets end before they begin");
  const std::size_t nbytes = checked_nbytes(op, path, e.shape, e.dtype);
  if (e.end - e.begin != nbytes)
    bad("data_offsets span " + std::to_string(e.end - e.begin) + " bytes, shape " + to_string(e.shape) +
        " of " + std::string(dt->text) + " needs " + std::to_string(nbytes));
  return e;
}

}  // namespace

io::SafetensorsFile parse_safetensors(std::string_view op, const FileBytes& file,
                                      const io::LoadOptions& options) {
  const auto& path = file.path;
  if (file.size < 8) fail(op, path, "truncated: shorter than the 8-byte header length");
  const std::uint64_t n = read_u64_le(file.data);
  if (n > kMaxHeader) fail(op, path, "header length " + std::to_string(n) + " exceeds the 100 MB limit");
  if (n > file.size - 8)
    fail(op, path, "header length " + std::to_string(n) + " runs past the end of the file (" +
                       std::to_string(file.size) + " bytes)");
  const std::string_view text(reinterpret_cast<const char*>(file.data + 8), static_cast<std::size_t>(n));
  if (text.empty() || text[0] != '{') fail(op, path, "the header is not a JSON object");
  json::Value header;
  try {
    header = json::parse(text);
  } catch (const json::ParseError& e) {
    fail(op, path, std::string("header: ") + e.what());
  }
  if (header.type != json::Value::Type::Object) fail(op, path, "the header is not a JSON object");

  io::SafetensorsFile out;
  std::vector<Entry> entries;
  for (const auto& [key, v] : header.members) {
    if (key == "__metadata__") {
      if (v.type != json::Value::Type::Object) fail(op, path, "__metadata__ is not a JSON object");
      for (const auto& [mk, mv] : v.members) {
        if (mv.type != json::Value::Type::String)
          fail(op, path, "__metadata__ value of \"" + mk + "\" is not a string");
        out.metadata.emplace(mk, mv.text);
      }
      continue;
    }
    entries.push_back(parse_entry(op, path, key, v));
  }
  // The spec: the byte buffer is entirely indexed, without holes or overlaps.
  const std::uint64_t data_size = file.size - 8 - n;
  std::vector<const Entry*> by_offset;
  for (const auto& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t cursor = 0;
  for (const Entry* e : by_offset) {
    if (e->begin < cursor) fail(op, path, "tensor \"" + e->name + "\" overlaps another tensor's bytes");
    if (e->begin > cursor)
      fail(op, path, "the data buffer has a hole before tensor \"" + e->name + "\" (bytes " +
                         std::to_string(cursor) + " to " + std::to_string(e->begin) + " are not indexed)");
    if (e->end > data_size)
      fail(op, path, "tensor \"" + e->name + "\" runs past the end of the file: data_offsets end at " +
                         std::to_string(e->end) + ", the data buffer has " + std::to_string(data_size) + " bytes");
    cursor = e->end;
  }
  if (cursor != data_size)
    fail(op, path, "the data buffer has " + std::to_string(data_size - cursor) + " bytes after the last tensor");
  for (const auto& e : entries)
    out.tensors.emplace(e.name, tensor_from_bytes(op, file, static_cast<std::size_t>(8 + n + e.begin),
                                                  static_cast<std::size_t>(e.end - e.begin), e.dtype,
                                                  e.shape, Layout::RowMajor, false, options));
  return out;
}

}  // namespace tensora::io_detail

namespace tensora::io {

void save_safetensors(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  constexpr std::string_view op = "save_safetensors";
  // Largest alignment first, then by name (as the reference writer does): with the header
  // padded to 8 bytes every tensor's bytes are aligned for its dtype, so loads are zero-copy.
  std::vector<std::pair<const std::string*, Tensor>> order;
  for (const auto& [name, t] : tensors) {
    if (!t.defined()) io_detail::fail(op, path, "tensor \"" + name + "\" is empty (default-constructed)");
    if (t.is_meta()) io_detail::fail(op, path, "tensor \"" + name + "\" is a meta tensor (no data to save)");
    if (name == "__metadata__") io_detail::fail(op, path, "\"__metadata__\" is reserved and cannot name a tensor");
    order.emplace_back(&name, t.device().kind() == DeviceKind::Cpu ? t : t.to_device(Device::cpu()));
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return io_detail::element_alignment(a.second.dtype()) > io_detail::element_alignment(b.second.dtype());
  });
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      header += (first ? "" : ",") + io_detail::json::quote(k) + ":" + io_detail::json::quote(v);
      first = false;
    }
    header += "}";
  }
  std::uint64_t offset = 0;
  for (const auto& [name, t] : order) {
    const std::uint64_t nbytes = static_cast<std::uint64_t>(t.numel()) * size_of(t.dtype());
    header += (header.size() > 1 ? "," : "") + io_detail::json::quote(*name) + ":{\"dtype\":\"" +
              std::string(io_detail::st_name(t.dtype())) + "\",\"shape\":[";
    for (std::size_t i = 0; i < t.shape().size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape()[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + nbytes) + "]}";
    offset += nbytes;
  }
  header += "}";
  try {  // names and metadata must make valid JSON (UTF-8) for other readers
    io_detail::json::parse(header);
  } catch (const io_detail::json::ParseError&) {
    io_detail::fail(op, path, "tensor names and metadata must be valid UTF-8");
  }
  header.append((8 - header.size() % 8) % 8, ' ');
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((header.size() >> (8 * i)) & 0xFF);
  io_detail::AtomicFile f(op, path);
  f.write(len, 8);
  f.write(header);
  for (const auto& [name, t] : order) {
    std::unique_ptr<std::byte[]> scratch;  // the format is row-major: other orders are copied
    const std::byte* data = io_detail::bytes_in_order(t, Layout::RowMajor, scratch);
    f.write(data, static_cast<std::size_t>(t.numel()) * size_of(t.dtype()));
  }
  f.commit();
}

SafetensorsFile load_safetensors(const std::filesystem::path& path, LoadOptions options) {
  const auto file = io_detail::open_file("load_safetensors", path, options.mmap);
  return io_detail::parse_safetensors("load_safetensors", file, options);
}

}  // namespace tensora::io
