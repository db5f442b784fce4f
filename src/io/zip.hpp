// The ZIP container of .npz files (PKWARE APPNOTE 6.3): the central directory, zip64
// records, stored and deflate members. Deflate itself is zlib's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/file_bytes.hpp"

namespace tensora::io_detail {

struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflate
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0, uncompressed_size = 0;
  std::uint64_t data_offset = 0;  // of the member's (compressed) bytes in the file
};

// The members of the archive in `file`, every offset and size checked against the file:
// members lie inside it, before the central directory, and do not overlap.
std::vector<ZipMember> read_zip_directory(std::string_view op, const FileBytes& file);

// Inflates a deflate member into `out` (exactly `m.uncompressed_size` bytes) and checks the
// CRC. `out_size` may be less than the member's size to inflate only a prefix (no CRC check).
void inflate_member(std::string_view op, const FileBytes& file, const ZipMember& m, std::byte* out,
                    std::size_t out_size);

// Writes an archive member by member into an AtomicFile, then the central directory.
class ZipWriter {
 public:
  ZipWriter(std::string_view op, AtomicFile& file) : op_(op), file_(file) {}
  // A member made of `parts` (written one after the other). Stored members get a padding
  // extra field so byte `align_at` of their data lands on a 64-byte boundary in the file.
  void add(const std::string& name, const std::vector<std::pair<const void*, std::size_t>>& parts,
           bool compress, std::size_t align_at);
  void finish();

 private:
  struct Written {
    std::string name;
    std::uint16_t method;
    std::uint32_t crc;
    std::uint64_t csize, usize, offset;
  };
  std::string op_;
  AtomicFile& file_;
  std::vector<Written> written_;
};

}  // namespace tensora::io_detail
