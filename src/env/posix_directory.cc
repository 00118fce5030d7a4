// The POSIX DirectoryHandle (hptune/env/directory_handle.h): a descriptor
// opened with O_DIRECTORY, and *at(2) calls relative to it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/env/posix_files.h"

namespace hptune::internal {
namespace {

constexpr int kDirectoryFlags = O_DIRECTORY | O_RDONLY | O_CLOEXEC;

FileInfo InfoOfStat(const struct stat& info) {
  return {.type = TypeOfMode(info.st_mode),
          .size = static_cast<int64_t>(info.st_size),
          .mode = static_cast<int>(info.st_mode & 07777),
          .owner = info.st_uid};
}

// A directory opened without following its last component: ELOOP, or
// ENOTDIR for a link with O_DIRECTORY | O_NOFOLLOW, is a link refused.
absl::StatusOr<int> OpenDirectoryAt(int dir_fd,
                                    const std::filesystem::path& name,
                                    const std::filesystem::path& shown) {
  int fd;
  do {
    fd = ::openat(dir_fd, name.c_str(), kDirectoryFlags | O_NOFOLLOW);
  } while (fd < 0 && errno == EINTR);
  if (fd >= 0) return fd;
  const int error = errno;
  struct stat info;
  if ((error == ELOOP || error == ENOTDIR) &&
      ::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "directory ", shown.string(), " is a link, which is not followed"));
  }
  if (error == ENOTDIR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open directory ", shown.string(), ": Not a directory"));
  }
  return ErrnoError("cannot open directory", shown, error);
}

class PosixDirectoryHandle : public DirectoryHandle {
 public:
  PosixDirectoryHandle(int fd, std::filesystem::path path)
      : fd_(fd), path_(std::move(path)) {}
  ~PosixDirectoryHandle() override { ::close(fd_); }

  const std::filesystem::path& path() const override { return path_; }
  int descriptor() const override { return fd_; }

  absl::StatusOr<FileInfo> Info() override {
    struct stat info;
    if (::fstat(fd_, &info) != 0)
      return ErrnoError("cannot stat", path_, errno);
    return InfoOfStat(info);
  }

  absl::StatusOr<FileContents> ReadAt(std::string_view name,
                                      int64_t max_bytes) override {
    const std::filesystem::path file = path_ / name;
    int fd;
    do {
      fd = ::openat(fd_, std::string(name).c_str(),
                    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return OpenError(file, errno);
    absl::StatusOr<FileContents> contents = ReadOpened(fd, file, max_bytes);
    ::close(fd);
    return contents;
  }

  absl::Status WriteAt(std::string_view name, std::string_view text) override {
    const std::filesystem::path file = path_ / name;
    int fd;
    do {
      fd = ::openat(fd_, std::string(name).c_str(),
                    O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return OpenError(file, errno);
    struct stat info;
    absl::Status status;
    if (::fstat(fd, &info) != 0) {
      status = ErrnoError("cannot stat", file, errno);
    } else if (!S_ISREG(info.st_mode)) {
      status = NotRegular(file);
    } else if (!WriteAll(fd, text)) {
      status = ErrnoError("cannot write", file, errno == 0 ? EIO : errno);
    }
    ::close(fd);
    return status;
  }

  absl::Status CreateSubdirectory(std::string_view name, int mode) override {
    if (::mkdirat(fd_, std::string(name).c_str(), static_cast<mode_t>(mode)) ==
        0) {
      return absl::OkStatus();
    }
    const std::filesystem::path dir = path_ / name;
    if (errno == EEXIST) {
      return absl::AlreadyExistsError(
          absl::StrCat("cannot create directory ", dir.string(), ": exists"));
    }
    return ErrnoError("cannot create directory", dir, errno);
  }

  absl::Status RemoveSubdirectory(std::string_view name) override {
    if (::unlinkat(fd_, std::string(name).c_str(), AT_REMOVEDIR) == 0) {
      return absl::OkStatus();
    }
    const std::filesystem::path dir = path_ / name;
    if (errno == EBUSY) {
      return absl::UnavailableError(absl::StrCat("cannot remove directory ",
                                                 dir.string(), ": ",
                                                 std::strerror(EBUSY)));
    }
    return ErrnoError("cannot remove directory", dir, errno);
  }

  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenSubdirectory(
      std::string_view name) override {
    const std::filesystem::path dir = path_ / name;
    absl::StatusOr<int> fd = OpenDirectoryAt(fd_, std::string(name), dir);
    if (!fd.ok()) return fd.status();
    return std::make_unique<PosixDirectoryHandle>(*fd, dir);
  }

  absl::StatusOr<std::vector<DirectoryEntry>> List() override {
    // fdopendir takes the descriptor it is given: a duplicate, so the
    // handle keeps its own.
    const int copy = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    DIR* opened = copy < 0 ? nullptr : ::fdopendir(copy);
    if (opened == nullptr) {
      const int error = errno;
      if (copy >= 0) ::close(copy);
      return ErrnoError("cannot list", path_, error);
    }
    ::rewinddir(opened);
    std::vector<DirectoryEntry> entries = ReadDirectoryEntries(opened);
    ::closedir(opened);
    return entries;
  }

 private:
  static absl::Status NotRegular(const std::filesystem::path& file) {
    return absl::FailedPreconditionError(
        absl::StrCat("file ", file.string(), " is not a regular file"));
  }

  static absl::Status OpenError(const std::filesystem::path& file, int error) {
    if (error == ELOOP) {
      return absl::FailedPreconditionError(absl::StrCat(
          "file ", file.string(), " is a link, which is not followed"));
    }
    if (error == ENXIO) return NotRegular(file);  // A FIFO, to write.
    return ErrnoError("cannot open", file, error);
  }

  static absl::StatusOr<FileContents> ReadOpened(
      int fd, const std::filesystem::path& file, int64_t max_bytes) {
    struct stat info;
    if (::fstat(fd, &info) != 0) return ErrnoError("cannot stat", file, errno);
    if (!S_ISREG(info.st_mode)) return NotRegular(file);
    if (info.st_nlink > 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("file ", file.string(), " has other links"));
    }
    FileContents contents{.info = InfoOfStat(info)};
    char buffer[4096];
    while (static_cast<int64_t>(contents.text.size()) < max_bytes) {
      const size_t want = static_cast<size_t>(std::min<int64_t>(
          sizeof(buffer),
          max_bytes - static_cast<int64_t>(contents.text.size())));
      const ssize_t n = ::read(fd, buffer, want);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoError("cannot read", file, errno);
      if (n == 0) break;
      contents.text.append(buffer, static_cast<size_t>(n));
    }
    return contents;
  }

  const int fd_;
  const std::filesystem::path path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenPosixDirectory(
    const std::filesystem::path& path) {
  absl::StatusOr<int> fd = OpenDirectoryAt(AT_FDCWD, path, path);
  if (!fd.ok()) return fd.status();
  return std::make_unique<PosixDirectoryHandle>(*fd, path);
}

}  // namespace hptune::internal
