#include "io/zip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include "io/io_error.hpp"

namespace tensora::io_detail {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50,
                        kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr std::uint32_t k32 = 0xFFFFFFFFu;
// deflate cannot expand by more than 1032:1; a larger claimed size is a lie.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

std::uint64_t le(const std::byte* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

// Reads little-endian fields of a record that must lie in [0, size) of the file.
class Reader {
 public:
  Reader(std::string_view op, const FileBytes& f) : op_(op), f_(f) {}
  void need(std::uint64_t off, std::uint64_t n, const char* what) const {
    if (off > f_.size || n > f_.size - off)
      fail(op_, f_.path, std::string("corrupt zip: the ") + what + " runs past the end of the file");
  }
  std::uint64_t get(std::uint64_t off, int n) const { return le(f_.data + off, n); }

 private:
  std::string_view op_;
  const FileBytes& f_;
};

void put(std::string& s, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}

}  // namespace

std::vector<ZipMember> read_zip_directory(std::string_view op, const FileBytes& file) {
  const auto& path = file.path;
  const Reader r(op, file);
  if (file.size < 22) fail(op, path, "not a zip archive (too short for the end of central directory)");
  // The end record is the last 22 bytes plus a comment of at most 65535 bytes.
  std::uint64_t end = file.size - 22;
  const std::uint64_t lowest = file.size >= 22 + 65535 ? file.size - 22 - 65535 : 0;
  while (true) {
    if (r.get(end, 4) == kEndSig && end + 22 + r.get(end + 20, 2) == file.size) break;
    if (end == lowest) fail(op, path, "not a zip archive (no end of central directory record)");
    --end;
  }
  if (r.get(end + 4, 2) != 0 || r.get(end + 6, 2) != 0) fail(op, path, "multi-disk zip archives are not supported");
  std::uint64_t count = r.get(end + 10, 2), cd_size = r.get(end + 12, 4), cd_offset = r.get(end + 16, 4);
  std::uint64_t cd_limit = end;  // the central directory ends before this
  if (count == 0xFFFF || cd_size == k32 || cd_offset == k32) {
    if (end < 20 || r.get(end - 20, 4) != kZip64LocatorSig) fail(op, path, "corrupt zip: zip64 locator missing");
    const std::uint64_t z = r.get(end - 20 + 8, 8);
    r.need(z, 56, "zip64 end record");
    if (r.get(z, 4) != kZip64EndSig || z > end - 20) fail(op, path, "corrupt zip: bad zip64 end record");
    count = r.get(z + 32, 8);
    cd_size = r.get(z + 40, 8);
    cd_offset = r.get(z + 48, 8);
    cd_limit = z;
  }
  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset)
    fail(op, path, "corrupt zip: the central directory lies outside the file");
  // Each entry takes at least 46 bytes, so the count cannot make us allocate beyond the file.
  if (count > cd_size / 46) fail(op, path, "corrupt zip: more entries than the central directory holds");

