#include "src/env/posix_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::internal {
namespace {

class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  uint64_t size() const override { return size_; }

  absl::StatusOr<size_t> ReadAt(uint64_t offset, char* buffer,
                                size_t length) override {
    ssize_t n;
    do {
      n = ::pread(fd_, buffer, length, static_cast<off_t>(offset));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat("cannot read \"", path_, "\""));
    }
    return static_cast<size_t>(n);
  }

  std::pair<uint64_t, uint64_t> DataAt(uint64_t offset) override {
    if (offset >= size_) return {size_, size_};
    off_t begin = ::lseek(fd_, static_cast<off_t>(offset), SEEK_DATA);
    // ENXIO: only a hole is left; another error: no holes can be told.
    if (begin < 0) return {errno == ENXIO ? size_ : offset, size_};
    const off_t end = ::lseek(fd_, begin, SEEK_HOLE);
    const uint64_t stop =
        end < 0 ? size_ : std::min(size_, static_cast<uint64_t>(end));
    return {std::min(size_, static_cast<uint64_t>(begin)), stop};
  }

 private:
  const int fd_;
  const uint64_t size_;
  const std::string path_;
};

}  // namespace

// Writes all of `data` to `fd`, through short writes and EINTR.
bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

FileType TypeOfMode(unsigned mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kLink;
  if (S_ISSOCK(mode)) return FileType::kSocket;
  return FileType::kOther;
}

std::vector<DirectoryEntry> ReadDirectoryEntries(DIR* opened) {
  std::vector<DirectoryEntry> entries;
  while (const dirent* entry = ::readdir(opened)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat info;
    const bool known = ::fstatat(::dirfd(opened), entry->d_name, &info,
                                 AT_SYMLINK_NOFOLLOW) == 0;
    entries.push_back(
        {.name = name,
         .type = known ? TypeOfMode(info.st_mode) : FileType::kOther,
         .size = known ? static_cast<int64_t>(info.st_size) : 0});
  }
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) {
              return a.name < b.name;
            });
  return entries;
}

absl::Status ErrnoError(std::string_view what,
                        const std::filesystem::path& path, int err) {
  std::string message = absl::StrCat(std::string(what), " ", path.string(),
                                     ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) {
    return absl::PermissionDeniedError(message);
  }
  return absl::InternalError(message);
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(
    const std::filesystem::path& path, std::string_view what) {
  HPTUNE_ASSIGN_OR_RETURN(const int fd, OpenRegularFile(path, O_RDONLY, what));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::ErrnoToStatus(
        error, absl::StrCat("cannot stat ", std::string(what), " \"",
                            path.string(), "\""));
  }
  return std::make_unique<PosixRandomAccessFile>(
      fd, static_cast<uint64_t>(info.st_size), path.string());
}

