// ScopedFd: a file descriptor closed when its owner goes, for code outside
// src/env that holds descriptors of its own (the identity socket's and the
// client's sockets), so that no path forgets to close one. Move-only;
// thread-compatible.
#ifndef HPTUNE_SRC_ENV_SCOPED_FD_H_
#define HPTUNE_SRC_ENV_SCOPED_FD_H_

#include <unistd.h>

#include <utility>

namespace hptune {

class ScopedFd {
 public:
  ScopedFd() = default;
  // Owns `fd`; a negative one (a failed call's) owns nothing.
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes what it owns, then owns `fd`.
  void Reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace hptune

#endif  // HPTUNE_SRC_ENV_SCOPED_FD_H_