  std::vector<ZipMember> members;
  members.reserve(static_cast<std::size_t>(count));
  std::set<std::string, std::less<>> names;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [local header, data end)
  std::uint64_t p = cd_offset;
  const std::uint64_t cd_end = cd_offset + cd_size;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (p + 46 > cd_end) fail(op, path, "corrupt zip: truncated central directory");
    if (r.get(p, 4) != kCentralSig) fail(op, path, "corrupt zip: bad central directory entry signature");
    ZipMember m;
    const auto flags = r.get(p + 8, 2);
    m.method = static_cast<std::uint16_t>(r.get(p + 10, 2));
    m.crc32 = static_cast<std::uint32_t>(r.get(p + 16, 4));
    m.compressed_size = r.get(p + 20, 4);
    m.uncompressed_size = r.get(p + 24, 4);
    const auto name_len = r.get(p + 28, 2), extra_len = r.get(p + 30, 2), comment_len = r.get(p + 32, 2);
    std::uint64_t local = r.get(p + 42, 4);
    if (p + 46 + name_len + extra_len + comment_len > cd_end)
      fail(op, path, "corrupt zip: truncated central directory entry");
    m.name.assign(reinterpret_cast<const char*>(file.data + p + 46), static_cast<std::size_t>(name_len));
    if (flags & 1) fail(op, path, "member \"" + m.name + "\" is encrypted");
    // zip64 extra field: the 8-byte values of the fields that are 0xFFFFFFFF, in this order.
    std::uint64_t x = p + 46 + name_len;
    const std::uint64_t x_end = x + extra_len;
    while (x + 4 <= x_end) {
      const auto id = r.get(x, 2), len = r.get(x + 2, 2);
      if (x + 4 + len > x_end) fail(op, path, "corrupt zip: bad extra field of \"" + m.name + "\"");
      if (id == 0x0001) {
        std::uint64_t q = x + 4;
        const auto take = [&](std::uint64_t& field) {
          if (field != k32) return;
          if (q + 8 > x + 4 + len) fail(op, path, "corrupt zip: short zip64 field of \"" + m.name + "\"");
          field = r.get(q, 8);
          q += 8;
        };
        take(m.uncompressed_size);
        take(m.compressed_size);
        take(local);
      }
      x += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    if (!names.insert(m.name).second) fail(op, path, "duplicate member name \"" + m.name + "\"");
    if (m.method != 0 && m.method != 8)
      fail(op, path, "member \"" + m.name + "\" uses compression method " + std::to_string(m.method) +
                         " (only stored and deflate are supported)");
    if (m.method == 0 && m.compressed_size != m.uncompressed_size)
      fail(op, path, "corrupt zip: stored member \"" + m.name + "\" has different sizes");
    if (m.method == 8 && m.uncompressed_size / kMaxDeflateRatio > m.compressed_size + 1)
      fail(op, path, "corrupt zip: member \"" + m.name + "\" claims an impossible deflate ratio");
    // The local header repeats the name; its own extra field may differ in length.
    r.need(local, 30, "local header");
    if (r.get(local, 4) != kLocalSig) fail(op, path, "corrupt zip: bad local header of \"" + m.name + "\"");
    m.data_offset = local + 30 + r.get(local + 26, 2) + r.get(local + 28, 2);
    if (m.data_offset > cd_offset || m.compressed_size > cd_offset - m.data_offset)
      fail(op, path, "corrupt zip: member \"" + m.name + "\" runs past the start of the central directory");
    spans.emplace_back(local, m.data_offset + m.compressed_size);
    members.push_back(std::move(m));
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) fail(op, path, "corrupt zip: members overlap");
  return members;
}

void inflate_member(std::string_view op, const FileBytes& file, const ZipMember& m, std::byte* out,
                    std::size_t out_size) {
  const bool whole = out_size == m.uncompressed_size;
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) fail(op, file.path, "zlib: inflateInit2 failed");
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } const end{&zs};
  std::uint64_t in_left = m.compressed_size;
  const Bytef* in = reinterpret_cast<const Bytef*>(file.data + m.data_offset);
  // zlib counts in uInt: feed and drain in chunks below 4 GiB. One spare output byte after
  // the declared size tells a stream that ends there from one that goes on.
  constexpr std::uint64_t kChunk = 1u << 30;
  unsigned char spare = 0;
  std::size_t produced = 0;
  int rc = Z_OK;
  while (true) {
    if (zs.avail_in == 0 && in_left > 0) {
      zs.next_in = const_cast<Bytef*>(in);
      zs.avail_in = static_cast<uInt>(std::min(in_left, kChunk));
      in += zs.avail_in;
      in_left -= zs.avail_in;
    }
    const bool past = produced >= out_size;
    if (past && !whole) break;
    zs.next_out = past ? &spare : reinterpret_cast<Bytef*>(out + produced);
    zs.avail_out = past ? 1u : static_cast<uInt>(std::min<std::uint64_t>(out_size - produced, kChunk));
    const uInt before = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    const uInt got = before - zs.avail_out;
    if (past && got > 0)
      fail(op, file.path, "member \"" + m.name + "\" inflates to more than its declared size");
    produced += got;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) break;  // input exhausted
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
  }
  if (produced < out_size || (whole && rc != Z_STREAM_END))
    fail(op, file.path, "corrupt or truncated deflate data in member \"" + m.name + "\"");
  if (!whole) return;
  std::uint32_t crc = 0;
  for (std::size_t done = 0; done < out_size;) {
    const auto n = static_cast<uInt>(std::min<std::uint64_t>(out_size - done, kChunk));
    crc = static_cast<std::uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(out + done), n));
    done += n;
  }
  if (crc != m.crc32) fail(op, file.path, "CRC-32 mismatch in member \"" + m.name + "\"");
}

