#include "io/file_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "core/storage.hpp"
#include "io/io_error.hpp"

namespace tensora::io_detail {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens a regular file and returns its size.
std::size_t open_regular(std::string_view op, const std::filesystem::path& path, Fd& f) {
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) fail_errno(op, path, "cannot open the file", errno);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail_errno(op, path, "cannot stat the file", errno);
  if (!S_ISREG(st.st_mode)) fail(op, path, "not a regular file");
  return static_cast<std::size_t>(st.st_size);
}

// Transparent huge pages for a large fresh buffer (as NumPy does for its arrays): reading
// 1 GiB into 4 KiB pages costs 262144 page faults, into 2 MiB pages 512. Advice only.
void advise_huge_pages(std::byte* data, std::size_t size) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) / kHuge * kHuge;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) / kHuge * kHuge;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

FileBytes map_file(std::string_view op, const std::filesystem::path& path) {
  Fd f;
  const std::size_t size = open_regular(op, path, f);
  if (size == 0) return FileBytes{nullptr, 0, nullptr, path};
  // MAP_PRIVATE + PROT_WRITE: writes through a loaded tensor go to private pages.
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) fail_errno(op, path, "cannot memory-map the file", errno);
  std::shared_ptr<void> keep(p, [size](void* q) { ::munmap(q, size); });
  return FileBytes{static_cast<std::byte*>(p), size, std::move(keep), path};
}

FileBytes read_file(std::string_view op, const std::filesystem::path& path) {
  Fd f;
  const std::size_t size = open_regular(op, path, f);
  // The size is the file's own, so this allocation is as large as the file, never larger.
  auto buffer = Storage::allocate(size, Device::cpu());
  auto* data = static_cast<std::byte*>(buffer->data());
  advise_huge_pages(data, size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(f.fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(op, path, "cannot read the file", errno);
    if (n == 0) fail(op, path, "the file shrank while it was read");
    done += static_cast<std::size_t>(n);
  }
  return FileBytes{size == 0 ? nullptr : data, size, std::move(buffer), path};
}

}  // namespace tensora::io_detail