absl::StatusOr<std::string> ReadPosixFile(const std::filesystem::path& path,
                                          int64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", path, errno);
  std::string contents;
  char buffer[1 << 16];
  while (static_cast<int64_t>(contents.size()) < max_bytes) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(
        sizeof(buffer), max_bytes - static_cast<int64_t>(contents.size())));
    ssize_t n = ::read(fd, buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int read_errno = errno;
      ::close(fd);
      return ErrnoError("cannot read", path, read_errno);
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

absl::Status WritePosixFileAtomically(const std::filesystem::path& path,
                                      std::string_view contents, int mode,
                                      Durability durability) {
  std::filesystem::path temporary = path;
  temporary += absl::StrCat(".tmp.", ::getpid());
  // Made afresh (O_EXCL): in a directory another user owns, a name planted
  // there, a link or a hard link to a file of ours, is not written through.
  ::unlink(temporary.c_str());
  int fd = ::open(temporary.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return ErrnoError("cannot create", temporary, errno);
  const bool written =
      WriteAll(fd, contents) &&
      (durability == Durability::kUnsynced || ::fsync(fd) == 0);
  const int write_errno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(temporary.c_str());
    return ErrnoError("cannot write", temporary, write_errno);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    ::unlink(temporary.c_str());
    return ErrnoError("cannot rename into", path, rename_errno);
  }
  return absl::OkStatus();
}

absl::Status RenamePosix(const std::filesystem::path& from,
                         const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoError(absl::StrCat("cannot rename ", from.string(), " to"), to,
                      errno);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> RemovePosix(const std::filesystem::path& path) {
  if (::remove(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  return ErrnoError("cannot remove", path, errno);
}

absl::Status CreatePosixFileAtomically(const std::filesystem::path& path,
                                       std::string_view contents, int mode) {
  // This call's own name: racing creators, in this process or another,
  // never share one.
  static std::atomic<uint64_t> calls{0};
  std::filesystem::path temporary = path;
  temporary += absl::StrCat(".tmp.", ::getpid(), ".", calls.fetch_add(1));
  ::unlink(temporary.c_str());
  int fd = ::open(temporary.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return ErrnoError("cannot create", temporary, errno);
  const bool written = WriteAll(fd, contents) && ::fsync(fd) == 0;
  const int write_errno = errno;
  ::close(fd);
  // link(2), unlike rename(2), fails when the name exists.
  const bool linked = written && ::link(temporary.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  ::unlink(temporary.c_str());
  if (!written) return ErrnoError("cannot write", temporary, write_errno);
  if (!linked && link_errno == EEXIST) {
    return absl::AlreadyExistsError(
        absl::StrCat("cannot create ", path.string(), ": File exists"));
  }
  if (!linked) return ErrnoError("cannot link into", path, link_errno);
  return absl::OkStatus();
}

absl::StatusOr<FileInfo> PosixInfoOf(const std::filesystem::path& path,
                                     Links links) {
  struct stat info;
  const int failed = links == Links::kFollow ? ::stat(path.c_str(), &info)
                                             : ::lstat(path.c_str(), &info);
  if (failed != 0) return ErrnoError("cannot stat", path, errno);
  return FileInfo{.type = TypeOfMode(info.st_mode),
                  .size = static_cast<int64_t>(info.st_size),
                  .mode = static_cast<int>(info.st_mode & 07777),
                  .owner = info.st_uid};
}

absl::StatusOr<std::vector<DirectoryEntry>> ListPosixDirectory(
    const std::filesystem::path& dir) {
  DIR* opened = ::opendir(dir.c_str());
  if (opened == nullptr) return ErrnoError("cannot list", dir, errno);
  std::vector<DirectoryEntry> entries = ReadDirectoryEntries(opened);
  ::closedir(opened);
  return entries;
}

}  // namespace hptune::internal

namespace hptune {

absl::StatusOr<int> OpenRegularFile(const std::filesystem::path& path,
                                    int flags, std::string_view what,
                                    int mode) {
  const std::string named =
      absl::StrCat(std::string(what), " \"", path.string(), "\"");
  int fd;
  do {
    fd =
        ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0 && errno == ELOOP) {
    return absl::FailedPreconditionError(
        absl::StrCat(named, " is a link, which is not followed"));
  }
  if (fd < 0 && errno == ENXIO) {  // A FIFO without a reader, to write.
    return absl::FailedPreconditionError(
        absl::StrCat(named, " is not a regular file"));
  }
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", named));
  }
  struct stat info;
  absl::Status refused;
  if (::fstat(fd, &info) != 0) {
    refused = absl::ErrnoToStatus(errno, absl::StrCat("cannot stat ", named));
  } else if (!S_ISREG(info.st_mode)) {
    refused = absl::FailedPreconditionError(
        absl::StrCat(named, " is not a regular file"));
  } else if (info.st_nlink > 1) {
    refused =
        absl::FailedPreconditionError(absl::StrCat(named, " has other links"));
  } else if (const int status = ::fcntl(fd, F_GETFL);
             status < 0 || ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0) {
    // A log's descriptor becomes a replica's stdout, which must block.
    refused = absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", named));
  }
  if (!refused.ok()) {
    ::close(fd);
    return refused;
  }
  return fd;
}

}  // namespace hptune
