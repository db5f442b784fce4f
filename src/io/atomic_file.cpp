#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <vector>

#include "io/io_error.hpp"

namespace tensora::io_detail {

AtomicFile::AtomicFile(std::string_view op, std::filesystem::path target)
    : op_(op), target_(std::move(target)) {
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + target_.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) fail_errno(op_, target_, "cannot create a temporary file in " + dir.string(), errno);
  temp_ = name.data();
  ::fchmod(fd_, 0644);  // mkstemp makes 0600; a saved tensor file is as readable as np.save's
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno(op_, target_, "cannot write the file", errno);
    p += w;
    offset += static_cast<std::uint64_t>(w);
    n -= static_cast<std::size_t>(w);
  }
}

void AtomicFile::write(const void* data, std::size_t n) {
  write_at(position_, data, n);
  position_ += n;
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail_errno(op_, target_, "cannot flush the file to disk", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    ::unlink(temp_.c_str());
    fail_errno(op_, target_, "cannot close the file", errno);
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temp_.c_str());
    fail_errno(op_, target_, "cannot rename the temporary file over the target", e);
  }
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {  // makes the rename durable; a directory that cannot be opened is no error
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace tensora::io_detail
