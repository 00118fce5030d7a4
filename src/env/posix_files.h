// The POSIX side of Env's files (include/hptune/env/env.h): what PosixEnv
// calls. Kept apart from the clock and waits so each file has one purpose.
// Thread-safe: each call uses only its own descriptors.
#ifndef HPTUNE_SRC_ENV_POSIX_FILES_H_
#define HPTUNE_SRC_ENV_POSIX_FILES_H_

#include <dirent.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::internal {

// An error for `errno` value `err` of `what` on `path`: NotFound for
// ENOENT, PermissionDenied for EACCES and EPERM, Internal otherwise.
absl::Status ErrnoError(std::string_view what,
                        const std::filesystem::path& path, int err);

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(
    const std::filesystem::path& path, std::string_view what);
// The whole file, or its first `max_bytes` bytes when it is longer.
absl::StatusOr<std::string> ReadPosixFile(
    const std::filesystem::path& path,
    int64_t max_bytes = std::numeric_limits<int64_t>::max());
absl::Status WritePosixFileAtomically(const std::filesystem::path& path,
                                      std::string_view contents, int mode,
                                      Durability durability);
absl::Status RenamePosix(const std::filesystem::path& from,
                         const std::filesystem::path& to);
absl::StatusOr<bool> RemovePosix(const std::filesystem::path& path);
absl::Status CreatePosixFileAtomically(const std::filesystem::path& path,
                                       std::string_view contents, int mode);
absl::StatusOr<FileInfo> PosixInfoOf(const std::filesystem::path& path,
                                     Links links);
absl::StatusOr<std::vector<DirectoryEntry>> ListPosixDirectory(
    const std::filesystem::path& dir);
// Env::OpenDirectory's (posix_directory.cc).
absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenPosixDirectory(
    const std::filesystem::path& path);

// Writes all of `data` to `fd`, through short writes and EINTR.
bool WriteAll(int fd, std::string_view data);
// The type a stat(2) mode says.
FileType TypeOfMode(unsigned mode);
// The entries of an opened directory from where it stands, sorted by name,
// without "." and "..".
std::vector<DirectoryEntry> ReadDirectoryEntries(DIR* opened);

// Env::OpenForAppending, PollReadable, ReadSome and Write
// (posix_descriptors.cc).
absl::StatusOr<std::unique_ptr<AppendFile>> OpenPosixForAppending(
    const std::filesystem::path& path, int mode);
absl::StatusOr<std::vector<int>> PollPosixReadable(
    std::span<const int> fds, std::optional<std::chrono::microseconds> timeout);
absl::StatusOr<size_t> ReadPosixSome(int fd, std::span<char> buffer);
absl::Status WritePosix(int fd, std::string_view data);

// Env::LockFile (posix_lock.cc).
absl::StatusOr<std::unique_ptr<FileLock>> LockPosixFile(
    const std::filesystem::path& path, LockMode mode, LockFileUse use);

}  // namespace hptune::internal

#endif  // HPTUNE_SRC_ENV_POSIX_FILES_H_
