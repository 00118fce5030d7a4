// DirectoryHandle: a directory opened once (Env::OpenDirectory) and then
// worked in by name, so that what is checked is what is used: its owner and
// type come from the opened descriptor (fstat), and the files and
// subdirectories it names are opened relative to it without following a
// link (openat with O_NOFOLLOW). Another user who can rename the path, or
// plant a link under a name, cannot swap in a directory or a file of theirs
// between a check and its use.
//
// The local launcher keeps a trial's cgroup tree with it (its control
// files, a replica's cgroup to start a process in) and reads a trial
// directory's record of it. Thread-safety: one thread at a time per handle;
// handles of the same directory are independent.
#ifndef HPTUNE_ENV_DIRECTORY_HANDLE_H_
#define HPTUNE_ENV_DIRECTORY_HANDLE_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hptune {

// What a name in a directory is; a link is not followed.
enum class FileType { kRegular, kDirectory, kLink, kSocket, kOther };

// What Env::InfoOf finds at a path, or a handle on its descriptor.
struct FileInfo {
  FileType type = FileType::kOther;
  int64_t size = 0;    // A regular file's, in bytes.
  int mode = 0;        // The permission bits (07777).
  uint32_t owner = 0;  // The owner's uid.
};

struct DirectoryEntry {
  std::string name;  // Without the directory.
  FileType type = FileType::kOther;
  int64_t size = 0;  // A regular file's, in bytes.
};

// A file read through a handle, and what its descriptor said it was.
struct FileContents {
  std::string text;
  FileInfo info;
};

class DirectoryHandle {
 public:
  virtual ~DirectoryHandle() = default;

  // The path it was opened at: for messages only, never opened again.
  virtual const std::filesystem::path& path() const = 0;
  // The opened directory's type, mode and owner (fstat(2)).
  virtual absl::StatusOr<FileInfo> Info() = 0;
  // Up to `max_bytes` of the regular file `name` in it, with its owner and
  // mode from the same descriptor. The file is refused, as OpenRegularFile
  // refuses one (env.h), when it is a link, not a regular file, or has
  // other hard links: FailedPrecondition naming the file; NotFound when
  // absent.
  virtual absl::StatusOr<FileContents> ReadAt(std::string_view name,
                                              int64_t max_bytes) = 0;
  // Writes `text` from the start of the existing regular file `name` in it
  // (a cgroup control file takes a value so); never creates it, never
  // follows a link. The error names the file and the reason (ENOSPC: "No
  // space left on device").
  [[nodiscard]] virtual absl::Status WriteAt(std::string_view name,
                                             std::string_view text) = 0;
  // mkdirat(2): AlreadyExists when `name` is taken.
  [[nodiscard]] virtual absl::Status CreateSubdirectory(std::string_view name,
                                                        int mode = 0700) = 0;
  // unlinkat(2) of an empty directory: NotFound when absent; Unavailable
  // while the kernel holds it (EBUSY: a cgroup whose last process is still
  // leaving it), which a caller may retry.
  [[nodiscard]] virtual absl::Status RemoveSubdirectory(
      std::string_view name) = 0;
  // The subdirectory `name` opened as a handle; a link is refused
  // (FailedPrecondition).
  virtual absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenSubdirectory(
      std::string_view name) = 0;
  // Its entries, sorted by name, without "." and "..".
  virtual absl::StatusOr<std::vector<DirectoryEntry>> List() = 0;
  // The O_DIRECTORY descriptor (clone3's CLONE_INTO_CGROUP starts a process
  // in it), owned by the handle; -1 where there is none (FakeEnv's).
  virtual int descriptor() const = 0;
};

// A DirectoryHandle that hands every call to another, as EnvWrapper does for
// an Env: a test overrides the one call it means to break (a control file's
// write failing with ENOSPC) and returns it from Env::OpenDirectory.
class DirectoryHandleWrapper : public DirectoryHandle {
 public:
  explicit DirectoryHandleWrapper(std::unique_ptr<DirectoryHandle> target)
      : target_(std::move(target)) {}

  DirectoryHandle& target() const { return *target_; }

  const std::filesystem::path& path() const override { return target_->path(); }
  absl::StatusOr<FileInfo> Info() override { return target_->Info(); }
  absl::StatusOr<FileContents> ReadAt(std::string_view name,
                                      int64_t max_bytes) override {
    return target_->ReadAt(name, max_bytes);
  }
  [[nodiscard]] absl::Status WriteAt(std::string_view name,
                                     std::string_view text) override {
    return target_->WriteAt(name, text);
  }
  [[nodiscard]] absl::Status CreateSubdirectory(std::string_view name,
                                                int mode = 0700) override {
    return target_->CreateSubdirectory(name, mode);
  }
  [[nodiscard]] absl::Status RemoveSubdirectory(
      std::string_view name) override {
    return target_->RemoveSubdirectory(name);
  }
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenSubdirectory(
      std::string_view name) override {
    return target_->OpenSubdirectory(name);
  }
  absl::StatusOr<std::vector<DirectoryEntry>> List() override {
    return target_->List();
  }
  int descriptor() const override { return target_->descriptor(); }

 private:
  std::unique_ptr<DirectoryHandle> target_;
};

}  // namespace hptune

#endif  // HPTUNE_ENV_DIRECTORY_HANDLE_H_