void ZipWriter::add(const std::string& name, const std::vector<std::pair<const void*, std::size_t>>& parts,
                    bool compress, std::size_t align_at) {
  Written w{name, static_cast<std::uint16_t>(compress ? 8 : 0), 0, 0, 0, file_.position()};
  std::uint64_t usize = 0;
  for (const auto& [p, n] : parts) usize += n;
  if (usize >= k32 || w.offset >= k32)
    fail(op_, file_.path(), "npz members and archives over 4 GiB need zip64, which save_npz does not write");
  // Stored: pad the local extra field so the data's byte `align_at` is 64-byte aligned.
  std::size_t pad = 0;
  if (!compress) {
    const std::uint64_t data_at = w.offset + 30 + name.size() + 4;
    pad = static_cast<std::size_t>((64 - (data_at + align_at) % 64) % 64);
  }
  std::string local;
  put(local, kLocalSig, 4);
  put(local, 20, 2);  // version needed: 2.0
  put(local, 0, 2);   // flags
  put(local, w.method, 2);
  put(local, 0, 2);     // time 00:00
  put(local, 0x21, 2);  // date 1980-01-01: saves are reproducible byte for byte
  put(local, 0, 4);     // crc, patched below
  put(local, 0, 4);     // compressed size, patched below
  put(local, usize, 4);
  put(local, name.size(), 2);
  put(local, compress ? 0 : 4 + pad, 2);
  local += name;
  if (!compress) {
    put(local, 0xD935, 2);  // the padding field id of Android's zipalign
    put(local, pad, 2);
    local.append(pad, '\0');
  }
  file_.write(local);
  std::uint32_t crc = 0;
  constexpr std::size_t kChunk = 1u << 30;
  for (const auto& [p, n] : parts)
    for (std::size_t done = 0; done < n;) {
      const auto k = static_cast<uInt>(std::min(n - done, kChunk));
      crc = static_cast<std::uint32_t>(::crc32(crc, static_cast<const Bytef*>(p) + done, k));
      done += k;
    }
  std::uint64_t csize = usize;
  if (!compress) {
    for (const auto& [p, n] : parts) file_.write(p, n);
  } else {
    z_stream zs{};
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      fail(op_, file_.path(), "zlib: deflateInit2 failed");
    std::vector<unsigned char> buf(1u << 20);
    const auto drain = [&](int flush) {
      do {
        zs.next_out = buf.data();
        zs.avail_out = static_cast<uInt>(buf.size());
        deflate(&zs, flush);
        file_.write(buf.data(), buf.size() - zs.avail_out);
      } while (zs.avail_out == 0);
    };
    for (const auto& [p, n] : parts)
      for (std::size_t done = 0; done < n;) {
        const auto k = static_cast<uInt>(std::min(n - done, kChunk));
        zs.next_in = const_cast<Bytef*>(static_cast<const Bytef*>(p) + done);
        zs.avail_in = k;
        drain(Z_NO_FLUSH);
        done += k;
      }
    drain(Z_FINISH);
    csize = zs.total_out;
    deflateEnd(&zs);
    if (csize >= k32) fail(op_, file_.path(), "npz member over 4 GiB compressed needs zip64");
  }
  std::string patch;
  put(patch, crc, 4);
  put(patch, csize, 4);
  file_.write_at(w.offset + 14, patch.data(), patch.size());
  w.crc = crc;
  w.csize = csize;
  w.usize = usize;
  written_.push_back(std::move(w));
}

void ZipWriter::finish() {
  const std::uint64_t cd_offset = file_.position();
  std::string cd;
  for (const auto& w : written_) {
    put(cd, kCentralSig, 4);
    put(cd, 20, 2);  // made by: MS-DOS / 2.0
    put(cd, 20, 2);
    put(cd, 0, 2);
    put(cd, w.method, 2);
    put(cd, 0, 2);
    put(cd, 0x21, 2);
    put(cd, w.crc, 4);
    put(cd, w.csize, 4);
    put(cd, w.usize, 4);
    put(cd, w.name.size(), 2);
    put(cd, 0, 2);  // extra
    put(cd, 0, 2);  // comment
    put(cd, 0, 2);  // disk
    put(cd, 0, 2);  // internal attributes
    put(cd, 0x81A40000u, 4);  // external: a regular file, 0644 (as Python's zipfile writes)
    put(cd, w.offset, 4);
    cd += w.name;
  }
  if (written_.size() >= 0xFFFF || cd_offset + cd.size() >= k32)
    fail(op_, file_.path(), "npz archives over 4 GiB or 65535 members need zip64");
  std::string end;
  put(end, kEndSig, 4);
  put(end, 0, 2);
  put(end, 0, 2);
  put(end, written_.size(), 2);
  put(end, written_.size(), 2);
  put(end, cd.size(), 4);
  put(end, cd_offset, 4);
  put(end, 0, 2);
  file_.write(cd);
  file_.write(end);
}

}  // namespace tensora::io_detail
